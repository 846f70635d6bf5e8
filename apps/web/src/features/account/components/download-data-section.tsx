import { useState } from 'react';

import { api } from '../../../shared/http/api';
import { Button } from '../../../shared/ui/button';
import { toasts } from '../../../shared/ui/toasts';
import { useAccountText } from '../text';
import styles from './settings.module.css';

/** Saves a JSON document under a file name, as the browser's own download. */
function saveFile(name: string, content: string): void {
  const url = URL.createObjectURL(new Blob([content], { type: 'application/json' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  URL.revokeObjectURL(url);
}

/** "Download your data": everything the product keeps about the member, as one JSON file. */
export function DownloadDataSection(): React.JSX.Element {
  const [isPreparing, setIsPreparing] = useState(false);
  const text = useAccountText();

  async function download(): Promise<void> {
    setIsPreparing(true);
    try {
      const data = await api.call('exportData', {});
      saveFile(
        `kegel-coach-data-${data.exportedAt.slice(0, 10)}.json`,
        JSON.stringify(data, null, 2),
      );
      toasts.success(text('data.downloaded'));
    } catch (error) {
      toasts.error((error as Error).message);
    } finally {
      setIsPreparing(false);
    }
  }

  return (
    <section className={styles.section} aria-labelledby="data-title">
      <div className={styles.sectionHeader}>
        <div>
          <h2 className={styles.sectionTitle} id="data-title">
            {text('data.title')}
          </h2>
          <p className={styles.value}>{text('data.summary')}</p>
        </div>
        <Button variant="outlined" size={38} onClick={download} disabled={isPreparing}>
          {text('data.download')}
        </Button>
      </div>
    </section>
  );
}
