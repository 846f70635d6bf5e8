// Examples of the Profile calls (call-example.ts says what an example is; story.ts, who Alex is).
// The acknowledgements the API writes in its routes are copied word for word
// (apps/api/src/modules/users/routes.ts).
import { unsubscribeMessages } from '../unsubscribe';
import { deleteAccountMessages, emailChangeUndoMessages } from '../users';
import type { CallExamples } from './call-example';
import { dataExportExample } from './data-export';
import { memberPreferences, memberProfile, memberPurchaseItems, memberSignIns } from './member';
import {
  AUTHENTICATOR_CODE,
  EMAIL_CHANGE_UNDOABLE_UNTIL,
  MAC_DEVICE,
  MEMBER_EMAIL,
  MEMBER_PASSWORD,
  NOW,
  PHONE_DEVICE,
  PHONE_SESSION_ID,
  PHONE_SESSION_LAST_USED_AT,
  PHONE_SESSION_STARTED_AT,
  SESSION_ID,
  SESSION_STARTED_AT,
  UNSUBSCRIBE_TOKEN,
} from './story';

export const profileExamples: Pick<
  CallExamples,
  | 'readProfile'
  | 'listPurchases'
  | 'exportData'
  | 'readPreferences'
  | 'updatePreferences'
  | 'unsubscribe'
  | 'listSignIns'
  | 'listSessions'
  | 'endSession'
  | 'endOtherSessions'
  | 'deleteAccount'
  | 'listEmailChangeUndoWindows'
  | 'closeEmailChangeUndoWindows'
> = {
  readProfile: { response: memberProfile },
  listPurchases: { response: { data: memberPurchaseItems } },
  exportData: { response: dataExportExample },
  readPreferences: { response: memberPreferences },
  updatePreferences: {
    body: { expiryReminders: false },
    response: { ...memberPreferences, expiryReminders: false },
  },
  unsubscribe: {
    query: { token: UNSUBSCRIBE_TOKEN },
    response: { message: unsubscribeMessages.done },
  },
  listSignIns: { response: { data: memberSignIns } },
  listSessions: {
    response: {
      data: [
        {
          id: SESSION_ID,
          createdAt: SESSION_STARTED_AT,
          lastUsedAt: NOW,
          device: MAC_DEVICE,
          method: 'password',
          current: true,
        },
        {
          id: PHONE_SESSION_ID,
          createdAt: PHONE_SESSION_STARTED_AT,
          lastUsedAt: PHONE_SESSION_LAST_USED_AT,
          device: PHONE_DEVICE,
          method: 'passkey',
          current: false,
        },
      ],
    },
  },
  endSession: {
    params: { id: PHONE_SESSION_ID },
    response: { message: 'Signed out' },
  },
  endOtherSessions: { response: { message: 'Signed out of all other devices' } },
  // He has an App Store subscription running: he acknowledges that deleting does not cancel it.
  deleteAccount: {
    body: { password: MEMBER_PASSWORD, keepsAppStoreSubscription: true, code: AUTHENTICATOR_CODE },
    response: { message: deleteAccountMessages.deleted },
  },
  // After his move to MEMBER_NEW_EMAIL (confirmEmailChange), from his session of 5 November.
  listEmailChangeUndoWindows: {
    response: {
      undoWindows: [
        {
          previousEmail: MEMBER_EMAIL,
          undoableUntil: EMAIL_CHANGE_UNDOABLE_UNTIL,
          canCloseHere: true,
        },
      ],
    },
  },
  closeEmailChangeUndoWindows: { response: { message: emailChangeUndoMessages.closed } },
};
