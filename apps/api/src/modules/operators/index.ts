// The operators module's public face (ADR 020): the guard every support desk call passes.
export { endRoleOfDeletedAccount } from './deleted-accounts';
export {
  createDeskGuard,
  type Operator,
  operatorOf,
  operatorStatus,
  requireAdmin,
} from './desk-access';
// Roles are granted and taken by command.ts (`npm run operator`) alone: roles.ts is not part of
// this face, so no other module (and no route) can reach it.
