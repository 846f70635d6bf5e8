// The premium module's public face: what other modules may use of it. It owns the purchases and
// the ledger: whoever records, finds or takes back a purchase does it here.
export * as ledger from './ledger';
export * as purchasesRepo from './purchases-repo';
export { type NamedPurchase, purchaseNameIn, supportGrantName } from './purchase-names';
