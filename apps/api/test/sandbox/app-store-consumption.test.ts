import {
  APIException,
  AppStoreServerAPIClient,
  type ConsumptionRequest,
  Environment,
} from '@apple/app-store-server-library';
import type { AppStoreSandbox } from '@kegel/sandbox/app-store-sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { claimsOf, startTestAppStoreSandbox, TEST_BUNDLE_ID } from '../support/app-store';

/**
 * The App Store sandbox's side of refund requests, as a server meets it through Apple's own
 * client: CONSUMPTION_REQUEST signed like any notification, and Send Consumption Information
 * (V2) answered 202 only to Apple's bearer token and a body Apple would take, each kept.
 */
describe("the App Store sandbox's Send Consumption Information", () => {
  let sandbox: AppStoreSandbox;
  let client: AppStoreServerAPIClient;
  const consented: ConsumptionRequest = {
    customerConsented: true,
    deliveryStatus: 'DELIVERED',
    sampleContentProvided: true,
  };

  beforeAll(async () => {
    sandbox = await startTestAppStoreSandbox();
    const { issuerId, keyId, privateKeyPem } = sandbox.serverApiCredentials;
    client = new AppStoreServerAPIClient(
      privateKeyPem,
      keyId,
      issuerId,
      TEST_BUNDLE_ID,
      Environment.SANDBOX,
    );
    (client as unknown as { urlBase: string }).urlBase = sandbox.baseUrl;
  });
  afterAll(() => sandbox.close());

  async function subscription(): Promise<string> {
    return (await sandbox.subscribe({ productId: 'premium.month', deliver: false }))
      .originalTransactionId;
  }

  async function refusal(work: Promise<unknown>): Promise<{ status: number; code?: number }> {
    const error = await work.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    if (!(error instanceof APIException))
      throw new Error(`expected a refusal, got ${String(error)}`);
    return {
      status: error.httpStatusCode,
      ...(error.apiError ? { code: Number(error.apiError) } : {}),
    };
  }

  it('signs a CONSUMPTION_REQUEST about the latest transaction, with the customer’s reason', async () => {
    const id = await subscription();
    const claims = claimsOf(
      await sandbox.requestConsumption(id, { deliver: false, reason: 'LEGAL' }),
    );
    expect(claims).toMatchObject({
      notificationType: 'CONSUMPTION_REQUEST',
      data: { consumptionRequestReason: 'LEGAL', environment: 'Sandbox', bundleId: TEST_BUNDLE_ID },
    });
    const data = claims.data as { signedTransactionInfo: string };
    expect(claimsOf(data.signedTransactionInfo)).toMatchObject({ transactionId: id });
  });

  it('accepts a consented answer (202) and keeps it', async () => {
    const id = await subscription();
    await client.sendConsumptionInformation(id, { ...consented, refundPreference: 'DECLINE' });
    expect(sandbox.consumptionReports().filter((report) => report.transactionId === id)).toEqual([
      {
        transactionId: id,
        body: { ...consented, refundPreference: 'DECLINE' },
        receivedAt: expect.any(Number) as number,
      },
    ]);
  });

  it('refuses what Apple refuses, and keeps none of it', async () => {
    const id = await subscription();
    const before = sandbox.consumptionReports().length;
    const send = (body: object) =>
      refusal(client.sendConsumptionInformation(id, body as ConsumptionRequest));
    expect(await send({ ...consented, customerConsented: false })).toEqual({
      status: 400,
      code: 4_000_035,
    });
    expect(await send({ customerConsented: true, sampleContentProvided: true })).toEqual({
      status: 400,
      code: 4_000_036,
    });
    expect(await send({ ...consented, deliveryStatus: 'SENT' })).toEqual({
      status: 400,
      code: 4_000_036,
    });
    expect(await send({ customerConsented: true, deliveryStatus: 'DELIVERED' })).toEqual({
      status: 400,
      code: 4_000_041,
    });
    expect((await send({ ...consented, refundPreference: 'MAYBE' })).status).toBe(400);
    // Apple works out an auto-renewable subscription's consumption itself.
    expect((await send({ ...consented, consumptionPercentage: 50_000 })).status).toBe(400);
    expect(
      await refusal(client.sendConsumptionInformation('2999999999999999999', consented)),
    ).toEqual({ status: 404, code: 4_040_010 });
    expect(sandbox.consumptionReports()).toHaveLength(before);
  });

  it('answers 401 to a call without a token Apple would take', async () => {
    const id = await subscription();
    const response = await fetch(`${sandbox.baseUrl}/inApps/v2/transactions/consumption/${id}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: 'Bearer nope' },
      body: JSON.stringify(consented),
    });
    expect(response.status).toBe(401);
  });

  it('fails the next calls with 500 when told to, then accepts again', async () => {
    const id = await subscription();
    sandbox.failNextConsumptionCalls(2);
    expect((await refusal(client.sendConsumptionInformation(id, consented))).status).toBe(500);
    expect((await refusal(client.sendConsumptionInformation(id, consented))).status).toBe(500);
    await client.sendConsumptionInformation(id, consented);
    expect(
      sandbox.consumptionReports().filter((report) => report.transactionId === id),
    ).toHaveLength(1);
  });

  it('has a button on its development page that asks Apple for a refund', async () => {
    const id = await subscription();
    const page = await (await fetch(`${sandbox.baseUrl}/dev`)).text();
    expect(page).toContain(`action="/dev/subscriptions/${id}/consumption-request"`);
    expect(page).toMatch(/aria-label="Ask Apple for a refund 1 Month subscription of [^"]+"/);
    const pressed = await fetch(`${sandbox.baseUrl}/dev/subscriptions/${id}/consumption-request`, {
      method: 'POST',
      redirect: 'manual',
    });
    expect(pressed.status).toBe(303);
  });
});
