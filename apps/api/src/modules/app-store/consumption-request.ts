// What Send Consumption Information (V2) is told of one refund request: the figures the books
// keep (ADR 023) and the ConsumptionRequest they make with APPLE_REFUND_PREFERENCE.
//
// What V2 takes of those figures: whether premium was delivered, and a refund preference. The
// share of the period used decides the preference but is not sent: Apple works an
// auto-renewable subscription's consumption out itself and refuses a consumptionPercentage for
// one. V2 has no field for the account's age or earlier refunds (V1's accountTenure and
// lifetimeDollarsRefunded are gone); they are kept and logged with the answer.
import type * as AppStoreLibrary from '@apple/app-store-server-library';
import type { ConsumptionRequest } from '@apple/app-store-server-library';
import type { Kysely } from 'kysely';

import type { AppleRefundPreference } from '../../config';
import type { Database } from '../../db/schema';
import { type ConsumptionReportRow, readConsumptionFacts } from './consumption-repo';

const DAY_MS = 24 * 60 * 60 * 1000;

/** What the ledger knows, as the report's figures. */
export interface ConsumptionFacts {
  /** Share of the transaction's period used at `now`, 0…1; null when the transaction is not his. */
  usedShare: number | null;
  delivered: boolean;
  accountAgeDays: number | null;
  earlierRefunds: number;
}

/** Apple's enums a request is written with, from its library as loaded on first use. */
type ConsumptionEnums = Pick<typeof AppStoreLibrary, 'DeliveryStatus' | 'RefundPreference'>;

/** The ConsumptionRequest (V2) these figures and the configured preference make. */
export function consumptionRequestOf(
  facts: ConsumptionFacts,
  preference: AppleRefundPreference,
  { DeliveryStatus, RefundPreference }: ConsumptionEnums,
): ConsumptionRequest {
  return {
    customerConsented: true,
    // Premium is granted the moment Apple's transaction reaches the ledger: a transaction the
    // books never gave him was not delivered.
    deliveryStatus: facts.delivered ? DeliveryStatus.DELIVERED : DeliveryStatus.UNDELIVERED_OTHER,
    // The site's and the App Store's pages describe what premium gives before it is bought
    // (Apple's "information about its functionality").
    sampleContentProvided: true,
    ...refundPreferenceOf(facts, preference, RefundPreference),
  };
}

function refundPreferenceOf(
  facts: ConsumptionFacts,
  preference: AppleRefundPreference,
  RefundPreference: ConsumptionEnums['RefundPreference'],
): Pick<ConsumptionRequest, 'refundPreference'> {
  switch (preference.kind) {
    case 'none':
      return {};
    case 'grant-prorated':
      return { refundPreference: RefundPreference.GRANT_PRORATED };
    case 'decline-past':
      // Never a decline for what was not delivered, nor past a share nobody can measure.
      return facts.delivered &&
        facts.usedShare !== null &&
        facts.usedShare * 100 > preference.usedPercent
        ? { refundPreference: RefundPreference.DECLINE }
        : {};
  }
}

/** The figures of a report at `at`, from the books. */
export async function factsOf(
  db: Kysely<Database>,
  report: ConsumptionReportRow,
  at: Date,
): Promise<ConsumptionFacts> {
  const known = await readConsumptionFacts(db, report);
  const purchase = known.purchase;
  const period = purchase ? purchase.expiresAt.getTime() - purchase.startsAt.getTime() : 0;
  const used = purchase ? at.getTime() - purchase.startsAt.getTime() : 0;
  return {
    usedShare: purchase && period > 0 ? Math.min(1, Math.max(0, used / period)) : null,
    delivered: purchase !== undefined,
    accountAgeDays: known.accountCreatedAt
      ? Math.floor((at.getTime() - known.accountCreatedAt.getTime()) / DAY_MS)
      : null,
    earlierRefunds: known.earlierRefunds,
  };
}
