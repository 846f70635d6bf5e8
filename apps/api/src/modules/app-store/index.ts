// The App Store module's public face: what other modules may use of it.
export { createAppStoreService } from './service';
export { listAppStorePlans } from './repo';
export { createAppStoreServerApi } from './server-api';
export { createNotificationRecovery, type RecoveryRun } from './notification-recovery';
