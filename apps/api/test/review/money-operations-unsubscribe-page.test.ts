// Adversarial review of the unsubscribe page (/account/unsubscribe): its address carries the
// reminder mail's signed token, which turns the member's reminders off without a session and never
// expires. The page must keep that address out of every Referer, as the other emailed-link pages
// do. The test fails if the page is served with the site-wide policy.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { buildTestApp } from '../support/test-app';
import { type TestDatabase, testDatabaseKinds } from '../support/test-databases';

const INDEX_HTML = '<!doctype html><title>Kegel Coach</title><div id="root"></div>';
const TOKEN = '8a3c6a57-6c8b-4d0e-9b7e-3f1d2c4b5a69.expiry-reminders.c2lnbmF0dXJl';

describe('review: the unsubscribe page under attack', () => {
  const pglite = testDatabaseKinds[0]!;
  let database: TestDatabase;
  let webRoot: string;
  let app: FastifyInstance;

  beforeAll(async () => {
    database = await pglite.create();
    webRoot = mkdtempSync(path.join(tmpdir(), 'kegel-web-'));
    writeFileSync(path.join(webRoot, 'index.html'), INDEX_HTML);
    app = await buildTestApp(database, { webRoot });
  });
  afterAll(async () => {
    await app.close();
    await database.drop();
    rmSync(webRoot, { recursive: true, force: true });
  });

  it.each([`/account/unsubscribe?token=${TOKEN}`, `/Account/Unsubscribe/?token=${TOKEN}`])(
    'sends no referrer from %s, whose address carries the signed token',
    async (url) => {
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(200);
      expect(response.body).toBe(INDEX_HTML);
      expect(response.headers['referrer-policy']).toBe('no-referrer');
    },
  );
});
