// The checkout form's schema, in a module of its own so that it arrives (with zod) when the
// visitor first touches the page, not with the page (form-schemas.ts).
export { StartCheckoutRequestSchema } from '@kegel/contract';
