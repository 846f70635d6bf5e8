// A real SMTP server on loopback that keeps what it receives: the product's local inbox when no
// SMTP_URL is configured, and the mail capture of the tests. Mail reaches it through the same
// nodemailer transport that talks to a production SMTP server.
import type { AddressInfo } from 'node:net';

import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface CapturedEmail {
  id: number;
  receivedAt: Date;
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  /** Every header by its lower-case name (the last one of a name), unfolded. */
  headers: Record<string, string>;
}

export interface SmtpInbox {
  port: number;
  url: string;
  messages(): CapturedEmail[];
  /** Resolves with the first message (already received or yet to come) that matches. */
  waitFor(match: (email: CapturedEmail) => boolean, timeoutMs?: number): Promise<CapturedEmail>;
  clear(): void;
  close(): Promise<void>;
}

export interface SmtpInboxOptions {
  /** 0 picks a free port. */
  port?: number;
  /** Oldest messages are dropped beyond this many. */
  capacity?: number;
}

export async function startSmtpInbox(options: SmtpInboxOptions = {}): Promise<SmtpInbox> {
  const capacity = options.capacity ?? 500;
  const received: CapturedEmail[] = [];
  const waiters = new Set<{
    match: (email: CapturedEmail) => boolean;
    resolve: (email: CapturedEmail) => void;
  }>();
  let nextId = 1;

  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(_auth, _session, callback) {
      callback(null, { user: 'sandbox' });
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          const email: CapturedEmail = {
            id: nextId++,
            receivedAt: new Date(),
            from: parsed.from?.text ?? '',
            to: session.envelope.rcptTo.map((recipient) => recipient.address),
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            html: typeof parsed.html === 'string' ? parsed.html : '',
            headers: Object.fromEntries(
              parsed.headerLines.map(({ key, line }) => [
                key,
                line
                  .slice(line.indexOf(':') + 1)
                  .replace(/\r?\n[ \t]+/g, ' ')
                  .trim(),
              ]),
            ),
          };
          received.push(email);
          if (received.length > capacity) received.shift();
          for (const waiter of waiters) {
            if (waiter.match(email)) {
              waiters.delete(waiter);
              waiter.resolve(email);
            }
          }
          callback();
        })
        .catch((error: unknown) => callback(error as Error));
    },
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  // smtp-server reports a sender that drops its connection in the middle of a mail (a process
  // killed, as the cluster test does) as an 'error' of the server, which unheard would end this
  // process. That mail is simply not received, as with any mail server; the sender retries it.
  server.on('error', () => {});
  const { port } = server.server.address() as AddressInfo;

  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    messages: () => [...received],
    waitFor(match, timeoutMs = 10_000) {
      const found = received.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const waiter = {
          match,
          resolve: (email: CapturedEmail) => {
            clearTimeout(timer);
            resolve(email);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(
            new Error(`no matching email within ${timeoutMs} ms (${received.length} received)`),
          );
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    clear() {
      received.length = 0;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
