// The premium reminders module's public face: the job that mails before premium ends, the
// ledger's call when an end moves (the unsubscribe link's routes are in routes.ts).
export {
  createPremiumReminders,
  type PremiumReminders,
  withdrawStaleReminders,
  withdrawWaitingReminders,
} from './reminders';
