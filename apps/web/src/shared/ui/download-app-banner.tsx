import { externalLinks } from '../../config/paths';
import { useCommonText } from '../i18n/common-text';
import styles from './download-app-banner.module.css';
import { DownloadIcon } from './icons/icon-set';

/** 'Download our App': the exercises themselves live in the mobile app. */
export function DownloadAppBanner(): React.JSX.Element {
  const text = useCommonText();
  return (
    <aside className={styles.banner} aria-labelledby="download-app-title">
      <div>
        <p className={styles.title} id="download-app-title">
          {text('downloadAppTitle')}
        </p>
        <p className={styles.text}>{text('downloadAppText')}</p>
      </div>
      <a className={styles.link} href={externalLinks.appStore}>
        <DownloadIcon />
        {text('getItOnAppStore')}
      </a>
    </aside>
  );
}
