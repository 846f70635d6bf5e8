// The payments module's public face: what other modules may use of it.
export { createPaymentsService, type PaymentsService } from './service';
export { createStripeEventHandler, type OperatorLog } from './stripe-events';
export { listPurchaseItems } from './purchase-items';
