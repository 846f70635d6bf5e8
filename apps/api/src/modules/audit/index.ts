// The audit module's public face (ADR 020): recording operator actions, verifying the chain, and
// the pseudonyms of deleted accounts.
export {
  type AuditActor,
  type AuditChainReport,
  type AuditEvent,
  type AuditOrigin,
  type AuditTrail,
  createAuditTrail,
} from './audit-trail';
export { pseudonymOf, withoutEmail } from './chain';
export * as auditRepo from './repo';
export type { CommandOutput } from './verify-command';
