import { AUDIT_ACTIONS } from '@kegel/contract';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useId } from 'react';
import { Link, useSearchParams } from 'react-router';
import { z } from 'zod/mini';

import { deskPaths } from '../paths';
import { formatSessionDate } from '../../../shared/format/dates';
import { useContractForm } from '../../../shared/forms/use-contract-form';
import { Button } from '../../../shared/ui/button';
import { HistoryIcon } from '../../../shared/ui/icons/icon-set';
import { FieldShell } from '../../../shared/ui/field-shell';
import fieldStyles from '../../../shared/ui/form-field.module.css';
import { TextInput } from '../../../shared/ui/text-input';
import { type AuditFilters, deskQueries } from '../api';
import { AuditChanges } from '../components/audit-changes';
import styles from '../components/desk.module.css';
import { roleName } from '../labels';
import { useDeskText } from '../text';
import { useErrorToast } from '../use-error-toast';
import { usePages } from '../use-pages';

const FILTER_NAMES = ['operator', 'member', 'action', 'from', 'to'] as const;

/** The filters as typed: days (yyyy-mm-dd) rather than instants. */
const AuditFilterFormSchema = z.object({
  operator: z.string().check(z.trim(), z.maxLength(254)),
  member: z.string().check(z.trim(), z.maxLength(254)),
  action: z.string(),
  from: z.string(),
  to: z.string(),
});
type AuditFilterForm = z.infer<typeof AuditFilterFormSchema>;

/** The call's filters from the address: whole days in the operator's time zone. */
function filtersOf(form: AuditFilterForm): AuditFilters {
  const filters: AuditFilters = {};
  if (form.operator) filters.operator = form.operator;
  if (form.member) filters.member = form.member;
  if (form.action) filters.action = form.action;
  if (form.from) filters.from = new Date(`${form.from}T00:00:00`).toISOString();
  if (form.to) filters.to = new Date(`${form.to}T23:59:59.999`).toISOString();
  return filters;
}

/** `/ops/audit`: who did what to whom, newest first, filtered; the filters stay in the address. */
export function AuditPage(): React.JSX.Element {
  const [searchParams, setSearchParams] = useSearchParams();
  const typed = Object.fromEntries(
    FILTER_NAMES.map((name) => [name, searchParams.get(name) ?? '']),
  ) as AuditFilterForm;
  const { form, field } = useContractForm(AuditFilterFormSchema, typed);
  const filters = filtersOf(typed);
  const actionId = useId();
  const text = useDeskText();

  return (
    <div className={styles.stack}>
      <section className={styles.panel} aria-labelledby="audit-title">
        <h1 className={styles.pageTitle} id="audit-title">
          <HistoryIcon />
          {text('auditTrail')}
        </h1>
        <form
          className={styles.filters}
          aria-label={text('filters')}
          noValidate
          onSubmit={form.handleSubmit((values) =>
            setSearchParams(
              Object.fromEntries(Object.entries(values).filter(([, value]) => value !== '')),
            ),
          )}
        >
          <TextInput
            label={text('operator')}
            hint={text('emailOrAccountId')}
            {...field('operator')}
          />
          <TextInput label={text('member')} hint={text('emailOrAccountId')} {...field('member')} />
          <FieldShell
            label={text('action')}
            inputId={actionId}
            errorId={`${actionId}-error`}
            error={undefined}
          >
            <select id={actionId} className={fieldStyles.input} {...form.register('action')}>
              <option value="">{text('anyAction')}</option>
              {AUDIT_ACTIONS.map((action) => (
                <option key={action} value={action}>
                  {action}
                </option>
              ))}
            </select>
          </FieldShell>
          <TextInput label={text('from')} type="date" {...field('from')} />
          <TextInput label={text('to')} type="date" {...field('to')} />
          <div className={styles.filterActions}>
            <Button type="submit" size={48}>
              {text('filter')}
            </Button>
          </div>
        </form>
      </section>

      {/* Other filters, another list: it starts again from its first page. */}
      <AuditRows key={JSON.stringify(filters)} filters={filters} />
    </div>
  );
}

const COLUMNS = [
  'columnTime',
  'columnOperator',
  'columnAction',
  'columnMember',
  'columnReason',
  'columnChanges',
] as const;

function AuditRows({ filters }: { filters: AuditFilters }): React.JSX.Element {
  const text = useDeskText();
  const { cursors, onLastPage, hasMore, loadMore } = usePages();
  return (
    <section className={styles.panel} aria-labelledby="audit-rows-title">
      <h2 className={styles.sectionTitle} id="audit-rows-title">
        {text('rows')}
      </h2>
      <div className={styles.tableWrap}>
        <table className={styles.table} aria-labelledby="audit-rows-title">
          <thead>
            <tr>
              {COLUMNS.map((column) => (
                <th key={column} scope="col">
                  {text(column)}
                </th>
              ))}
            </tr>
          </thead>
          {cursors.map((cursor, index) => (
            <AuditRowsPage
              key={cursor ?? 'first'}
              filters={filters}
              cursor={cursor}
              onNextCursor={index === cursors.length - 1 ? onLastPage : undefined}
            />
          ))}
        </table>
      </div>
      {hasMore ? (
        <div className={styles.loadMore}>
          <Button variant="outlined" size={38} onClick={loadMore}>
            {text('loadMore')}
          </Button>
        </div>
      ) : null}
    </section>
  );
}

/** One page of rows, a body of the table of its own. */
function AuditRowsPage({
  filters,
  cursor,
  onNextCursor,
}: {
  filters: AuditFilters;
  cursor: string | undefined;
  onNextCursor: ((cursor: string | null) => void) | undefined;
}): React.JSX.Element {
  const text = useDeskText();
  const page = useQuery(deskQueries.audit(filters, cursor));
  useErrorToast(page.error);
  const nextCursor = page.data?.nextCursor ?? null;
  useEffect(() => onNextCursor?.(nextCursor), [onNextCursor, nextCursor]);

  const message = page.isPending
    ? text('loadingAudit')
    : page.isError
      ? text('auditFailed')
      : page.data.data.length === 0 && cursor === undefined
        ? text('noRowMatches')
        : null;
  if (message !== null || !page.data) {
    return (
      <tbody>
        <tr>
          <td colSpan={COLUMNS.length} className={styles.muted}>
            {message}
          </td>
        </tr>
      </tbody>
    );
  }
  return (
    <tbody>
      {page.data.data.map((row) => (
        <tr key={row.id}>
          <td>
            <time dateTime={row.at}>{formatSessionDate(row.at)}</time>
          </td>
          <td className={styles.wrapCell}>
            {row.actor.email} <span className={styles.label}>{roleName(text, row.actor.role)}</span>
          </td>
          <td>
            <span className={styles.label}>{row.action}</span>
          </td>
          <td className={styles.wrapCell}>
            {row.member ? (
              <Link to={deskPaths.member.getHref(row.member.id)}>
                {row.member.email ?? row.member.id}
              </Link>
            ) : (
              '—'
            )}
          </td>
          <td className={styles.wrapCell}>{row.reason ?? '—'}</td>
          <td className={styles.wrapCell}>
            <AuditChanges changes={row.changes} />
          </td>
        </tr>
      ))}
    </tbody>
  );
}
