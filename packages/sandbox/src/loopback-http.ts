// What the sandboxes share as small HTTP servers on loopback: reading a request body, answering
// HTML, the Stripe and App Store pages' frame and one-button forms, delivering an event to the
// product, and listening. Their routing is route-table.ts.
import {
  type IncomingMessage,
  request as httpRequest,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

export async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export function sendHtml(response: ServerResponse, status: number, html: string): void {
  response.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
  response.end(html);
}

/** A whole page in a sandbox's look (`style`), narrow (a form) or wide (a table). */
export function page(
  style: string,
  title: string,
  body: string,
  layout: 'narrow' | 'wide' = 'narrow',
): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>${style}</style></head><body><main${layout === 'wide' ? ' class="wide"' : ''}>${body}</main></body></html>`;
}

/** One small form with one button: no script, so the development pages work as plain HTML. */
export function postButton(
  action: string,
  text: string,
  accessibleName: string,
  fields: Record<string, string> = {},
): string {
  const hidden = Object.entries(fields)
    .map(
      ([name, value]) =>
        `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`,
    )
    .join('');
  return `<form method="post" action="${escapeHtml(action)}">${hidden}<button type="submit" aria-label="${escapeHtml(accessibleName)}">${escapeHtml(text)}</button></form>`;
}

/**
 * One JSON POST on its own connection (no keep-alive), as a webhook or notification delivery
 * is: a kept-alive idle connection would hold the receiving server's graceful close open.
 * Resolves with the status.
 */
export function postOnce(
  url: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      url,
      {
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          ...headers,
        },
        timeout: 10_000,
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error(`delivery to ${url} timed out`)));
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** Listens on 127.0.0.1 only (these stand-ins are never for a network); resolves with the port. */
export async function listenOnLoopback(server: Server, port = 0): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return (server.address() as AddressInfo).port;
}
