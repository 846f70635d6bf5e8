// The modules scripts/catalog-modules.ts builds from the catalogs, one per namespace.
declare module 'virtual:catalog/*' {
  import type { Messages } from '@lingui/core';

  export const namespace: string;
  /** The namespace's English messages, compiled: in the importing chunk. */
  export const english: Messages;
  /** Every other language's messages of the namespace, a chunk each. */
  export const loaders: Readonly<Record<string, () => Promise<{ default: Messages }>>>;
}
