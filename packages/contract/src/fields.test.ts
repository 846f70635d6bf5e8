import { describe, expect, it } from 'vitest';

import {
  ChangePasswordFormSchema,
  LoginRequestSchema,
  RegisterFormSchema,
  RegisterRequestSchema,
  StartCheckoutRequestSchema,
} from './index';

function messagesOf(result: {
  success: boolean;
  error?: { issues: Array<{ message: string; path: PropertyKey[] }> };
}) {
  return (result.error?.issues ?? []).map((issue) => ({
    path: issue.path.join('.'),
    message: issue.message,
  }));
}

describe('field messages', () => {
  it("says 'Email is required' for a missing or blank email", () => {
    expect(messagesOf(LoginRequestSchema.safeParse({ password: 'x' }))).toEqual([
      { path: 'email', message: 'Email is required' },
    ]);
    expect(messagesOf(LoginRequestSchema.safeParse({ email: '   ', password: 'x' }))).toEqual([
      { path: 'email', message: 'Email is required' },
    ]);
  });

  it("says 'Invalid email' for something that is not an address", () => {
    expect(
      messagesOf(LoginRequestSchema.safeParse({ email: 'not-an-email', password: 'x' })),
    ).toEqual([{ path: 'email', message: 'Invalid email' }]);
  });

  it("says 'Invalid email' once for a local part over 64 characters, and takes 64", () => {
    const localPart = (length: number) => `${'a'.repeat(length - 1)}b`;
    expect(
      messagesOf(
        LoginRequestSchema.safeParse({ email: `${localPart(65)}@example.com`, password: 'x' }),
      ),
    ).toEqual([{ path: 'email', message: 'Invalid email' }]);
    expect(
      messagesOf(
        StartCheckoutRequestSchema.safeParse({ planId: 'p', email: `${localPart(70)}@x` }),
      ),
    ).toEqual([{ path: 'email', message: 'Invalid email' }]);
    expect(
      LoginRequestSchema.safeParse({ email: `${localPart(64)}@example.com`, password: 'x' })
        .success,
    ).toBe(true);
  });

  it('trims the email and keeps plus-addresses as typed', () => {
    const parsed = LoginRequestSchema.parse({ email: '  John+Kegel@Example.com ', password: 'x' });
    expect(parsed.email).toBe('John+Kegel@Example.com');
  });

  it('refuses CR and LF inside an email (header injection)', () => {
    expect(
      RegisterRequestSchema.safeParse({ email: 'a@b.co\r\nBcc: x@y.z', password: 'long enough' })
        .success,
    ).toBe(false);
  });

  it("says 'Password is too short' under 8 characters and keeps any characters above", () => {
    expect(
      messagesOf(RegisterRequestSchema.safeParse({ email: 'a@b.co', password: '1234567' })),
    ).toEqual([{ path: 'password', message: 'Password is too short' }]);
    const unicode = '  пароль ü 🔒  ';
    expect(RegisterRequestSchema.parse({ email: 'a@b.co', password: unicode }).password).toBe(
      unicode,
    );
  });

  it("puts 'Passwords do not match' on the confirmation field, on every form", () => {
    const result = RegisterFormSchema.safeParse({
      email: 'a@b.co',
      password: '12345678',
      confirmPassword: '12345679',
    });
    expect(messagesOf(result)).toEqual([
      { path: 'confirmPassword', message: 'Passwords do not match' },
    ]);
    const change = ChangePasswordFormSchema.safeParse({
      oldPassword: 'old',
      newPassword: '12345678',
      confirmPassword: 'x',
    });
    expect(messagesOf(change)).toEqual([
      { path: 'confirmPassword', message: 'Passwords do not match' },
    ]);
  });

  it('does not send the confirmation: the request schema drops it', () => {
    const form = { email: 'a@b.co', password: '12345678', confirmPassword: '12345678' };
    expect(RegisterRequestSchema.parse(form)).toEqual({ email: 'a@b.co', password: '12345678' });
  });

  it("says 'Plan is required' without a plan", () => {
    expect(messagesOf(StartCheckoutRequestSchema.safeParse({ email: 'a@b.co' }))).toEqual([
      { path: 'planId', message: 'Plan is required' },
    ]);
    expect(
      messagesOf(StartCheckoutRequestSchema.safeParse({ planId: '', email: 'a@b.co' })),
    ).toEqual([{ path: 'planId', message: 'Plan is required' }]);
  });
});
