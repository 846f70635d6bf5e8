import styles from './spinner-overlay.module.css';

/** Covers the page while the profile loads. */
export function SpinnerOverlay({ label = 'Loading' }: { label?: string }): React.JSX.Element {
  return (
    <div className={styles.overlay} role="status" aria-live="polite">
      <span className={styles.spinner} />
      <span className="visually-hidden">{label}</span>
    </div>
  );
}
