// The social sign-in module's public face: what other modules may use of it.
export * as socialRepo from './repo';
export { createSocialService, type SocialService } from './service';
