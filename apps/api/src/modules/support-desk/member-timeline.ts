// A member's timeline on the support desk: everything the product recorded of him, newest first,
// a page at a time (timeline-repo.ts reads the sources). Each page read is audited
// ('member.timeline'): it names his sign-ins, devices and addresses, whether or not his story
// was opened first.
import {
  formatMoney,
  supportDeskMessages,
  type TimelineItem,
  type TimelineKind,
  type TimelineResponse,
} from '@kegel/contract';
import { DEFAULT_LOCALE, type PageLocale } from '@kegel/contract/i18n';
import { type MessageKey, translatorFor } from '@kegel/contract/i18n/catalogs';

import { AppError } from '../../errors';
import * as memberRepo from './member-repo';
import { recordMemberRead } from './member-story';
import type { DeskAction, SupportDeskDependencies } from './rules';
import * as timelineRepo from './timeline-repo';

export const TIMELINE_PAGE_SIZE = 50;

const INVALID_CURSOR = 'This page of the timeline is out of date: start from its first page';

/**
 * The cursor is the last item's (at, id), opaque to the client (base64url of JSON): a page starts
 * strictly after it, so items written meanwhile (newer ones) never shift the pages being read.
 */
function encodeCursor(position: timelineRepo.TimelinePosition): string {
  return Buffer.from(JSON.stringify([position.at, position.id])).toString('base64url');
}

/** The shapes encodeCursor writes: anything else was not made here (and never reaches SQL). */
const CURSOR_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const CURSOR_ID = /^[a-z-]+:[\w.-]{1,200}$/;

function decodeCursor(cursor: string): timelineRepo.TimelinePosition {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (
      typeof at === 'string' &&
      typeof id === 'string' &&
      CURSOR_INSTANT.test(at) &&
      !Number.isNaN(Date.parse(at)) &&
      CURSOR_ID.test(id)
    ) {
      return { at, id };
    }
  } catch {
    // Answered below, as any cursor this server did not make.
  }
  throw new AppError(400, INVALID_CURSOR);
}

export async function readMemberTimeline(
  deps: Pick<SupportDeskDependencies, 'db' | 'auditTrail'>,
  action: DeskAction,
  memberId: string,
  {
    cursor,
    pageSize = TIMELINE_PAGE_SIZE,
    locale = DEFAULT_LOCALE,
  }: {
    cursor?: string | undefined;
    pageSize?: number;
    /** The operator's language: each line is worded in it; what was recorded stays as it is. */
    locale?: PageLocale;
  } = {},
): Promise<TimelineResponse> {
  const after = cursor === undefined ? undefined : decodeCursor(cursor);
  // One more than a page tells whether another page follows.
  const rows = await deps.db.transaction().execute(async (transaction) => {
    const account = await memberRepo.findMemberAccount(transaction, memberId);
    if (!account) throw new AppError(404, supportDeskMessages.memberNotFound);
    await recordMemberRead(deps, transaction, action, 'member.timeline', account);
    return timelineRepo.listTimelinePage(transaction, memberId, after, pageSize + 1);
  });
  const page = rows.slice(0, pageSize);
  const last = page.at(-1);
  return {
    data: page.map((row) => timelineItemOf(row, timelineTextFor(locale))),
    nextCursor: rows.length > pageSize && last ? encodeCursor(last) : null,
  };
}

/** An amount the timeline's SQL gives as text, in minor units of its currency. */
function money(minorUnits: string | null, currency: string | null): string {
  return formatMoney(Number(minorUnits ?? 0), currency ?? 'usd');
}

type TimelineText = (key: MessageKey<'timeline'>, values?: Record<string, string>) => string;

function timelineTextFor(locale: PageLocale): TimelineText {
  const translate = translatorFor(locale);
  return (key, values) => translate('timeline', key, values);
}

/** One line per row, in the desk's words, in the operator's language. */
function timelineItemOf(row: timelineRepo.TimelineRow, text: TimelineText): TimelineItem {
  const item = (kind: TimelineKind, title: string, detail: string | null = null) => ({
    id: row.id,
    at: new Date(row.at).toISOString(),
    kind,
    title,
    detail,
    actor: row.actor,
  });
  const { a, b, c, d } = row;
  const providerName = (provider: string | null): string =>
    provider === 'Apple' ? text('appStoreProvider') : (provider ?? '');
  switch (row.source) {
    case 'account':
      return item('account', text('accountCreated'));
    case 'purchase':
      return b === 'Support'
        ? item('purchase', a ?? text('grantedBySupport'))
        : item(
            'purchase',
            text('bought', { plan: a ?? '', amount: money(c, d), provider: providerName(b) }),
          );
    case 'app store notification':
      return item(
        'app store notification',
        b
          ? text('appStoreWithSubtype', { type: a ?? '', subtype: b })
          : text('appStore', { type: a ?? '' }),
        [c && text('originalTransaction', { id: c }), d].filter(Boolean).join(', ') || null,
      );
    case 'refund':
      return item(
        'refund',
        text('refunded', { amount: money(a, b) }),
        c && text('refundOf', { purchase: c }),
      );
    case 'dispute':
      return item('dispute', text('dispute', { status: d ?? '', amount: money(a, b) }), c);
    case 'ledger':
      return item(
        'ledger',
        text('ledger', { reason: b ?? '', change: a ?? '' }),
        d ? text('ledgerDays', { detail: c ?? '', days: d }) : c,
      );
    case 'sign-in':
      return a === 'success'
        ? item('sign-in', text('signedIn', { method: b ?? '' }), deviceAndAddress(c, d))
        : item(
            'sign-in failure',
            text('signInFailed', { method: b ?? '' }),
            deviceAndAddress(c, d),
          );
    case 'email change':
      return item('email change', text('emailChanged', { email: a ?? '' }));
    case 'password change':
      return item('password change', text('passwordChanged'));
    case 'mail':
      return b === 'sent'
        ? item(
            'mail',
            text('mailSent', { mail: a ?? '' }),
            c && text('mailSentAt', { at: new Date(c).toISOString() }),
          )
        : item('mail', text(b === 'failed' ? 'mailFailed' : 'mailQueued', { mail: a ?? '' }));
    case 'audit':
      // A note is an audit row of action 'note.add' whose reason is the note's text.
      return a === 'note.add' ? item('note', text('note'), b) : item('operator action', `${a}`, b);
  }
}

/** "Chrome on macOS, 203.0.113.9", without a dangling comma when either was not recorded. */
function deviceAndAddress(device: string | null, address: string | null): string {
  return [device, address].filter(Boolean).join(', ');
}
