// The passkeys module's public face: what other modules may use of it.
export * as passkeysRepo from './repo';
export { createPasskeysService, type PasskeysService } from './service';
export { relyingPartyOf } from './rules';
