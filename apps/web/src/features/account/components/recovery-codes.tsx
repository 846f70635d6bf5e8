import { useState } from 'react';

import { Button } from '../../../shared/ui/button';
import { DownloadIcon } from '../../../shared/ui/icons/icon-set';
import styles from './two-step.module.css';

/** The file a member keeps his recovery codes in. */
function recoveryCodesFile(codes: readonly string[]): string {
  return [
    'Kegel Coach recovery codes',
    '',
    'Each code signs you in once when you cannot use your authenticator app.',
    'Keep them somewhere safe. Making new codes stops these from working.',
    '',
    ...codes,
    '',
  ].join('\n');
}

function saveTextFile(name: string, content: string): void {
  const url = URL.createObjectURL(new Blob([content], { type: 'text/plain' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  URL.revokeObjectURL(url);
}

/**
 * The ten recovery codes, shown this once: the server keeps only their hashes. Put away with
 * 'Done' once the member has saved them (downloaded, copied or written down).
 */
export function RecoveryCodes({
  codes,
  onDone,
}: {
  codes: readonly string[];
  onDone: () => void;
}): React.JSX.Element {
  const [isCopied, setIsCopied] = useState(false);
  return (
    <div className={styles.panel}>
      <div>
        <h3 className={styles.panelTitle}>Save your recovery codes</h3>
        <p className={styles.hint}>
          If you lose your phone, each code signs you in once instead of a code from the app. They
          are shown only now: keep them somewhere safe.
        </p>
      </div>
      <ul className={styles.codes} aria-label="Recovery codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ul>
      <div className={styles.actions}>
        <Button
          variant="outlined"
          size={44}
          onClick={() => saveTextFile('kegel-coach-recovery-codes.txt', recoveryCodesFile(codes))}
        >
          <DownloadIcon /> Download (.txt)
        </Button>
        <Button
          variant="outlined"
          size={44}
          onClick={() => {
            void navigator.clipboard?.writeText(codes.join('\n')).then(() => setIsCopied(true));
          }}
        >
          {isCopied ? 'Copied' : 'Copy'}
        </Button>
        <Button size={44} onClick={onDone}>
          I have saved them
        </Button>
      </div>
    </div>
  );
}
