import styles from './skeleton.module.css';

/** A grey shimmering block that stands in for content while it loads; hidden from readers. */
export function Skeleton({
  width = '100%',
  height = 16,
  radius = 8,
}: {
  width?: number | string;
  height?: number | string;
  radius?: number;
}): React.JSX.Element {
  return (
    <span
      className={styles.skeleton}
      style={{ width, height, borderRadius: radius }}
      aria-hidden="true"
    />
  );
}
