import { useProfile } from '../../../shared/session/session';
import { Card } from '../../../shared/ui/card';
import { ChangeEmailSection } from '../components/change-email-section';
import { DeleteAccountSection } from '../components/delete-account-section';
import { DownloadDataSection } from '../components/download-data-section';
import { EmailChangeUndoNotice } from '../components/email-change-undo-notice';
import { ChangePasswordSection } from '../components/change-password-section';
import { PasskeysSection } from '../components/passkeys-section';
import { PreferencesSection } from '../components/preferences-section';
import { SetPasswordSection } from '../components/set-password-section';
import { SignedInDevicesSection } from '../components/signed-in-devices-section';
import { TwoStepSection } from '../components/two-step-section';
import { SignInHistorySection } from '../components/sign-in-history-section';
import styles from '../components/settings.module.css';
import { useAccountText } from '../text';

/** `/dashboard/settings`: 'Account Settings'. */
export function SettingsPage(): React.JSX.Element | null {
  const { data: profile } = useProfile();
  const text = useAccountText();
  if (!profile) return null;
  return (
    <Card title={text('settings.title')} titleLevel={1} aside={profile.email}>
      <div className={styles.stack}>
        {profile.hasPassword ? (
          <>
            <ChangeEmailSection currentEmail={profile.email} />
            <EmailChangeUndoNotice />
            <ChangePasswordSection />
          </>
        ) : (
          <>
            <section className={styles.section} aria-labelledby="email-title">
              <div className={styles.sectionHeader}>
                <div>
                  <h2 className={styles.sectionTitle} id="email-title">
                    {text('email.title')}
                  </h2>
                  <p className={styles.value}>{profile.email}</p>
                </div>
              </div>
            </section>
            <SetPasswordSection email={profile.email} />
          </>
        )}
        <TwoStepSection isOn={profile.twoStepEnabled} />
        <PasskeysSection />
        <SignedInDevicesSection />
        <SignInHistorySection />
        <PreferencesSection />
        <DownloadDataSection />
        <DeleteAccountSection hasPassword={profile.hasPassword} />
      </div>
    </Card>
  );
}
