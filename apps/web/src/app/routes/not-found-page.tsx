import { paths } from '../../config/paths';
import { useCommonText } from '../../shared/i18n/common-text';
import { ButtonLink } from '../../shared/ui/button';
import { StatusPage } from './status-page';

export function NotFoundPage(): React.JSX.Element {
  const text = useCommonText();
  return (
    <StatusPage title={text('pageNotFound')} text={text('pageNotFoundText')}>
      <ButtonLink to={paths.home.getHref()}>{text('goToHomePage')}</ButtonLink>
    </StatusPage>
  );
}
