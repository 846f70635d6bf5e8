import { connect, type Socket } from 'node:net';

import { startSmtpInbox } from '@kegel/sandbox/smtp-inbox';
import { createTransport } from 'nodemailer';
import { describe, expect, it } from 'vitest';

/** Writes one SMTP command and waits for the reply line that starts with `code`. */
function say(socket: Socket, command: string | undefined, code: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let reply = '';
    const onData = (chunk: Buffer): void => {
      reply += chunk.toString('utf8');
      if (new RegExp(`^${code} `, 'm').test(reply)) {
        socket.off('data', onData);
        resolve();
      } else if (/^[45]\d\d /m.test(reply)) {
        socket.off('data', onData);
        reject(new Error(`unexpected reply: ${reply}`));
      }
    };
    socket.on('data', onData);
    if (command) socket.write(`${command}\r\n`);
  });
}

describe('the local SMTP capture', () => {
  it('outlives senders that drop their connections in the middle of a mail, and takes the next', async () => {
    const inbox = await startSmtpInbox();
    try {
      // A server process killed (-9) while handing over mail on two connections: both are reset
      // after MAIL FROM. The capture, in the cluster test's own process, must not take it down.
      for (const sender of ['first', 'second']) {
        const socket = connect(inbox.port, '127.0.0.1');
        socket.on('error', () => {});
        await say(socket, undefined, '220');
        await say(socket, `EHLO ${sender}.example`, '250');
        await say(socket, 'MAIL FROM:<sender@example.com>', '250');
        socket.resetAndDestroy();
        await new Promise((resolve) => setTimeout(resolve, 200));
      }

      const transport = createTransport({ url: inbox.url, ignoreTLS: true });
      await transport.sendMail({
        from: 'sender@example.com',
        to: 'next@example.com',
        subject: 'After the reset',
        text: 'Still here.',
      });
      const received = await inbox.waitFor((email) => email.to.includes('next@example.com'));
      expect(received.subject).toBe('After the reset');
      expect(inbox.messages()).toHaveLength(1);
    } finally {
      await inbox.close();
    }
  });
});
