import { paths } from '../../config/paths';
import { ButtonLink } from '../../shared/ui/button';

export function NotFoundPage(): React.JSX.Element {
  return (
    <section style={{ maxWidth: 600, margin: '0 auto', padding: '96px 20px', textAlign: 'center' }}>
      <h1 style={{ color: 'var(--color-ink)', fontSize: '2rem' }}>Page not found</h1>
      <p style={{ margin: '12px 0 28px', color: 'var(--color-muted)' }}>
        The page you are looking for does not exist or has moved.
      </p>
      <ButtonLink to={paths.home.getHref()}>Go to the home page</ButtonLink>
    </section>
  );
}
