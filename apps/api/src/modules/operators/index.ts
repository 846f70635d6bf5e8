// The operators module's public face (ADR 020): roles (granted on the command line only) and the
// guard every support desk call passes.
export {
  createDeskGuard,
  type Operator,
  operatorOf,
  operatorStatus,
  requireAdmin,
} from './desk-access';
export {
  commandLineActor,
  grantRole,
  revokeRole,
  type RoleChange,
  UnknownAccountError,
} from './roles';
export { listOperators } from './repo';
