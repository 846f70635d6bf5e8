// Who may call the support desk (ADR 020), for every /ops call of the contract: a visitor gets
// 401, a member 403, an operator 403 until his session has proved a second factor within 12
// hours, and a refused call writes nothing (no audit row).
import { type EndpointName, endpoints, supportDeskMessages } from '@kegel/contract';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

import { registerAndLogin } from '../support/accounts';
import { callApi, makeOperator, OPERATOR_PASSWORD, operatorCommand } from '../support/operators';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';
import { turnOnTwoStep, useMovableClock } from '../support/two-step';

type OpsCall = { method: 'GET' | 'POST' | 'DELETE'; url: string; body?: unknown };

/** A valid request of each /ops call (ids are a real member's), so only the guard can refuse it. */
const VALID_REQUESTS: Record<string, (memberId: string) => OpsCall> = {
  searchMembers: () => ({ method: 'GET', url: '/ops/members?query=someone' }),
  getMember: (id) => ({ method: 'GET', url: `/ops/members/${id}` }),
  getMemberTimeline: (id) => ({ method: 'GET', url: `/ops/members/${id}/timeline` }),
  viewAsMember: (id) => ({ method: 'GET', url: `/ops/members/${id}/view` }),
  grantDays: (id) => ({
    method: 'POST',
    url: `/ops/members/${id}/grants`,
    body: { days: 1, reason: 'service outage', idempotencyKey: 'guard-test-key' },
  }),
  removeGrant: (id) => ({ method: 'DELETE', url: `/ops/grants/${id}`, body: { reason: 'typo' } }),
  refundPurchase: (id) => ({
    method: 'POST',
    url: `/ops/purchases/${id}/refund`,
    body: { reason: 'bought twice' },
  }),
  revokeMemberSessions: (id) => ({
    method: 'POST',
    url: `/ops/members/${id}/sessions/revoke`,
    body: { reason: 'lost phone' },
  }),
  resendMemberMail: (id) => ({
    method: 'POST',
    url: `/ops/members/${id}/mails`,
    body: { mail: 'verification' },
  }),
  addMemberNote: (id) => ({
    method: 'POST',
    url: `/ops/members/${id}/notes`,
    body: { text: 'called about his renewal' },
  }),
  listAudit: () => ({ method: 'GET', url: '/ops/audit' }),
};

const OPS_ENDPOINTS = (Object.keys(endpoints) as EndpointName[]).filter((name) =>
  endpoints[name].path.startsWith('/ops/'),
);

/** Every /ops call: the guard stands before each. */
const SERVED_OPS_ENDPOINTS: readonly EndpointName[] = OPS_ENDPOINTS;

describe('the table of /ops calls', () => {
  it('has a valid request for every /ops call of the contract, and serves only calls of it', () => {
    expect(Object.keys(VALID_REQUESTS).sort()).toEqual([...OPS_ENDPOINTS].sort());
    for (const name of SERVED_OPS_ENDPOINTS) expect(OPS_ENDPOINTS).toContain(name);
  });
});

describe.each(testDatabaseKinds)('the support desk guard on $name', (kind) => {
  let server: TestServer;
  let memberId: string;
  beforeAll(async () => {
    server = await startTestServer(kind);
    const member = await registerAndLogin(server.app, uniqueEmail('guarded'), 'correct horse');
    const profile = await callApi(server.app, 'GET', '/users/profile', member.accessToken);
    memberId = profile.json<{ id: string }>().id;
  });
  afterAll(() => server.close());
  beforeEach(() => useMovableClock());
  afterEach(() => vi.useRealTimers());

  function call(name: EndpointName, accessToken?: string) {
    const request = VALID_REQUESTS[name]!(memberId);
    return callApi(server.app, request.method, request.url, accessToken, request.body);
  }

  async function auditRows(): Promise<number> {
    const { count } = await server.app.database.db
      .selectFrom('auditEvents')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .executeTakeFirstOrThrow();
    return Number(count);
  }

  /** Every served call refused with `status` and `message`, and not one audit row written. */
  async function expectRefused(accessToken: string | undefined, status: number, message?: string) {
    const before = await auditRows();
    for (const name of SERVED_OPS_ENDPOINTS) {
      const response = await call(name, accessToken);
      expect(response.statusCode, `${name}: ${response.body}`).toBe(status);
      if (message) expect(response.json<{ message: string }>().message, name).toBe(message);
    }
    expect(await auditRows()).toBe(before);
  }

  it('refuses a visitor with 401', async () => {
    await expectRefused(undefined, 401);
  });

  it('refuses a member who is not an operator with 403', async () => {
    const member = await registerAndLogin(server.app, uniqueEmail('member'), 'correct horse');
    await expectRefused(member.accessToken, 403, supportDeskMessages.notAnOperator);
  });

  it('refuses an operator with no second factor at all', async () => {
    const email = uniqueEmail('no-factor');
    const { accessToken } = await registerAndLogin(server.app, email, OPERATOR_PASSWORD);
    await operatorCommand(server.app, ['grant', email, '--role', 'admin']);
    await expectRefused(accessToken, 403, supportDeskMessages.noSecondFactor);
  });

  it('refuses an operator whose session has not proved his second factor', async () => {
    // Signed in before two-step sign-in was on: the session never proved it.
    const email = uniqueEmail('unproved');
    const { accessToken } = await registerAndLogin(server.app, email, OPERATOR_PASSWORD);
    await turnOnTwoStep(server.app, accessToken);
    await operatorCommand(server.app, ['grant', email, '--role', 'support']);
    await expectRefused(accessToken, 403, supportDeskMessages.confirmSecondFactor);
  });

  it('serves an operator for 12 hours after his second factor, then refuses him (tokens renewed)', async () => {
    const operator = await makeOperator(server.app, 'support', 'twelve-hours');
    for (const name of SERVED_OPS_ENDPOINTS) {
      const response = await call(name, operator.accessToken);
      // Past the guard: answered by the call itself (a support operator's admin call is refused
      // by its own rule; the writes' ids here are the member's, not a grant's or a purchase's).
      const passed =
        response.statusCode < 400 ||
        response.statusCode === 404 ||
        response.json<{ message: string }>().message === supportDeskMessages.adminOnly;
      expect(passed, `${name}: ${response.statusCode} ${response.body}`).toBe(true);
    }
    // An access token lives 15 minutes: 12 hours on, the session's tokens are renewed first.
    vi.setSystemTime(Date.now() + 12 * 3600_000 + 1000);
    const renewed = await callApi(server.app, 'POST', '/auth/refresh', undefined, {
      refreshToken: operator.refreshToken,
    });
    expect(renewed.statusCode, renewed.body).toBe(200);
    await expectRefused(
      renewed.json<{ accessToken: string }>().accessToken,
      403,
      supportDeskMessages.confirmSecondFactor,
    );
  });
});
