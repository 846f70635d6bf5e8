// The premium ledger's public face: what other modules may use of it.
export * as ledger from './ledger';
