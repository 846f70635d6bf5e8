import { externalLinks } from '../../config/paths';
import styles from './download-app-banner.module.css';
import { DownloadIcon } from './icons/icon-set';

/** 'Download our App': the exercises themselves live in the mobile app. */
export function DownloadAppBanner(): React.JSX.Element {
  return (
    <aside className={styles.banner} aria-labelledby="download-app-title">
      <div>
        <p className={styles.title} id="download-app-title">
          Download our App
        </p>
        <p className={styles.text}>
          Your daily Kegel sessions, reminders and progress, on your phone.
        </p>
      </div>
      <a className={styles.link} href={externalLinks.appStore}>
        <DownloadIcon />
        Get it on the App Store
      </a>
    </aside>
  );
}
