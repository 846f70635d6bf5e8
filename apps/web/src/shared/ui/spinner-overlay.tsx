import styles from './spinner-overlay.module.css';

/** Covers the page while something it needs loads; `label` says what, to screen readers. */
export function SpinnerOverlay({ label }: { label: string }): React.JSX.Element {
  return (
    <div className={styles.overlay} role="status" aria-live="polite">
      <span className={styles.spinner} />
      <span className="visually-hidden">{label}</span>
    </div>
  );
}
