// The schemas of the sign-in pages' forms, imported on the visitor's first touch rather than with
// the page: these pages are drawn before the app runs, and building zod's schemas was the largest
// task of /auth/login's start (shared/forms/lazy-schema.ts, issue 30).
import { LazySchema } from '../../shared/forms/lazy-schema';

const importSchemas = () => import('./contract-schemas');

export const loginFormSchema = new LazySchema(() =>
  importSchemas().then((schemas) => schemas.LoginRequestSchema),
);
export const registerFormSchema = new LazySchema(() =>
  importSchemas().then((schemas) => schemas.RegisterFormSchema),
);
export const resetFormSchema = new LazySchema(() =>
  importSchemas().then((schemas) => schemas.ResetPasswordRequestSchema),
);
export const recoverFormSchema = new LazySchema(() =>
  importSchemas().then((schemas) => schemas.RecoverPasswordFormSchema),
);
export const appCodeFormSchema = new LazySchema(() =>
  importSchemas().then((schemas) => schemas.TwoStepCodeFormSchema),
);
export const recoveryCodeFormSchema = new LazySchema(() =>
  importSchemas().then((schemas) => schemas.RecoveryCodeFormSchema),
);
