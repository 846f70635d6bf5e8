// Adversarial review of what the support desk reads in and shows (ADR 020): search terms built to
// enumerate or break the query, query strings and cursors no page of ours makes, notes full of
// markup and control characters, and secrets the member's story must never carry. Each test
// fails if its attack works.
import type { AuditResponse, MemberMatch, TimelineResponse } from '@kegel/contract';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

import { login, post } from '../support/accounts';
import { deskCall, makeMember, MEMBER_PASSWORD } from '../support/desk-actions';
import { makeOperator, type TestOperator } from '../support/operators';
import { linkIn, startTestServer, type TestServer } from '../support/test-app';
import { testDatabaseKinds } from '../support/test-databases';
import { turnOnTwoStep, useMovableClock } from '../support/two-step';

describe.each(testDatabaseKinds)('review: support desk input under attack on $name', (kind) => {
  let server: TestServer;
  let support: TestOperator;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());
  beforeEach(async () => {
    useMovableClock();
    support ??= await makeOperator(server.app, 'support', 'input-support');
  });
  afterEach(() => vi.useRealTimers());

  const get = (url: string) => deskCall(server.app, 'GET', url, support.accessToken);
  const search = (rawQuery: string) => get(`/ops/members?${rawQuery}`);
  const matches = (response: { json<T>(): T }) =>
    response.json<{ data: MemberMatch[] }>().data.map((match) => match.email);

  it('takes wildcards and SQL in a search term as plain text: nothing to enumerate', async () => {
    await makeMember(server.app, 'enumerable');
    for (const term of [
      '%',
      '_',
      '%%',
      '%@%',
      '\\',
      '\\%',
      '*',
      '.*',
      "' or '1'='1",
      "'; drop table users; --",
      '") or true --',
      '@',
      'e%le',
      '[a-z]',
    ]) {
      const response = await search(`query=${encodeURIComponent(term)}`);
      expect(response.statusCode, `${term}: ${response.body}`).toBe(200);
      expect(matches(response), term).toEqual([]);
    }
    expect((await get('/ops/members?query=enumerable')).statusCode).toBe(200);
  });

  it('answers 400, never 500, to an empty, blank, repeated, overlong or NUL-bearing search term', async () => {
    /** Each term not answered 400, with what it was answered. */
    const wronglyAnswered: string[] = [];
    for (const rawQuery of [
      '',
      'query=',
      'query=%20%20',
      'query=a&query=b',
      `query=${'a'.repeat(255)}`,
      `query=${'a'.repeat(20_000)}`,
      'query=%00',
      'query=abc%00def',
      'query[]=a',
      'query[toString]=a',
    ]) {
      const response = await search(rawQuery);
      if (response.statusCode !== 400)
        wronglyAnswered.push(`${rawQuery.slice(0, 40)}: ${response.statusCode}`);
    }
    expect(wronglyAnswered).toEqual([]);
  });

  it('finds no deleted account, by its email, its id or its email prefix', async () => {
    const member = await makeMember(server.app, 'deleted-searched');
    expect(matches(await search(`query=${encodeURIComponent(member.email)}`))).toEqual([
      member.email,
    ]);
    const { accessToken } = await login(server.app, member.email, MEMBER_PASSWORD);
    const deleted = await post(
      server.app,
      '/users/delete',
      { password: MEMBER_PASSWORD },
      accessToken,
    );
    expect(deleted.statusCode, deleted.body).toBe(200);
    for (const term of [member.email, member.userId, member.email.split('@')[0]!]) {
      const response = await search(`query=${encodeURIComponent(term)}`);
      expect(response.statusCode).toBe(200);
      expect(matches(response), term).toEqual([]);
    }
  });

  it('answers 400, never 500, to an audit filter with a NUL, a bad date or a forged cursor', async () => {
    const wronglyAnswered: string[] = [];
    for (const rawQuery of [
      'member=%00',
      'operator=a%00b',
      'action=note.add%00',
      'from=yesterday',
      'to=2026-13-45T00:00:00Z',
      'from=0000-01-01T00:00:00Z',
      'from=0001-01-01T00:00:00Z',
      'to=9999-12-31T23:59:59Z',
      'cursor=-1',
      'cursor=99999999999999999999',
      'cursor=1%00',
      `member=${'a'.repeat(300)}`,
    ]) {
      const response = await get(`/ops/audit?${rawQuery}`);
      // A far date is a real filter (200) or refused (400), never a failed query.
      const isFarDate = rawQuery.startsWith('from=0') || rawQuery.startsWith('to=9');
      if (isFarDate ? response.statusCode >= 500 : response.statusCode !== 400)
        wronglyAnswered.push(`${rawQuery.slice(0, 40)}: ${response.statusCode}`);
    }
    expect(wronglyAnswered).toEqual([]);
  });

  it('answers 400, never 500, to a timeline cursor this server did not make', async () => {
    const member = await makeMember(server.app, 'forged-cursor');
    const wronglyAnswered: string[] = [];
    const forged = (value: unknown) =>
      Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
    for (const cursor of [
      'not-base64-json',
      forged({ at: '2026-01-01T00:00:00Z', id: 'x' }),
      forged(['2026-01-01T00:00:00Z', 42]),
      // Dates that JavaScript parses and PostgreSQL's timestamptz does not (an instant both
      // read is only a position, harmless).
      forged(['2026', 'purchase:x']),
      forged(['+275760-09-13T00:00:00.000Z', 'purchase:x']),
      forged(['2026-01-01T00:00:00Z', 'x\u0000y']),
      'a'.repeat(201),
    ]) {
      const response = await get(
        `/ops/members/${member.userId}/timeline?cursor=${encodeURIComponent(cursor)}`,
      );
      if (response.statusCode !== 400) {
        const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
        wronglyAnswered.push(`${decoded.slice(0, 60)}: ${response.statusCode}`);
      }
    }
    expect(wronglyAnswered).toEqual([]);
  });

  it('keeps markup, control and direction characters in a note as the very text written, answered as JSON', async () => {
    const member = await makeMember(server.app, 'markup-note');
    const text =
      '<img src=x onerror=alert(1)><script>alert("x")</script> \u202Eevil\u202C \u0007\u001B[31m {{7*7}} ${1+1}';
    const added = await deskCall(
      server.app,
      'POST',
      `/ops/members/${member.userId}/notes`,
      support.accessToken,
      { text },
    );
    expect(added.statusCode, added.body).toBe(201);
    const timeline = await get(`/ops/members/${member.userId}/timeline`);
    expect(timeline.headers['content-type']).toMatch(/^application\/json/);
    const item = timeline.json<TimelineResponse>().data.find((entry) => entry.kind === 'note');
    expect(item?.detail).toBe(text.trim());
    const audit = await get(`/ops/audit?member=${member.userId}`);
    expect(audit.headers['content-type']).toMatch(/^application\/json/);
    const noted = audit.json<AuditResponse>().data.find((row) => row.action === 'note.add');
    expect(noted?.reason).toBe(text.trim());
    // Too long, or a body far too large: refused, never a 500.
    const long = await deskCall(
      server.app,
      'POST',
      `/ops/members/${member.userId}/notes`,
      support.accessToken,
      { text: 'x'.repeat(2001) },
    );
    expect(long.statusCode).toBe(400);
    const huge = await deskCall(
      server.app,
      'POST',
      `/ops/members/${member.userId}/notes`,
      support.accessToken,
      { text: 'x'.repeat(5_000_000) },
    );
    expect([400, 413]).toContain(huge.statusCode);
  });

  it("escapes markup an operator puts in a reason in the member's mail, and keeps it out of its headers", async () => {
    const member = await makeMember(server.app, 'markup-mail');
    const reason =
      'outage <a href="https://evil.example/login">sign in here</a>\r\nBcc: x@evil.example';
    const granted = await deskCall(
      server.app,
      'POST',
      `/ops/members/${member.userId}/grants`,
      support.accessToken,
      { days: 2, reason, idempotencyKey: 'markup-mail-key' },
    );
    expect(granted.statusCode, granted.body).toBe(201);
    const mail = await server.inbox.waitFor(
      (email) => email.to.includes(member.email) && email.subject.includes('of premium'),
    );
    expect(mail.html).not.toContain('<a href="https://evil.example');
    expect(mail.html).toContain('&lt;a href=');
    expect(mail.to.join()).not.toContain('evil.example');
    expect(mail.subject).not.toContain('evil');
  });

  it("shows no secret in a member's story, timeline, view or audit rows: no code, TOTP secret, recovery code, token or password hash", async () => {
    const member = await makeMember(server.app, 'secrets');
    const { secret, recoveryCodes } = await turnOnTwoStep(server.app, member.accessToken);
    const resent = await deskCall(
      server.app,
      'POST',
      `/ops/members/${member.userId}/mails`,
      support.accessToken,
      { mail: 'password-reset' },
    );
    expect(resent.statusCode, resent.body).toBe(200);
    const mail = await server.inbox.waitFor(
      (email) => email.to.includes(member.email) && email.subject.includes('Reset your'),
    );
    const code = linkIn(mail).searchParams.get('code')!;
    const { passwordHash } = await server.app.database.db
      .selectFrom('users')
      .select('passwordHash')
      .where('id', '=', member.userId)
      .executeTakeFirstOrThrow();
    const sealed = await server.app.database.db
      .selectFrom('twoStepAuthenticators')
      .select('sealedSecret')
      .where('userId', '=', member.userId)
      .executeTakeFirstOrThrow();

    const answers = [
      await get(`/ops/members/${member.userId}`),
      await get(`/ops/members/${member.userId}/timeline`),
      await get(`/ops/members/${member.userId}/view`),
      await get(`/ops/audit?member=${member.userId}`),
    ];
    const secrets = {
      code,
      secret,
      sealedSecret: sealed.sealedSecret,
      refreshToken: member.refreshToken,
      accessToken: member.accessToken,
      passwordHash: passwordHash!,
      link: linkIn(mail).href,
      ...Object.fromEntries(recoveryCodes.map((recovery, n) => [`recovery ${n}`, recovery])),
    };
    for (const answer of answers) {
      expect(answer.statusCode, answer.body).toBe(200);
      for (const [name, value] of Object.entries(secrets)) {
        expect(answer.body.includes(value), `${name} in ${answer.body.slice(0, 200)}`).toBe(false);
      }
    }
  });
});
