import { useProfile } from '../../../shared/session/session';
import { Card } from '../../../shared/ui/card';
import { ChangeEmailSection } from '../components/change-email-section';
import { ChangePasswordSection } from '../components/change-password-section';
import styles from '../components/settings.module.css';

/** `/dashboard/settings`: 'Account Settings' (spec §2). */
export function SettingsPage(): React.JSX.Element | null {
  const { data: profile } = useProfile();
  if (!profile) return null;
  return (
    <Card title="Account Settings" titleLevel={1} aside={profile.email}>
      <div className={styles.stack}>
        <ChangeEmailSection currentEmail={profile.email} />
        <ChangePasswordSection />
      </div>
    </Card>
  );
}
