import * as z from 'zod/mini';

import { CurrentPasswordSchema, EmailedCodeSchema, EmailSchema, NewPasswordSchema } from './fields';
import { fieldMessages } from './field-messages';
import { MfaRequiredSchema, SecondFactorCodeSchema } from './two-step';

/** Sign-in, login and refresh responses: two JWTs, whose `exp` the web app reads. */
export const TokenPairSchema = z.object({
  accessToken: z.string(),
  refreshToken: z.string(),
});
export type TokenPair = z.infer<typeof TokenPairSchema>;

/** What a sign-in answers: the tokens, or (two-step sign-in on) the call for a code. */
export const SignInResponseSchema = z.union([TokenPairSchema, MfaRequiredSchema]);
export type SignInResponse = z.infer<typeof SignInResponseSchema>;

/** The account a registration made; sign in afterwards to get tokens. */
export const RegisteredUserSchema = z.object({ id: z.string(), email: z.string() });
export type RegisteredUser = z.infer<typeof RegisteredUserSchema>;

export const LoginRequestSchema = z.object({
  email: EmailSchema,
  password: CurrentPasswordSchema,
});
export type LoginRequest = z.infer<typeof LoginRequestSchema>;

export const RegisterRequestSchema = z.object({
  email: EmailSchema,
  password: NewPasswordSchema,
});
export type RegisterRequest = z.infer<typeof RegisterRequestSchema>;

/** The register form: the confirmation is checked here and never sent. */
export const RegisterFormSchema = z
  .extend(RegisterRequestSchema, { confirmPassword: z.string() })
  .check(
    z.refine((form) => form.password === form.confirmPassword, {
      message: fieldMessages.passwordsDoNotMatch,
      path: ['confirmPassword'],
    }),
  );
export type RegisterForm = z.infer<typeof RegisterFormSchema>;

export const RefreshRequestSchema = z.object({
  refreshToken: z.string().check(z.minLength(1), z.maxLength(512)),
});
export type RefreshRequest = z.infer<typeof RefreshRequestSchema>;

export const LogoutRequestSchema = z.object({
  refreshToken: z.string().check(z.minLength(1), z.maxLength(512)),
});
export type LogoutRequest = z.infer<typeof LogoutRequestSchema>;

export const ResetPasswordRequestSchema = z.object({ email: EmailSchema });
export type ResetPasswordRequest = z.infer<typeof ResetPasswordRequestSchema>;

export const ResetPasswordConfirmRequestSchema = z.object({
  email: EmailSchema,
  code: EmailedCodeSchema,
  newPassword: NewPasswordSchema,
});
export type ResetPasswordConfirmRequest = z.infer<typeof ResetPasswordConfirmRequestSchema>;

/** The recover form (new password and repeat); email and code come from the link. */
export const RecoverPasswordFormSchema = z
  .object({ newPassword: NewPasswordSchema, confirmPassword: z.string() })
  .check(
    z.refine((form) => form.newPassword === form.confirmPassword, {
      message: fieldMessages.passwordsDoNotMatch,
      path: ['confirmPassword'],
    }),
  );
export type RecoverPasswordForm = z.infer<typeof RecoverPasswordFormSchema>;

export const ChangePasswordRequestSchema = z.object({
  oldPassword: CurrentPasswordSchema,
  newPassword: NewPasswordSchema,
  /** Needed while two-step sign-in is on: a code from the app, or a recovery code. */
  code: z.optional(SecondFactorCodeSchema),
});
export type ChangePasswordRequest = z.infer<typeof ChangePasswordRequestSchema>;

export const ChangePasswordFormSchema = z
  .extend(ChangePasswordRequestSchema, { confirmPassword: z.string() })
  .check(
    z.refine((form) => form.newPassword === form.confirmPassword, {
      message: fieldMessages.passwordsDoNotMatch,
      path: ['confirmPassword'],
    }),
  );
export type ChangePasswordForm = z.infer<typeof ChangePasswordFormSchema>;

export const ChangeEmailRequestSchema = z.object({
  newEmail: EmailSchema,
  password: CurrentPasswordSchema,
  /** Needed while two-step sign-in is on: a code from the app, or a recovery code. */
  code: z.optional(SecondFactorCodeSchema),
});
export type ChangeEmailRequest = z.infer<typeof ChangeEmailRequestSchema>;

export const VerifyEmailRequestSchema = z.object({
  code: EmailedCodeSchema,
  newEmail: EmailSchema,
});
export type VerifyEmailRequest = z.infer<typeof VerifyEmailRequestSchema>;

/** The "this wasn't me" link of the notice sent to the old address of an email change. */
export const CancelEmailChangeRequestSchema = z.object({ code: EmailedCodeSchema });
export type CancelEmailChangeRequest = z.infer<typeof CancelEmailChangeRequestSchema>;

export const GoogleVerifyTokenRequestSchema = z.object({
  code: z.string().check(z.minLength(1, fieldMessages.required), z.maxLength(2048)),
  clientType: z.literal('WEB'),
});
export type GoogleVerifyTokenRequest = z.infer<typeof GoogleVerifyTokenRequestSchema>;

/** The identity token must carry a nonce from `POST /auth/oauth/apple/nonce` (single use). */
export const AppleVerifyTokenRequestSchema = z.object({
  token: z.string().check(z.minLength(1, fieldMessages.required), z.maxLength(8192)),
});

export const SignInNonceResponseSchema = z.object({ nonce: z.string() });
export type SignInNonceResponse = z.infer<typeof SignInNonceResponseSchema>;
export type AppleVerifyTokenRequest = z.infer<typeof AppleVerifyTokenRequestSchema>;

/**
 * What the web app needs to start Google and Apple sign-in: the public client ids and the
 * scripts to load (Google Identity Services and Sign in with Apple JS, or the local identity
 * sandbox's stand-ins). A provider that is switched off is null.
 */
export const SocialProvidersResponseSchema = z.object({
  google: z.nullable(z.object({ clientId: z.string(), scriptUrl: z.url() })),
  apple: z.nullable(z.object({ clientId: z.string(), scriptUrl: z.url(), redirectUri: z.url() })),
});
export type SocialProvidersResponse = z.infer<typeof SocialProvidersResponseSchema>;
