// A passkey as the member's list shows it, and the name one gets when none is given.
import { PASSKEY_NAME_MAX_LENGTH, type PasskeyItem } from '@kegel/contract';

import type { Caller } from '../../security/client-address';
import { deviceLabel, UNKNOWN_DEVICE } from '../../security/device-label';

export function toPasskeyItem(passkey: {
  id: string;
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  deviceType: 'singleDevice' | 'multiDevice';
}): PasskeyItem {
  return {
    id: passkey.id,
    name: passkey.name,
    createdAt: passkey.createdAt.toISOString(),
    lastUsedAt: passkey.lastUsedAt?.toISOString() ?? null,
    isSynced: passkey.deviceType === 'multiDevice',
  };
}

/** A passkey added without a name is named after where it was made: "Chrome on macOS". */
export function defaultPasskeyName(caller: Caller): string {
  const label = deviceLabel(caller.userAgent);
  // Bowser reads some agents (a script's, a bare 'curl') as nothing at all.
  return label && label !== UNKNOWN_DEVICE ? label.slice(0, PASSKEY_NAME_MAX_LENGTH) : 'Passkey';
}
