import {
  type AuditQuery,
  type GrantDaysRequest,
  type NoteRequest,
  type RefundRequest,
  type ResendMailRequest,
  type StepUpRequest,
  supportDeskMessages,
} from '@kegel/contract';
import { queryOptions, type QueryClient, useMutation, useQueryClient } from '@tanstack/react-query';

import { api } from '../../shared/http/api';
import { ApiError } from '../../shared/http/api-client';
import { freshness, type SendingForm } from '../../shared/query/query-client';
import { sessionQueries } from '../../shared/session/session';
import { isContractMessage } from './server-refusals';
import { useDeskText } from './text';

/** The audit page's filters: what the operator typed, empty fields left out. */
export type AuditFilters = Omit<AuditQuery, 'cursor'>;

/**
 * The support desk's reads. Every one goes to the server when a page opens (`fromServer`): the
 * desk is where someone answers a member who writes now, so an hour-old story would mislead, and
 * the operator's standing changes when his 12 hours run out. Keyed under the session, as every
 * feature's reads: signing out drops them.
 */
export const deskQueries = {
  all: () => [...sessionQueries.all(), 'support-desk'] as const,
  operator: () =>
    queryOptions({
      queryKey: [...deskQueries.all(), 'operator'],
      queryFn: ({ signal }) => api.call('operatorStatus', { signal }),
      ...freshness.fromServer,
    }),
  search: (query: string) =>
    queryOptions({
      queryKey: [...deskQueries.all(), 'search', query],
      queryFn: ({ signal }) => api.call('searchMembers', { query: { query }, signal }),
      ...freshness.fromServer,
    }),
  member: (id: string) =>
    queryOptions({
      queryKey: [...deskQueries.all(), 'member', id],
      queryFn: ({ signal }) => api.call('getMember', { params: { id }, signal }),
      ...freshness.fromServer,
    }),
  /** One page of the timeline: the first without a cursor, the next with the last one's. */
  timeline: (id: string, cursor: string | undefined) =>
    queryOptions({
      queryKey: [...deskQueries.all(), 'member', id, 'timeline', cursor ?? null],
      queryFn: ({ signal }) =>
        api.call('getMemberTimeline', { params: { id }, query: { cursor }, signal }),
      ...freshness.fromServer,
    }),
  view: (id: string) =>
    queryOptions({
      queryKey: [...deskQueries.all(), 'member', id, 'view'],
      queryFn: ({ signal }) => api.call('viewAsMember', { params: { id }, signal }),
      ...freshness.fromServer,
    }),
  /** One page of the audit trail, as the timeline's. */
  audit: (filters: AuditFilters, cursor: string | undefined) =>
    queryOptions({
      queryKey: [...deskQueries.all(), 'audit', filters, cursor ?? null],
      queryFn: ({ signal }) => api.call('listAudit', { query: { ...filters, cursor }, signal }),
      ...freshness.fromServer,
    }),
};

/**
 * The server's answer when the operator's 12 hours since his last second factor ran out while
 * the desk was open: the desk asks for the factor again (DeskLayout).
 */
export function asksForSecondFactor(error: unknown): boolean {
  return (
    error instanceof ApiError &&
    error.statusCode === 403 &&
    isContractMessage(error.message, supportDeskMessages.confirmSecondFactor)
  );
}

/** The desk is closed to this session until it proves a second factor again. */
export function closeDesk(queryClient: QueryClient): void {
  queryClient.setQueryData(deskQueries.operator().queryKey, (status) =>
    status ? { ...status, deskOpenUntil: null } : status,
  );
}

export function useStepUp({ showOnField }: SendingForm = {}) {
  const text = useDeskText();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (request: StepUpRequest) => api.call('stepUp', { body: request }),
    meta: {
      toasts: { pending: text('confirming'), success: text('secondFactorConfirmed') },
      showOnField,
    },
    // Every read of the desk that was refused meanwhile is asked again.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: deskQueries.all() }),
  });
}

/** After a write about a member: his story and timeline as they are now. */
function useRefreshMember(memberId: string): () => Promise<void> {
  const queryClient = useQueryClient();
  return () =>
    queryClient.invalidateQueries({ queryKey: [...deskQueries.all(), 'member', memberId] });
}

export function useGrantDays(memberId: string, { showOnField }: SendingForm = {}) {
  const text = useDeskText();
  const refreshMember = useRefreshMember(memberId);
  return useMutation({
    mutationFn: (request: GrantDaysRequest) =>
      api.call('grantDays', { params: { id: memberId }, body: request }),
    meta: { toasts: { pending: text('grantingDays'), success: text('daysGranted') }, showOnField },
    onSettled: refreshMember,
  });
}

export function useRemoveGrant(memberId: string, { showOnField }: SendingForm = {}) {
  const text = useDeskText();
  const refreshMember = useRefreshMember(memberId);
  return useMutation({
    mutationFn: ({ grantId, reason }: { grantId: string; reason: string }) =>
      api.call('removeGrant', { params: { id: grantId }, body: { reason } }),
    meta: {
      toasts: { pending: text('removingGrant'), success: text('grantRemoved') },
      showOnField,
    },
    onSettled: refreshMember,
  });
}

export function useRefundPurchase(memberId: string, { showOnField }: SendingForm = {}) {
  const text = useDeskText();
  const refreshMember = useRefreshMember(memberId);
  return useMutation({
    mutationFn: ({ purchaseId, ...request }: RefundRequest & { purchaseId: string }) =>
      api.call('refundPurchase', { params: { id: purchaseId }, body: request }),
    meta: {
      // The days go when Stripe's event arrives, a moment later: the timeline shows it then.
      toasts: { pending: text('refunding'), success: text('refundSent') },
      showOnField,
    },
    onSettled: refreshMember,
  });
}

export function useSignOutEverywhere(memberId: string, { showOnField }: SendingForm = {}) {
  const text = useDeskText();
  const refreshMember = useRefreshMember(memberId);
  return useMutation({
    mutationFn: (reason: string) =>
      api.call('revokeMemberSessions', { params: { id: memberId }, body: { reason } }),
    meta: {
      toasts: { pending: text('signingOut'), success: text('signedOutEverywhere') },
      showOnField,
    },
    onSettled: refreshMember,
  });
}

export function useResendMail(memberId: string) {
  const text = useDeskText();
  const refreshMember = useRefreshMember(memberId);
  return useMutation({
    mutationFn: (request: ResendMailRequest) =>
      api.call('resendMemberMail', { params: { id: memberId }, body: request }),
    meta: { toasts: { pending: text('sendingMail'), success: text('mailSent') } },
    onSettled: refreshMember,
  });
}

export function useAddNote(memberId: string, { showOnField }: SendingForm = {}) {
  const text = useDeskText();
  const refreshMember = useRefreshMember(memberId);
  return useMutation({
    mutationFn: (request: NoteRequest) =>
      api.call('addMemberNote', { params: { id: memberId }, body: request }),
    meta: { toasts: { pending: text('addingNote'), success: text('noteAdded') }, showOnField },
    onSettled: refreshMember,
  });
}
