import styles from './desk.module.css';

/** A value of an audit row's change, short: dates and strings as they are, objects as JSON. */
function shortValue(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

function asRecord(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

/**
 * What an audited action changed, one line per field: "premiumEnd: 12/1/26 → 12/8/26". Rows
 * written as `{ before, after }`; anything else is shown as it was written.
 */
export function AuditChanges({
  changes,
}: {
  changes: Record<string, unknown> | null;
}): React.JSX.Element {
  if (!changes) return <span className={styles.muted}>—</span>;
  const before = asRecord(changes.before);
  const after = asRecord(changes.after);
  if (!('before' in changes) && !('after' in changes)) {
    return <code className={styles.changes}>{JSON.stringify(changes)}</code>;
  }
  if (!before && !after) {
    return (
      <code className={styles.changes}>
        {shortValue(changes.before)} → {shortValue(changes.after)}
      </code>
    );
  }
  const fields = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])];
  return (
    <ul className={styles.changeList}>
      {fields.map((field) => (
        <li key={field}>
          <code className={styles.changes}>
            {field}: {shortValue(before?.[field])} → {shortValue(after?.[field])}
          </code>
        </li>
      ))}
    </ul>
  );
}
