import { createHash } from 'node:crypto';

import type { SmtpInbox } from '@kegel/sandbox/smtp-inbox';
import type { FastifyPluginAsync } from 'fastify';

import { AppError } from '../errors';
import { isFromThisMachine } from '../security/loopback';
import { escapeHtml } from './templates';

const INBOX_STYLE =
  'body{font-family:system-ui,sans-serif;margin:32px;color:#1b2733}table{border-collapse:collapse;width:100%}td,th{padding:8px 12px;border-bottom:1px solid #dbe2ea;text-align:left}';

/** The list's own policy: its one inline style, by hash, and nothing else. */
const INBOX_POLICY = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(INBOX_STYLE).digest('base64')}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

/**
 * The local inbox, for development without SMTP_URL: `/dev/inbox` lists what the product sent,
 * `/dev/inbox/:id` shows one message. Never registered in production (config refuses the sandbox).
 * It shows every reset link and generated password, so only this machine may read it, even when
 * HOST opens the server to a network.
 */
export const devInboxRoutes: FastifyPluginAsync<{ inbox: SmtpInbox }> =
  async function devInboxRoutes(app, { inbox }) {
    app.addHook('onRequest', async function onlyFromThisMachine(request) {
      if (!isFromThisMachine(request)) {
        throw new AppError(403, 'The local inbox answers only on the machine the server runs on.');
      }
    });

    app.get('/dev/inbox', async function listInbox(_request, reply) {
      const rows = inbox
        .messages()
        .reverse()
        .map(
          (email) =>
            `<tr><td>${email.receivedAt.toISOString().replace('T', ' ').slice(0, 19)}</td><td>${escapeHtml(email.to.join(', '))}</td><td><a href="/dev/inbox/${email.id}">${escapeHtml(email.subject)}</a></td></tr>`,
        )
        .join('\n');
      return reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('content-security-policy', INBOX_POLICY)
        .send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Local inbox</title>
<style>${INBOX_STYLE}</style></head>
<body><h1>Local inbox</h1><p>Mail the server sent while no SMTP_URL is configured (kept in memory, newest first). Mail that waits for a day: move the <a href="/dev/clock">development clock</a>.</p>
<table><thead><tr><th>Received (UTC)</th><th>To</th><th>Subject</th></tr></thead><tbody>${rows || '<tr><td colspan="3">No mail yet.</td></tr>'}</tbody></table></body></html>`);
    });

    // For scripts and the end-to-end tests: the same messages as data.
    app.get('/dev/inbox/messages.json', async function listInboxAsJson(_request, reply) {
      return reply.header('cache-control', 'no-store').send(
        inbox.messages().map(({ id, receivedAt, to, subject, text }) => ({
          id,
          receivedAt,
          to,
          subject,
          text,
        })),
      );
    });

    app.get<{ Params: { id: string } }>('/dev/inbox/:id', async function showEmail(request, reply) {
      const email = inbox.messages().find((message) => String(message.id) === request.params.id);
      if (!email) return reply.code(404).type('text/plain').send('No such message');
      // The message's own HTML, with scripts and forms disabled.
      return reply
        .type('text/html; charset=utf-8')
        .header(
          'content-security-policy',
          "sandbox allow-popups allow-popups-to-escape-sandbox; frame-ancestors 'none'",
        )
        .header('cache-control', 'no-store')
        .send(email.html || `<pre>${escapeHtml(email.text)}</pre>`);
    });
  };
