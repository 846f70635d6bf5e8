// The schemas of the sign-in pages' forms, imported on the visitor's first touch rather than with
// the page: these pages are drawn before the app runs, and building zod's schemas was the largest
// task of /auth/login's start (shared/forms/lazy-schema.ts, issue 30).
import type { FieldValues } from 'react-hook-form';
import type * as z from 'zod/v4/core';

import { LazySchema } from '../../shared/forms/lazy-schema';
import type * as contractSchemas from './contract-schemas';

type ContractSchemas = typeof contractSchemas;

/** One of contract-schemas.ts's schemas, imported with the others on the first touch. */
function lazySchema<Schema extends z.$ZodType<FieldValues, FieldValues>>(
  pick: (schemas: ContractSchemas) => Schema,
): LazySchema<Schema> {
  return new LazySchema<Schema>(() => import('./contract-schemas').then(pick));
}

export const loginFormSchema = lazySchema((schemas) => schemas.LoginRequestSchema);
export const registerFormSchema = lazySchema((schemas) => schemas.RegisterFormSchema);
export const resetFormSchema = lazySchema((schemas) => schemas.ResetPasswordRequestSchema);
export const recoverFormSchema = lazySchema((schemas) => schemas.RecoverPasswordFormSchema);
export const appCodeFormSchema = lazySchema((schemas) => schemas.TwoStepCodeFormSchema);
export const recoveryCodeFormSchema = lazySchema((schemas) => schemas.RecoveryCodeFormSchema);
