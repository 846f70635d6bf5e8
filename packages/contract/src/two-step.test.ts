import { describe, expect, it } from 'vitest';

import { twoStepMessages } from './messages';

import {
  isAuthenticatorCode,
  MfaVerifyRequestSchema,
  RecoveryCodeSchema,
  TwoStepCodeSchema,
  TwoStepDisableRequestSchema,
} from './two-step';

describe('the codes of two-step sign-in', () => {
  it('reads an app code typed with a space or a dash as its six digits', () => {
    expect(TwoStepCodeSchema.parse(' 123 456 ')).toBe('123456');
    expect(TwoStepCodeSchema.parse('123-456')).toBe('123456');
  });

  it('refuses what is not six digits, with the field message', () => {
    for (const typed of ['12345', '1234567', 'abcdef']) {
      const result = TwoStepCodeSchema.safeParse(typed);
      expect(result.success).toBe(false);
      expect(result.error?.issues[0]?.message).toBe(twoStepMessages.codeMalformed);
    }
    expect(TwoStepCodeSchema.safeParse('').error?.issues[0]?.message).toBe(
      twoStepMessages.codeRequired,
    );
  });

  it('reads a recovery code without case, spaces or dashes', () => {
    expect(RecoveryCodeSchema.parse(' ABCD-efgh jkmn-PQRS ')).toBe('abcdefghjkmnpqrs');
  });

  it('takes exactly one of a code and a recovery code', () => {
    expect(TwoStepDisableRequestSchema.safeParse({ code: '123456' }).success).toBe(true);
    expect(TwoStepDisableRequestSchema.safeParse({ recoveryCode: 'abcd' }).success).toBe(true);
    expect(TwoStepDisableRequestSchema.safeParse({}).success).toBe(false);
    expect(
      MfaVerifyRequestSchema.safeParse({ mfaToken: 't', code: '123456', recoveryCode: 'abcd' })
        .success,
    ).toBe(false);
  });

  it('tells an app code from a recovery code in the one field of a change', () => {
    expect(isAuthenticatorCode('123 456')).toBe(true);
    expect(isAuthenticatorCode('abcd-efgh-jkmn-pqrs')).toBe(false);
  });
});
