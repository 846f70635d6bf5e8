// Whether a request comes from the machine the server runs on. The development conveniences
// that show secrets (the local inbox lists every reset link and generated password) answer only
// such requests, judged by the socket's address: X-Forwarded-For is whatever the client wrote.
import type { FastifyRequest } from 'fastify';

/** 127.0.0.0/8 and ::1, also as an IPv4-mapped IPv6 address (::ffff:127.0.0.1). */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const ipv4 = /^(?:::ffff:)?(\d+)\.\d+\.\d+\.\d+$/i.exec(address);
  if (ipv4) return ipv4[1] === '127';
  return address === '::1';
}

/** A HOST setting that keeps the server on this machine. */
export function isLoopbackHost(host: string): boolean {
  return host.toLowerCase() === 'localhost' || isLoopbackAddress(host.replace(/^\[|\]$/g, ''));
}

/**
 * Headers a proxy adds: a request carrying one was forwarded from elsewhere, even over loopback.
 * Beside the standard `Forwarded` and the common `X-Forwarded-*`, what nginx (`X-Real-IP`), other
 * proxies (`Via`) and CDNs (`True-Client-IP`, `CF-Connecting-IP`) use to name the client.
 */
const FORWARDING_HEADERS = [
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-real-ip',
  'via',
  'true-client-ip',
  'cf-connecting-ip',
];

/**
 * The Host a browser sent names this machine: localhost (or a name under it, which browsers never
 * ask DNS for) or a loopback address. A page of another site whose name its owner points at
 * 127.0.0.1 (DNS rebinding) reaches us over loopback, same-origin to the browser, with no proxy
 * header: only its Host tells. No Host at all is no browser's request.
 */
function namesThisMachine(host: string | undefined): boolean {
  if (host === undefined) return true;
  const name = (/^\[([^\]]+)\]/.exec(host)?.[1] ?? host.replace(/:\d*$/, '')).toLowerCase();
  return name.endsWith('.localhost') || isLoopbackHost(name);
}

export function isFromThisMachine(request: FastifyRequest): boolean {
  return (
    isLoopbackAddress(request.socket.remoteAddress) &&
    FORWARDING_HEADERS.every((name) => request.headers[name] === undefined) &&
    namesThisMachine(request.headers.host)
  );
}
