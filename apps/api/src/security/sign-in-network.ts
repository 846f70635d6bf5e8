// The network a sign-in came from, as the new-device notice compares them (ADR 019): wider than
// the client address the rate limits count, so a home router's new IPv4 lease in the same /24, or
// a phone's next IPv6 /64 in its provider's /48, is the same network and mails nobody.
import { isIPv4 } from 'node:net';

/**
 * `203.0.113.0/24` for an IPv4 client, `2001:db8:1::/48` for an IPv6 one. Takes the client
 * address as `clientNetwork` gives it (an IPv4 address, or an IPv6 /64 such as `2001:db8:1:2::/64`).
 */
export function signInNetwork(clientAddress: string): string {
  if (isIPv4(clientAddress)) {
    const [a, b, c] = clientAddress.split('.');
    return `${a}.${b}.${c}.0/24`;
  }
  const groups = clientAddress.replace(/::\/64$/, '').split(':');
  if (groups.length !== 4) return clientAddress;
  return `${groups.slice(0, 3).join(':')}::/48`;
}
