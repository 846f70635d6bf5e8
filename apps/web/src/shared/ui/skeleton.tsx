import styles from './skeleton.module.css';

/**
 * A grey shimmering block that stands in for content while it loads; hidden from readers. Its
 * size comes from the caller's stylesheet (`className`), not a style attribute: public pages are
 * prerendered to HTML, and the Content-Security-Policy (style-src 'self') refuses inline styles
 * written into HTML.
 */
export function Skeleton({ className }: { className?: string }): React.JSX.Element {
  return (
    <span
      className={className ? `${styles.skeleton} ${className}` : styles.skeleton}
      aria-hidden="true"
    />
  );
}
