import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

import type { AppStoreSandbox } from '@kegel/sandbox/app-store-sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { AppError } from '../../src/errors';
import {
  appStoreEnv,
  monthFrom,
  startTestAppStoreSandbox,
  TEST_APP_APPLE_ID,
  transactionPayload,
} from '../support/app-store';
import { captureLog, LOG_LEVEL } from '../support/log-capture';
import { startTestServer, type TestServer } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';

/**
 * Look Up Order ID through the server's App Store Server API client (`app.appStoreServerApi`):
 * the order id of Apple's receipt email names its purchase, verified as a notification is. In
 * development the client calls the server's own App Store sandbox; deployed, it calls
 * APPLE_API_BASE_URL (here a recording stand-in in front of a sandbox) with the key of
 * APPLE_ISSUER_ID, APPLE_KEY_ID and APPLE_PRIVATE_KEY_PATH.
 */
describe.each(testDatabaseKinds)('Apple order lookups on $name', (kind) => {
  describe('in development, against the App Store sandbox the server runs', () => {
    let server: TestServer;
    let sandbox: AppStoreSandbox;
    beforeAll(async () => {
      server = await startTestServer(kind);
      const running = server.app.appStoreSandbox;
      if (!running) throw new Error('expected the App Store sandbox');
      sandbox = running;
    });
    afterAll(() => server.close());

    function lookUpOrder(orderId: string) {
      const api = server.app.appStoreServerApi;
      if (!api) throw new Error('expected order lookups to be on');
      return api.lookUpOrder(orderId);
    }

    it('names the purchase of a subscription by its order id, and each renewal by its own', async () => {
      const { originalTransactionId, orderId } = await sandbox.subscribe({
        productId: 'premium.month',
        deliver: false,
      });
      expect(await lookUpOrder(orderId)).toEqual([
        {
          originalTransactionId,
          transactionId: originalTransactionId,
          productId: 'premium.month',
          environment: 'Sandbox',
          payload: expect.objectContaining({ originalTransactionId, productId: 'premium.month' }),
        },
      ]);

      await sandbox.renew(originalTransactionId, { deliver: false });
      const renewalOrderId = sandbox.orderIdsOf(originalTransactionId)[1] ?? '';
      const [renewal, ...others] = await lookUpOrder(renewalOrderId);
      expect(others).toEqual([]);
      expect(renewal?.originalTransactionId).toBe(originalTransactionId);
      expect(renewal?.transactionId).not.toBe(originalTransactionId);
    });

    it('names a Production purchase as Production', async () => {
      const { originalTransactionId, orderId } = await sandbox.subscribe({
        productId: 'premium.year',
        environment: 'Production',
        deliver: false,
      });
      expect(await lookUpOrder(orderId)).toEqual([
        {
          originalTransactionId,
          transactionId: originalTransactionId,
          productId: 'premium.year',
          environment: 'Production',
          payload: expect.objectContaining({ originalTransactionId, productId: 'premium.year' }),
        },
      ]);
    });

    it('answers nothing for an order id Apple does not know, or one not shaped like an order id', async () => {
      expect(await lookUpOrder('ZZZZZZZZZZ')).toEqual([]);
      const { orderId } = await sandbox.subscribe({ productId: 'premium.month', deliver: false });
      expect(await lookUpOrder(orderId.toLowerCase())).toEqual([]);
      expect(await lookUpOrder(` ${orderId}`)).toEqual([]);
    });
  });

  describe('deployed, against APPLE_API_BASE_URL', () => {
    let sandbox: AppStoreSandbox;
    let standIn: RecordingStandIn;
    let server: TestServer;
    const log = captureLog();
    beforeAll(async () => {
      sandbox = await startTestAppStoreSandbox({ appAppleId: TEST_APP_APPLE_ID });
      standIn = await startRecordingStandIn(sandbox.baseUrl);
      server = await startTestServer(kind, {
        env: {
          ...appStoreEnv(sandbox),
          ...serverApiKeyEnv(sandbox),
          APPLE_API_BASE_URL: standIn.url,
        },
        logger: log.logger,
      });
    });
    afterAll(async () => {
      await server.close();
      await standIn.close();
      await sandbox.close();
    });

    function lookUpOrder(orderId: string) {
      const api = server.app.appStoreServerApi;
      if (!api) throw new Error('expected order lookups to be on');
      return api.lookUpOrder(orderId);
    }

    it('finds an order at the configured address, signing with the configured key', async () => {
      expect(log.find(LOG_LEVEL.info, /^The App Store Server API is off/)).toEqual([]);
      const { originalTransactionId, orderId } = await sandbox.subscribe({
        productId: 'premium.month',
        deliver: false,
      });
      standIn.paths.length = 0;
      expect(await lookUpOrder(orderId)).toEqual([
        {
          originalTransactionId,
          transactionId: originalTransactionId,
          productId: 'premium.month',
          environment: 'Sandbox',
          payload: expect.objectContaining({ originalTransactionId, productId: 'premium.month' }),
        },
      ]);
      expect(standIn.paths).toEqual([`/inApps/v1/lookup/${orderId}`]);
    });

    it('does not call Apple for an id that is not shaped like an order id', async () => {
      standIn.paths.length = 0;
      for (const notAnOrderId of [
        'mk5tttvwjh',
        'MK5TTT',
        'MK5TTTVWJH123',
        'MK5TTT-WJH',
        '../../x',
        '',
      ])
        expect(await lookUpOrder(notAnOrderId)).toEqual([]);
      expect(standIn.paths).toEqual([]);
      // A well-formed id it does not know is asked, and answers nothing.
      expect(await lookUpOrder('MK5TTTVWJH')).toEqual([]);
      expect(standIn.paths).toEqual(['/inApps/v1/lookup/MK5TTTVWJH']);
    });

    it('answers 502 when the App Store fails or cannot be reached', async () => {
      const { orderId } = await sandbox.subscribe({ productId: 'premium.month', deliver: false });
      standIn.failWith = 503;
      try {
        expect(await failureOf(lookUpOrder(orderId))).toEqual({
          statusCode: 502,
          message: 'The App Store could not be reached; try again',
        });
      } finally {
        standIn.failWith = undefined;
      }
      expect(await lookUpOrder(orderId)).toHaveLength(1);
    });

    it('answers 502 when a transaction of the answer does not verify', async () => {
      const now = Date.now();
      const forged = transactionPayload(monthFrom(now));
      const answers = {
        'signed by a look-alike chain': sandbox.sign(forged, { untrusted: true }),
        "another app's": sandbox.sign({ ...forged, bundleId: 'com.example.other' }),
      };
      for (const [what, signedTransaction] of Object.entries(answers)) {
        standIn.answerWith = { status: 0, signedTransactions: [signedTransaction] };
        try {
          const failure = await failureOf(lookUpOrder('MK5TTTVWJH'));
          expect({ what, ...failure, message: failure.message.split(':')[0] }).toEqual({
            what,
            statusCode: 502,
            message: "The App Store's answer could not be verified",
          });
        } finally {
          standIn.answerWith = undefined;
        }
      }
    });

    it('answers 502 naming the key when the App Store refuses it', async () => {
      const wrongKey = await startTestServer(kind, {
        env: {
          ...appStoreEnv(sandbox),
          ...serverApiKeyEnv(sandbox),
          APPLE_KEY_ID: 'ABCDEFGHIJ',
          APPLE_API_BASE_URL: standIn.url,
        },
      });
      try {
        expect(await failureOf(wrongKey.app.appStoreServerApi?.lookUpOrder('MK5TTTVWJH'))).toEqual({
          statusCode: 502,
          message:
            "The App Store refused this server's API key (APPLE_ISSUER_ID, APPLE_KEY_ID, APPLE_PRIVATE_KEY_PATH)",
        });
      } finally {
        await wrongKey.close();
      }
    });

    it('answers 502 when nothing answers at the address', async () => {
      const unreachable = await startTestServer(kind, {
        env: {
          ...appStoreEnv(sandbox),
          ...serverApiKeyEnv(sandbox),
          APPLE_API_BASE_URL: 'http://127.0.0.1:9',
        },
      });
      try {
        expect(
          await failureOf(unreachable.app.appStoreServerApi?.lookUpOrder('MK5TTTVWJH')),
        ).toEqual({ statusCode: 502, message: 'The App Store could not be reached; try again' });
      } finally {
        await unreachable.close();
      }
    });

    it('is off without a key, and says so once at start', async () => {
      const offLog = captureLog();
      const withoutKey = await startTestServer(kind, {
        env: appStoreEnv(sandbox),
        logger: offLog.logger,
      });
      try {
        expect(withoutKey.app.appStoreServerApi).toBeNull();
        expect(offLog.find(LOG_LEVEL.info, /^The App Store Server API is off/)).toHaveLength(1);
      } finally {
        await withoutKey.close();
      }
    });
  });
});

/** The sandbox's App Store Server API key as a deployment is given it: ids and a .p8 file. */
function serverApiKeyEnv(sandbox: AppStoreSandbox): Record<string, string> {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'apple-key-')), 'AuthKey.p8');
  writeFileSync(file, sandbox.serverApiCredentials.privateKeyPem);
  return {
    APPLE_ISSUER_ID: sandbox.serverApiCredentials.issuerId,
    APPLE_KEY_ID: sandbox.serverApiCredentials.keyId,
    APPLE_PRIVATE_KEY_PATH: file,
  };
}

interface RecordingStandIn {
  url: string;
  /** The path of each call it was asked, in order. */
  paths: string[];
  /** Answers every call with this status instead of passing it on (an outage). */
  failWith: number | undefined;
  /** Answers every call 200 with this body instead of passing it on (a forged answer). */
  answerWith: object | undefined;
  close(): Promise<void>;
}

/** An HTTP stand-in that records each call and passes it on to the sandbox, or fails it. */
async function startRecordingStandIn(upstream: string): Promise<RecordingStandIn> {
  const server: Server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://stand-in');
      standIn.paths.push(url.pathname);
      if (standIn.failWith !== undefined) {
        response.writeHead(standIn.failWith, { 'content-type': 'text/plain' });
        response.end('Service Unavailable');
        return;
      }
      if (standIn.answerWith !== undefined) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(standIn.answerWith));
        return;
      }
      const answer = await fetch(`${upstream}${url.pathname}`, {
        headers: { authorization: request.headers.authorization ?? '' },
      });
      response.writeHead(answer.status, {
        'content-type': answer.headers.get('content-type') ?? 'text/plain',
      });
      response.end(await answer.text());
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const standIn: RecordingStandIn = {
    url: `http://127.0.0.1:${port}`,
    paths: [],
    failWith: undefined,
    answerWith: undefined,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return standIn;
}

/** What a lookup that fails throws: the AppError a caller would answer with. */
async function failureOf(lookup: Promise<unknown> | undefined) {
  try {
    await lookup;
  } catch (error) {
    if (error instanceof AppError) return { statusCode: error.statusCode, message: error.message };
    throw error;
  }
  throw new Error('expected the lookup to fail');
}
