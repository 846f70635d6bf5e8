// Every change of two-step sign-in is mailed to the owner, in the transaction of the change: a
// session (no password asked) can turn it on with its own phone, take the recovery codes or turn
// it off, and the owner must not learn of it only when his next sign-in fails.
import type { Transaction } from 'kysely';

import type { Database } from '../../db/schema';
import { mailLocaleOf } from '../../mail/mail-locale';
import { type TwoStepChange, twoStepChangedEmail } from '../../mail/two-step-templates';
import type { CodeOwner, TwoStepDependencies } from './rules';

export async function tellOwnerOfChange(
  deps: TwoStepDependencies,
  transaction: Transaction<Database>,
  owner: CodeOwner,
  change: TwoStepChange,
): Promise<void> {
  await deps.mail.enqueue(transaction, {
    to: owner.email,
    userId: owner.id,
    template: `two-step-${change}`,
    content: twoStepChangedEmail({
      change,
      settingsUrl: `${deps.publicUrl}/dashboard/settings`,
      supportEmail: deps.supportEmail,
      locale: mailLocaleOf(owner),
    }),
  });
}
