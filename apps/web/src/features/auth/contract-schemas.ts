// The sign-in pages' form schemas, in a module of their own so that they arrive (with zod) when
// the visitor first touches a form, not with the page (form-schemas.ts).
export {
  LoginRequestSchema,
  RecoverPasswordFormSchema,
  RecoveryCodeFormSchema,
  RegisterFormSchema,
  ResetPasswordRequestSchema,
  TwoStepCodeFormSchema,
} from '@kegel/contract';
