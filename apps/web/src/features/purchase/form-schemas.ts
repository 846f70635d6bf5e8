// The checkout form's schema, imported on the visitor's first touch rather than with /purchase,
// a page drawn before the app runs (shared/forms/lazy-schema.ts, issue 30).
import { LazySchema } from '../../shared/forms/lazy-schema';

export const checkoutFormSchema = new LazySchema(() =>
  import('./contract-schemas').then((schemas) => schemas.StartCheckoutRequestSchema),
);
