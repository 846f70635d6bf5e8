// Every call under /api, and the services behind them, made from what the server's plugins
// provide (database, mail, Stripe, identity providers, rate limits, session tokens, Pwned
// Passwords).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

import type { Config } from '../config';
import { sendRouteNotFound } from '../plugins/error-handler';
import {
  createPasswordHasher,
  defaultHashingThreads,
  type PasswordHasher,
} from '../security/password-hasher';
import { createPasswordScreen } from '../security/password-screen';
import { deriveKey } from '../security/keys';
import { createSignInNonces } from '../security/sign-in-nonces';
import { accountDeletionRoutes } from './account-deletion/routes';
import { startBackgroundJobs } from './background-jobs';
import { createAccountDeletionService } from './account-deletion/service';
import {
  createStripeCustomerCleanUp,
  type StripeCustomerCleanUp,
} from './account-deletion/stripe-customers';
import { createOrderClaims } from './app-store/order-claims';
import { appStoreRoutes } from './app-store/routes';
import { createAppStoreService } from './app-store/service';
import { authRoutes, limitRequestsPerAddress } from './auth/routes';
import { type AuthService, createAuthService } from './auth/service';
import { createAuditTrail } from './audit';
import { healthRoutes } from './health/routes';
import { operatorStatusRoutes } from './operators/routes';
import { createPasskeysService, type PasskeysService, relyingPartyOf } from './passkeys';
import { passkeyAccountRoutes, passkeySignInRoutes } from './passkeys/routes';
import { paymentRoutes } from './payments/routes';
import { withdrawWaitingReminders } from './premium-reminders';
import { unsubscribeRoutes } from './premium-reminders/routes';
import {
  createPaymentsService,
  type PaymentsService,
  type PaymentsServiceDependencies,
} from './payments/service';
import { createStripeEventHandler } from './payments/stripe-events';
import { socialRoutes } from './social/routes';
import { supportDeskRoutes } from './support-desk/routes';
import { createSocialService, type SocialService } from './social/service';
import { twoStepRoutes } from './two-step/routes';
import { createTwoStepService, type TwoStepService } from './two-step/service';
import { userRoutes } from './users/routes';
import { createUsersService } from './users/service';

export interface ModuleRoutesOptions {
  config: Config;
  /** Tests count the hashes (the costly work) a call spends. */
  passwordHasher?: PasswordHasher;
}

export const moduleRoutes: FastifyPluginAsyncZod<ModuleRoutesOptions> = async function moduleRoutes(
  api,
  { config, passwordHasher },
) {
  const hasher = passwordHasher ?? createPasswordHasher();
  const services = createServices(api, config, hasher);
  api.metrics.readHashingWith(() => ({
    ...hasher.load(),
    signInsWaiting: services.authService.signInLoad().waiting,
  }));
  // Its own hashing threads end with it; a hasher handed in is its owner's to close.
  startBackgroundJobs(api, config, services.stripeCustomers, passwordHasher ? undefined : hasher);
  await registerRoutes(api, config, services, hasher);
};

/** The server's instance as the routes see it (with zod's type provider). */
type Api = Parameters<FastifyPluginAsyncZod>[0];

/** The services more than one set of routes (or a background job) uses. */
interface SharedServices {
  stripeCustomers: StripeCustomerCleanUp;
  paymentsService: PaymentsService;
  authService: AuthService;
  socialService: SocialService;
  twoStepService: TwoStepService;
  passkeysService: PasskeysService;
}

function createServices(api: Api, config: Config, hasher: PasswordHasher): SharedServices {
  const { db } = api.database;
  const { publicUrl, supportEmail } = config;
  const stripeCustomers = createStripeCustomerCleanUp({ db, stripe: api.stripe, log: api.log });
  const paymentsService = createPaymentsService({
    db,
    log: api.log,
    publicUrl,
    stripe: api.stripe,
    rateLimiter: api.rateLimiter,
    ...checkoutLimits(config),
    forgetCustomer: (account) => stripeCustomers.forgetCustomer(account),
    // Called only once both services exist.
    isOwnersNetwork: (account, caller) => authService.isKnownAddress(account, caller),
  });

  const authService = createAuthService({
    db,
    hasher,
    passwordSignInsAtOnce: 2 * defaultHashingThreads(),
    passwordScreen: createPasswordScreen(api.pwnedPasswords),
    tokens: api.sessionTokens,
    rateLimiter: api.rateLimiter,
    mail: api.mail,
    publicUrl,
    supportEmail,
    registrationsPerAddress: {
      name: 'registrations',
      limit: config.registrationsPerAddressPerHour,
      windowSeconds: 60 * 60,
    },
    attemptsPerAddress: {
      name: 'auth-attempts',
      limit: config.authAttemptsPerAddressPerHour,
      windowSeconds: 60 * 60,
    },
    log: api.log,
    onEmailChanged(userId) {
      // Not awaited: Stripe's answer must not hold the member's request up (failures are logged,
      // and the next checkout or portal visit tries again).
      void paymentsService.syncCustomerEmail(userId);
    },
    // Called only once both services exist.
    secondStep: {
      isOn: (userId) => twoStepService.isOn(userId),
      challengeIfOn: (account) => twoStepService.challengeIfOn(account),
      requireSecondFactorIfOn: (userId, code, caller) =>
        twoStepService.requireSecondFactorIfOn(userId, code, caller),
    },
  });
  const twoStepService = createTwoStepService({
    db,
    // AES-256-GCM for the authenticator secrets, keyed from TOKEN_SECRET (ADR 018).
    secretKey: deriveKey(config.tokenSecret, 'two-step-secret'),
    signIn: authService,
    mail: api.mail,
    publicUrl,
    supportEmail,
  });
  const socialService = createSocialService({
    db,
    auth: authService,
    mail: api.mail,
    nonces: createSignInNonces(config.tokenSecret),
    publicUrl,
    supportEmail,
    google: api.identity.google,
    apple: api.identity.apple,
    secondStep: twoStepService,
  });
  return {
    stripeCustomers,
    paymentsService,
    authService,
    socialService,
    twoStepService,
    passkeysService: createPasskeys(api, config, { authService, twoStepService }),
  };
}

/** Passkeys: their relying party from PUBLIC_URL, sessions opened by the auth module. */
function createPasskeys(
  api: Api,
  config: Config,
  services: Pick<SharedServices, 'authService' | 'twoStepService'>,
): PasskeysService {
  return createPasskeysService({
    db: api.database.db,
    relyingParty: relyingPartyOf(config.publicUrl),
    rateLimiter: api.rateLimiter,
    failedSignInsPerAddress: {
      name: 'failed-passkey-sign-ins',
      limit: config.authAttemptsPerAddressPerHour,
      windowSeconds: 60 * 60,
    },
    sessions: services.authService,
    secondStep: services.twoStepService,
    mail: api.mail,
    publicUrl: config.publicUrl,
    supportEmail: config.supportEmail,
  });
}

/** The limits on starting checkouts and on looking them up, from the configuration. */
function checkoutLimits(config: Config) {
  return {
    checkoutLimits: {
      perAddress: {
        name: 'checkouts-per-address',
        limit: config.checkoutsPerAddressPerHour,
        windowSeconds: 60 * 60,
      },
      perEmail: {
        name: 'checkouts-per-email',
        limit: config.checkoutsPerEmailPerHour,
        windowSeconds: 60 * 60,
      },
      perOwnAccount: {
        name: 'checkouts-own-account',
        limit: config.checkoutsPerEmailPerHour,
        windowSeconds: 60 * 60,
      },
    },
    lookupsPerAddress: {
      name: 'checkout-lookups-per-address',
      limit: config.checkoutLookupsPerAddressPerHour,
      windowSeconds: 60 * 60,
    },
  } satisfies Pick<PaymentsServiceDependencies, 'checkoutLimits' | 'lookupsPerAddress'>;
}

async function registerRoutes(
  api: Api,
  config: Config,
  services: SharedServices,
  hasher: PasswordHasher,
): Promise<void> {
  const { db } = api.database;
  const { publicUrl, supportEmail } = config;
  const { authService, paymentsService, stripeCustomers } = services;
  const auditTrail = createAuditTrail({ emailKey: deriveKey(config.tokenSecret, 'audit-email') });
  api.setNotFoundHandler(sendRouteNotFound);
  await api.register(healthRoutes);
  await api.register(signInRoutes(api, config, services));
  await api.register(passkeyAccountRoutes, { passkeysService: services.passkeysService });
  const usersService = createUsersService({ db, withdrawWaitingReminders });
  await api.register(userRoutes, { usersService, authService });
  await api.register(accountDeletionRoutes, {
    accountDeletionService: createAccountDeletionService({
      db,
      mail: api.mail,
      supportEmail,
      auth: authService,
      stripeCustomers,
      secondStep: services.twoStepService,
      auditTrail,
    }),
  });
  await api.register(paymentRoutes, {
    paymentsService,
    stripeEvents: createStripeEventHandler({
      db,
      hasher,
      mail: api.mail,
      publicUrl,
      stripe: api.stripe,
      log: api.log,
    }),
    stripe: api.stripe,
    webhookSecret: config.stripe.webhookSecret,
    countWebhook: api.metrics.countWebhook,
  });
  await api.register(appStoreRoutes, {
    appStoreService: createAppStoreService({
      db,
      verifier: api.appStore,
      answersConsumptionRequests: api.appStoreServerApi !== null,
    }),
    orderClaims: createOrderClaims({
      db,
      lookUpOrder: api.appStoreServerApi
        ? (orderId) => api.appStoreServerApi?.lookUpOrder(orderId) ?? Promise.resolve([])
        : null,
      rateLimiter: api.rateLimiter,
      claimsPerMember: { name: 'apple-order-claims-member', limit: 10, windowSeconds: 60 * 60 },
      supportEmail,
    }),
  });
  await api.register(operatorStatusRoutes, { db });
  await api.register(unsubscribeRoutes, {
    db,
    unsubscribeKey: deriveKey(config.tokenSecret, 'unsubscribe-link'),
    publicUrl,
  });
  await api.register(supportDeskRoutes, {
    db,
    auditTrail,
    // Through the App Store Server API (Look Up Order ID); none found while it is not configured.
    lookUpAppleOrder: async (orderId) => (await api.appStoreServerApi?.lookUpOrder(orderId)) ?? [],
    mail: api.mail,
    stripe: api.stripe,
    auth: authService,
    publicUrl,
    supportEmail,
    countAction: api.metrics.countOperatorAction,
  });
}

/** Every /auth call: passwords, emailed links, Google and Apple sign-in, and passkeys. */
function signInRoutes(api: Api, config: Config, services: SharedServices) {
  return async function signIn(auth: Api): Promise<void> {
    // A flood guard over every /auth call, far above what a whole NAT address needs: the bound
    // on the calls that have no budget of their own (sign-ins that succeed, logouts, emailed
    // links with bogus codes, Google and Apple tokens), each a database or provider round trip.
    auth.addHook(
      'onRequest',
      limitRequestsPerAddress(api.rateLimiter, {
        name: 'auth-requests',
        limit: config.authRequestsPerMinute,
        windowSeconds: 60,
      }),
    );
    // What the sign-in and registration pages fetch on every load, by everyone behind an
    // address alike: one generous budget of its own, apart from the attempts one.
    const limitSignInPageRequests = limitRequestsPerAddress(api.rateLimiter, {
      name: 'sign-in-page',
      limit: config.signInPageRequestsPerMinute,
      windowSeconds: 60,
    });
    await auth.register(authRoutes, { authService: services.authService });
    await auth.register(twoStepRoutes, { twoStepService: services.twoStepService });
    await auth.register(socialRoutes, {
      socialService: services.socialService,
      providers: api.identity.providers,
      limitSignInPageRequests,
    });
    await auth.register(passkeySignInRoutes, {
      passkeysService: services.passkeysService,
      limitSignInPageRequests,
    });
  };
}
