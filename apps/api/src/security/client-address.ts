// Who is asking, as the rate limits see it: the client's network. An IPv4 address is one
// client; an IPv6 client usually holds a whole /64 (and can pick any address in it), so the /64
// is what counts, or rotating addresses would escape every per-address limit.
import { isIPv6 } from 'node:net';

import type { Locale } from '@kegel/contract/i18n';

export interface Caller {
  /** The client's address (IPv4) or its /64 (IPv6), e.g. `203.0.113.7` or `2001:db8:1:2::/64`. */
  clientAddress: string;
  /** Its User-Agent, for the label of a session it starts. */
  userAgent?: string;
  /** The language of the page he is on (Accept-Language): an account he makes takes it. */
  locale?: Locale;
}

export function callerFrom(ip: string, userAgent?: string, locale?: Locale): Caller {
  return {
    clientAddress: clientNetwork(ip),
    ...(userAgent ? { userAgent } : {}),
    ...(locale ? { locale } : {}),
  };
}

export function clientNetwork(ip: string): string {
  // An IPv4 client behind a dual-stack socket shows as ::ffff:203.0.113.7.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1];
  if (mapped) return mapped;
  if (!isIPv6(ip)) return ip;
  const [head = '', tail = ''] = ip.toLowerCase().split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = ip.includes('::')
    ? [...headGroups, ...Array<string>(missing).fill('0'), ...tailGroups]
    : headGroups;
  const prefix = groups.slice(0, 4).map((group) => group.replace(/^0+(?=.)/, ''));
  return `${prefix.join(':')}::/64`;
}
