import * as z from 'zod/mini';

import { EmailedCodeSchema, IsoDateTimeSchema } from './fields';

/**
 * One sign-in, or one failed attempt, on the member's account (ADR 019): what Account Settings'
 * "Sign-in history" lists and the data export includes.
 */
export const SignInItemSchema = z.object({
  at: IsoDateTimeSchema,
  /** 'password', 'google', 'apple' (and any method added later, such as 'passkey'). */
  method: z.string(),
  /** "Chrome on macOS", from the browser's User-Agent. */
  device: z.string(),
  /** The client's address (an IPv4 address, or an IPv6 /64). */
  address: z.string(),
  outcome: z.enum(['success', 'failure']),
});
export type SignInItem = z.infer<typeof SignInItemSchema>;

/** The member's latest 20 sign-ins and failed attempts, newest first. */
export const SignInsResponseSchema = z.object({ data: z.array(SignInItemSchema) });
export type SignInsResponse = z.infer<typeof SignInsResponseSchema>;

/** The "This wasn't me" link of the notice of a sign-in from a new device or network. */
export const ReportSignInRequestSchema = z.object({ code: EmailedCodeSchema });
export type ReportSignInRequest = z.infer<typeof ReportSignInRequestSchema>;
