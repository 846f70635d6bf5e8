// Apple's App Store Server Library, loaded with the first App Store call rather than at start.
// With its certificate and JWS code (jsrsasign among it) it is the largest package the server
// imports, some 6 MB of heap: a process that never verifies a purchase or calls Apple does not
// carry it (apps/api/test/production-modules.test.ts checks what a start loads).
import type * as AppStoreLibrary from '@apple/app-store-server-library';

let loading: Promise<typeof AppStoreLibrary> | undefined;

export function loadAppStoreLibrary(): Promise<typeof AppStoreLibrary> {
  loading ??= import('@apple/app-store-server-library');
  return loading;
}
