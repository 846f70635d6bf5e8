import { generateKeyPairSync } from 'node:crypto';

import {
  AppStoreServerAPIClient,
  Environment,
  SignedDataVerifier,
} from '@apple/app-store-server-library';
import type { AppStoreSandbox } from '@kegel/sandbox/app-store-sandbox';
import { importPKCS8, type JWTPayload, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startTestAppStoreSandbox, TEST_BUNDLE_ID } from '../support/app-store';

/**
 * The App Store sandbox's App Store Server API, as a server meets it: Look Up Order ID answers
 * the order of each purchase and renewal the way Apple does, and only to a bearer token Apple
 * would take (ES256 by the sandbox's API key, its key id, issuer id, audience, bundle id and an
 * hour at most).
 */
const ORDER_ID = /^[A-Z0-9]{10}$/;

describe("the App Store sandbox's Look Up Order ID", () => {
  let sandbox: AppStoreSandbox;
  let verifier: SignedDataVerifier;

  beforeAll(async () => {
    sandbox = await startTestAppStoreSandbox();
    verifier = new SignedDataVerifier(
      [sandbox.rootCertificate],
      false,
      Environment.SANDBOX,
      TEST_BUNDLE_ID,
    );
  });
  afterAll(() => sandbox.close());

  /** A token as Apple's rules want it, with `changes` to break one rule at a time. */
  async function token(
    changes: {
      kid?: string;
      payload?: JWTPayload;
      lifetimeSeconds?: number;
      issuedSecondsAgo?: number;
      key?: Parameters<SignJWT['sign']>[0];
    } = {},
  ): Promise<string> {
    const { issuerId, keyId, privateKeyPem } = sandbox.serverApiCredentials;
    const issuedAt = Math.floor(Date.now() / 1000) - (changes.issuedSecondsAgo ?? 0);
    return new SignJWT({
      iss: issuerId,
      aud: 'appstoreconnect-v1',
      bid: TEST_BUNDLE_ID,
      iat: issuedAt,
      exp: issuedAt + (changes.lifetimeSeconds ?? 300),
      ...changes.payload,
    })
      .setProtectedHeader({ alg: 'ES256', kid: changes.kid ?? keyId, typ: 'JWT' })
      .sign(changes.key ?? (await importPKCS8(privateKeyPem, 'ES256')));
  }

  function lookUp(orderId: string, bearer?: string) {
    return fetch(`${sandbox.baseUrl}/inApps/v1/lookup/${orderId}`, {
      headers: bearer === undefined ? {} : { authorization: `Bearer ${bearer}` },
    });
  }

  it('gives each purchase and each renewal its own order id', async () => {
    const { originalTransactionId, orderId } = await sandbox.subscribe({
      productId: 'premium.month',
      deliver: false,
    });
    expect(orderId).toMatch(ORDER_ID);
    await sandbox.renew(originalTransactionId, { deliver: false });
    const orderIds = sandbox.orderIdsOf(originalTransactionId);
    expect(orderIds).toHaveLength(2);
    expect(orderIds[0]).toBe(orderId);
    expect(orderIds[1]).toMatch(ORDER_ID);
    expect(orderIds[1]).not.toBe(orderId);
  });

  it("answers a known order's signed transactions, which Apple's verifier takes", async () => {
    const { originalTransactionId, orderId } = await sandbox.subscribe({
      productId: 'premium.month',
      deliver: false,
    });
    await sandbox.renew(originalTransactionId, { deliver: false });
    const renewalOrderId = sandbox.orderIdsOf(originalTransactionId)[1] ?? '';

    const purchase = await lookUp(orderId, await token());
    expect(purchase.status).toBe(200);
    const purchaseBody = (await purchase.json()) as {
      status: number;
      signedTransactions: string[];
    };
    expect(purchaseBody.status).toBe(0);
    expect(purchaseBody.signedTransactions).toHaveLength(1);
    const bought = await verifier.verifyAndDecodeTransaction(
      purchaseBody.signedTransactions[0] ?? '',
    );
    expect(bought.originalTransactionId).toBe(originalTransactionId);
    expect(bought.transactionId).toBe(originalTransactionId);
    expect(bought.productId).toBe('premium.month');

    const renewal = (await (await lookUp(renewalOrderId, await token())).json()) as {
      status: number;
      signedTransactions: string[];
    };
    expect(renewal.status).toBe(0);
    const renewed = await verifier.verifyAndDecodeTransaction(renewal.signedTransactions[0] ?? '');
    expect(renewed.originalTransactionId).toBe(originalTransactionId);
    expect(renewed.transactionId).not.toBe(originalTransactionId);
  });

  it('answers status 1 and no transactions for an order it does not know', async () => {
    const response = await lookUp('ZZZZZZZZZZ', await token());
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 1, signedTransactions: [] });
  });

  it("is what Apple's own client calls, with the sandbox's credentials", async () => {
    const { orderId, originalTransactionId } = await sandbox.subscribe({
      productId: 'premium.month',
      deliver: false,
    });
    const { issuerId, keyId, privateKeyPem } = sandbox.serverApiCredentials;
    expect(privateKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    const client = new AppStoreServerAPIClient(
      privateKeyPem,
      keyId,
      issuerId,
      TEST_BUNDLE_ID,
      Environment.SANDBOX,
    );
    // The library fixes its host per environment; the sandbox is elsewhere.
    (client as unknown as { urlBase: string }).urlBase = sandbox.baseUrl;
    const answer = await client.lookUpOrderId(orderId);
    expect(answer.status).toBe(0);
    const transaction = await verifier.verifyAndDecodeTransaction(
      answer.signedTransactions?.[0] ?? '',
    );
    expect(transaction.originalTransactionId).toBe(originalTransactionId);
  });

  it('answers 401 to a call without a token Apple would take', async () => {
    const { orderId } = await sandbox.subscribe({ productId: 'premium.month', deliver: false });
    const otherKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const refused: Record<string, string | undefined> = {
      'no token': undefined,
      'not a JWT': 'not-a-token',
      'another key id': await token({ kid: 'ABCDEFGHIJ' }),
      'another issuer': await token({ payload: { iss: '00000000-0000-0000-0000-000000000000' } }),
      'another audience': await token({ payload: { aud: 'appstoreconnect-v2' } }),
      'another bundle id': await token({ payload: { bid: 'com.example.other' } }),
      'no bundle id': await token({ payload: { bid: undefined } }),
      expired: await token({ issuedSecondsAgo: 600, lifetimeSeconds: 300 }),
      'longer than an hour': await token({ lifetimeSeconds: 2 * 60 * 60 }),
      'signed by another key': await token({ key: otherKey }),
    };
    for (const [what, bearer] of Object.entries(refused)) {
      const response = await lookUp(orderId, bearer);
      expect({ what, status: response.status }).toEqual({ what, status: 401 });
    }
    // The same call with a good token is answered: the refusals above are the token's doing.
    expect((await lookUp(orderId, await token())).status).toBe(200);
  });

  it('shows each subscription’s order ids on the development page', async () => {
    const { originalTransactionId, orderId } = await sandbox.subscribe({
      productId: 'premium.month',
      deliver: false,
    });
    await sandbox.renew(originalTransactionId, { deliver: false });
    const [, renewalOrderId] = sandbox.orderIdsOf(originalTransactionId);
    const html = await (await fetch(sandbox.devUrl)).text();
    const row = new RegExp(
      `<tr data-original-transaction-id="${originalTransactionId}">.*?</tr>`,
    ).exec(html)?.[0];
    expect(row).toContain(`<td>${orderId}, ${renewalOrderId}</td>`);
  });
});
