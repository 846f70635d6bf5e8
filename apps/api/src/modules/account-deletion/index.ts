// The account deletion module's public face: what other modules may use of it.
export { createCustomerDeletionRetries } from './customer-deletion-retries';
export { type AccountDeletionService, createAccountDeletionService } from './service';
export { createStripeCustomerCleanUp, type StripeCustomerCleanUp } from './stripe-customers';
