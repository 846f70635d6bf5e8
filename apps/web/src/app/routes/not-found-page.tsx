import { paths } from '../../config/paths';
import { ButtonLink } from '../../shared/ui/button';
import { StatusPage } from './status-page';

export function NotFoundPage(): React.JSX.Element {
  return (
    <StatusPage
      title="Page not found"
      text="The page you are looking for does not exist or has moved."
    >
      <ButtonLink to={paths.home.getHref()}>Go to the home page</ButtonLink>
    </StatusPage>
  );
}
