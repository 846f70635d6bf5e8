import { useProfile } from '../../../shared/session/session';
import { Card } from '../../../shared/ui/card';
import { DownloadAppBanner } from '../../../shared/ui/download-app-banner';
import { PremiumStatus } from '../../../shared/premium/premium-status';
import { usePremiumText } from '../../../shared/premium/text';

/** `/dashboard`: membership status and the app banner. */
export function DashboardPage(): React.JSX.Element | null {
  const text = usePremiumText();
  const { data: profile } = useProfile();
  if (!profile) return null;
  return (
    <div style={{ display: 'flex', flexDirection: 'column', gap: 24 }}>
      <Card title={text('dashboardTitle')} titleLevel={1} aside={profile.email}>
        <PremiumStatus profile={profile} />
      </Card>
      <DownloadAppBanner />
    </div>
  );
}
