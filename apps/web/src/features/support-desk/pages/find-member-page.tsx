import { MemberSearchQuerySchema } from '@kegel/contract';
import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';

import { deskPaths } from '../paths';
import { formatShortDate } from '../../../shared/format/dates';
import { localizeMessage } from '../../../shared/i18n/i18n';
import { useContractForm } from '../../../shared/forms/use-contract-form';
import { Button } from '../../../shared/ui/button';
import { ProfileIcon } from '../../../shared/ui/icons/icon-set';
import { TextInput } from '../../../shared/ui/text-input';
import { deskQueries } from '../api';
import styles from '../components/desk.module.css';
import { matchKindName } from '../labels';
import { useDeskText } from '../text';
import { useErrorToast } from '../use-error-toast';

const SEARCH_PARAM = 'q';

/**
 * `/ops`: find a member by whatever he wrote in with. The term stays in the address, so going back
 * from his page shows the same results.
 */
export function FindMemberPage(): React.JSX.Element {
  const text = useDeskText();
  const [searchParams, setSearchParams] = useSearchParams();
  const term = searchParams.get(SEARCH_PARAM)?.trim() ?? '';
  const { form, field } = useContractForm(MemberSearchQuerySchema, { query: term });
  const results = useQuery({ ...deskQueries.search(term), enabled: term !== '' });
  useErrorToast(results.error);

  return (
    <div className={styles.stack}>
      <section className={styles.panel} aria-labelledby="find-member-title">
        <h1 className={styles.pageTitle} id="find-member-title">
          <ProfileIcon />
          {text('findMember')}
        </h1>
        <form
          className={styles.searchForm}
          role="search"
          noValidate
          onSubmit={form.handleSubmit(({ query }) => setSearchParams({ [SEARCH_PARAM]: query }))}
        >
          <div className={styles.searchField}>
            <TextInput
              label={text('searchLabel')}
              autoCapitalize="none"
              autoComplete="off"
              spellCheck={false}
              {...field('query')}
            />
          </div>
          <Button type="submit" disabled={results.isFetching}>
            {text('search')}
          </Button>
        </form>
      </section>

      {term ? (
        <section className={styles.panel} aria-labelledby="results-title">
          <h2 className={styles.sectionTitle} id="results-title">
            {text('resultsFor', { term })}
          </h2>
          {results.isPending ? (
            <p className={styles.muted} role="status">
              {text('searching')}
            </p>
          ) : results.isError ? (
            <p className={styles.loadError}>
              {text('searchFailed', { message: localizeMessage(results.error.message) })}
            </p>
          ) : results.data.data.length === 0 ? (
            <p className={styles.empty}>{text('noMatch', { term })}</p>
          ) : (
            <div className={styles.tableWrap}>
              <table className={styles.table} aria-labelledby="results-title">
                <thead>
                  <tr>
                    <th scope="col">{text('columnEmail')}</th>
                    <th scope="col">{text('columnCreated')}</th>
                    <th scope="col">{text('columnPremiumEnds')}</th>
                    <th scope="col">{text('columnMatchedBy')}</th>
                  </tr>
                </thead>
                <tbody>
                  {results.data.data.map((member) => (
                    <tr key={member.id}>
                      <td>
                        <Link to={deskPaths.member.getHref(member.id)}>{member.email}</Link>
                      </td>
                      <td>{formatShortDate(member.createdAt)}</td>
                      <td>
                        {member.subscriptionEndDate
                          ? formatShortDate(member.subscriptionEndDate)
                          : '—'}
                      </td>
                      <td>
                        <span className={styles.label}>
                          {matchKindName(text, member.matchedBy)}
                        </span>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
      ) : null}
    </div>
  );
}
