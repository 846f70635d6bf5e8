import { useState } from 'react';

import { Button } from '../../../shared/ui/button';
import { DownloadIcon } from '../../../shared/ui/icons/icon-set';
import { useAccountText } from '../text';
import styles from './two-step.module.css';

/** The name the downloaded codes are saved under: the same in every language. */
const RECOVERY_CODES_FILE_NAME = 'kegel-coach-recovery-codes.txt';

/** The file a member keeps his recovery codes in, in the language of the page. */
function recoveryCodesFile(
  codes: readonly string[],
  text: ReturnType<typeof useAccountText>,
): string {
  return [
    text('recoveryCodes.fileTitle'),
    '',
    text('recoveryCodes.fileUse'),
    text('recoveryCodes.fileKeep'),
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
  const text = useAccountText();
  return (
    <div className={styles.panel}>
      <div>
        <h3 className={styles.panelTitle}>{text('recoveryCodes.title')}</h3>
        <p className={styles.hint}>{text('recoveryCodes.hint')}</p>
      </div>
      <ul className={styles.codes} aria-label={text('recoveryCodes.listLabel')}>
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
          onClick={() => saveTextFile(RECOVERY_CODES_FILE_NAME, recoveryCodesFile(codes, text))}
        >
          <DownloadIcon /> {text('recoveryCodes.download')}
        </Button>
        <Button
          variant="outlined"
          size={44}
          onClick={() => {
            void navigator.clipboard?.writeText(codes.join('\n')).then(() => setIsCopied(true));
          }}
        >
          {text(isCopied ? 'recoveryCodes.copied' : 'recoveryCodes.copy')}
        </Button>
        <Button size={44} onClick={onDone}>
          {text('recoveryCodes.saved')}
        </Button>
      </div>
    </div>
  );
}
