// A local stand-in for Google's and Apple's sign-in, so a newcomer can use both buttons offline
// and the tests can drive them. Each provider is an OpenID Connect issuer of its own, with RSA
// keys made at start and published as a JWK set:
//
// - Google (`/google`): discovery, a sign-in page as the authorization endpoint, a token endpoint
//   that exchanges each code once (client secret required), and a stand-in for the Google
//   Identity Services script (`/google/gsi/client`) whose `initCodeClient(...).requestCode()`
//   opens that page in a popup and hands the code back, as the real one does.
// - Apple (`/apple`): `/apple/auth/keys`, a sign-in page, and a stand-in for Sign in with Apple JS
//   (`/apple/appleid.auth.js`) whose `AppleID.auth.signIn()` resolves with the identity token.
//   Like Apple, it puts the email in the token only the first time an identity signs in.
//
// The web app loads the script URL the API gives it, so it runs the same code against the real
// providers and against this. Every endpoint is a row of the route table at the top of
// startIdentitySandbox. State lives in memory; the API never starts it in production.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';

import { escapeHtml, listenOnLoopback, readBody } from './loopback-http';
import {
  anyMethod,
  type Exchange,
  get,
  type PageHandler,
  post,
  routeTable,
  serveRoutes,
} from './route-table';

export interface IdentitySandboxOptions {
  google: { clientId: string; clientSecret: string };
  apple: { clientId: string };
  /** Origins of the web app: the only pages a popup hands its code or token to. */
  allowedOrigins: string[];
  port?: number;
}

export type IdentityProvider = 'google' | 'apple';

export interface TestIdentity {
  sub: string;
  email?: string;
  emailVerified?: boolean;
  /** Google's `hd`: the Workspace domain of a company account (absent for Gmail). */
  hostedDomain?: string;
  nonce?: string;
}

export interface IdentitySandbox {
  baseUrl: string;
  google: { issuer: string; scriptUrl: string };
  apple: { issuer: string; jwksUrl: string; scriptUrl: string };
  /** How often each provider's key set was fetched (tests check the API caches it). */
  keySetFetches: Record<IdentityProvider, number>;
  /** The claims the provider would sign for this identity (tests alter them). */
  idTokenClaims(provider: IdentityProvider, identity: TestIdentity): JWTPayload;
  /** Signs claims with the provider's published key (or `kid`, when a test wants another). */
  signIdToken(
    provider: IdentityProvider,
    claims: JWTPayload,
    options?: { kid?: string },
  ): Promise<string>;
  /** The provider's public key, as published (tests use it for key-confusion attacks). */
  publicJwk(provider: IdentityProvider): JWK;
  /** A Google code as the sign-in page issues it; its exchange returns `idToken` if given. */
  issueGoogleCode(identity: TestIdentity, options?: { idToken?: string }): Promise<string>;
  close(): Promise<void>;
}

interface SigningKey {
  kid: string;
  privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
  publicJwk: JWK;
}

interface PendingCode {
  idToken: string;
  clientId: string;
  redirectUri: string;
  scope: string;
  used: boolean;
}

const SANDBOX_MESSAGE_SOURCE = 'kegel-identity-sandbox';

/** Each provider's authorization endpoint, where its sign-in page lives. */
const AUTHORIZE_PATHS: Record<IdentityProvider, string> = {
  google: '/google/authorize',
  apple: '/apple/auth/authorize',
};

async function makeSigningKey(): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = randomBytes(8).toString('hex');
  return {
    kid,
    privateKey,
    publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' },
  };
}

/** One person, one `sub`: derived from the email when the page leaves it empty. */
function stableSubject(provider: IdentityProvider, email: string): string {
  const digest = createHash('sha256').update(`${provider}:${email.trim().toLowerCase()}`);
  return provider === 'google'
    ? BigInt(`0x${digest.digest('hex').slice(0, 15)}`).toString()
    : `000${digest.digest('hex').slice(0, 28)}.0001`;
}

async function readForm(request: IncomingMessage): Promise<URLSearchParams> {
  return new URLSearchParams(await readBody(request));
}

function send(
  response: ServerResponse,
  status: number,
  contentType: string,
  body: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, {
    'content-type': contentType,
    'cache-control': 'no-store',
    ...headers,
  });
  response.end(body);
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  send(response, status, 'application/json', JSON.stringify(body));
}

const PAGE_STYLE = `body{margin:0;font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;background:#f1f3f4;color:#202124}
main{max-width:420px;margin:32px auto;padding:0 16px}.card{background:#fff;border-radius:12px;box-shadow:0 2px 12px rgb(0 0 0/10%);padding:28px}
.badge{display:inline-block;background:#ffe8a3;color:#6b4e00;font-size:12px;font-weight:700;padding:4px 8px;border-radius:6px}
h1{font-size:22px;margin:14px 0 4px}p{margin:6px 0;color:#5f6368;font-size:14px}label{display:block;font-size:14px;font-weight:600;margin:16px 0 6px}
input[type=email],input[type=text]{width:100%;box-sizing:border-box;height:44px;border:1px solid #c4c7c5;border-radius:8px;padding:0 12px;font:inherit}
.check{display:flex;gap:8px;align-items:center;font-weight:500}.row{display:flex;gap:12px;margin-top:22px}
button{flex:1;height:46px;border:0;border-radius:8px;font:inherit;font-weight:700;cursor:pointer}.primary{background:#1a73e8;color:#fff}.apple .primary{background:#000}
.secondary{background:#e8eaed;color:#202124}.known{margin-top:18px}.known button{width:100%;margin-top:8px;background:#f8f9fa;border:1px solid #dadce0;text-align:left;padding:0 12px;font-weight:500}`;

function page(title: string, body: string, bodyClass = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>${PAGE_STYLE}</style></head><body class="${bodyClass}"><main>${body}</main></body></html>`;
}

/**
 * The page a popup ends on: it hands the result to the page that opened it (only at the origin
 * that page announced) and closes.
 */
function handBackPage(origin: string, message: Record<string, unknown>): string {
  const payload = JSON.stringify({ source: SANDBOX_MESSAGE_SOURCE, ...message }).replace(
    /</g,
    '\\u003c',
  );
  return page(
    'Signing in…',
    `<div class="card"><p>Signing you in…</p></div><script>
if (window.opener) window.opener.postMessage(${payload}, ${JSON.stringify(origin).replace(/</g, '\\u003c')});
window.close();
</script>`,
  );
}

/** The stand-in for https://accounts.google.com/gsi/client (the code-client part). */
function googleScript(issuer: string): string {
  return `(function () {
  var ISSUER = ${JSON.stringify(issuer)};
  var SANDBOX_ORIGIN = new URL(ISSUER).origin;
  function initCodeClient(config) {
    return {
      requestCode: function () {
        var query = new URLSearchParams({
          client_id: config.client_id,
          scope: config.scope || '',
          state: config.state || '',
          redirect_uri: 'postmessage',
          response_type: 'code',
          origin: window.location.origin
        });
        var popup = window.open(ISSUER + '/authorize?' + query.toString(), 'google-sign-in', 'width=480,height=640');
        if (!popup) { if (config.error_callback) config.error_callback({ type: 'popup_failed_to_open', message: 'Failed to open popup window' }); return; }
        var finished = false;
        function onMessage(event) {
          if (event.origin !== SANDBOX_ORIGIN || !event.data || event.data.source !== ${JSON.stringify(SANDBOX_MESSAGE_SOURCE)} || event.data.provider !== 'google') return;
          finished = true;
          window.removeEventListener('message', onMessage);
          if (event.data.error) { config.callback({ error: event.data.error, error_description: 'The user denied access', state: config.state }); return; }
          config.callback({ code: event.data.code, scope: event.data.scope, state: event.data.state });
        }
        window.addEventListener('message', onMessage);
        var watcher = setInterval(function () {
          if (!popup.closed) return;
          clearInterval(watcher);
          setTimeout(function () {
            if (finished) return;
            window.removeEventListener('message', onMessage);
            if (config.error_callback) config.error_callback({ type: 'popup_closed', message: 'Popup window closed' });
          }, 300);
        }, 250);
      }
    };
  }
  window.google = window.google || {};
  window.google.accounts = window.google.accounts || {};
  window.google.accounts.oauth2 = { initCodeClient: initCodeClient };
})();`;
}

/** The stand-in for Apple's appleid.auth.js (init + signIn with usePopup). */
function appleScript(issuer: string): string {
  return `(function () {
  var ISSUER = ${JSON.stringify(issuer)};
  var SANDBOX_ORIGIN = new URL(ISSUER).origin;
  var settings = null;
  window.AppleID = {
    auth: {
      init: function (config) { settings = config; },
      signIn: function () {
        return new Promise(function (resolve, reject) {
          if (!settings) { reject({ error: 'not_initialized' }); return; }
          var query = new URLSearchParams({
            client_id: settings.clientId,
            redirect_uri: settings.redirectURI || '',
            scope: settings.scope || '',
            state: settings.state || '',
            nonce: settings.nonce || '',
            response_type: 'code id_token',
            response_mode: 'web_message',
            origin: window.location.origin
          });
          var popup = window.open(ISSUER + '/auth/authorize?' + query.toString(), 'apple-sign-in', 'width=480,height=640');
          if (!popup) { reject({ error: 'popup_blocked_by_browser' }); return; }
          var finished = false;
          function onMessage(event) {
            if (event.origin !== SANDBOX_ORIGIN || !event.data || event.data.source !== ${JSON.stringify(SANDBOX_MESSAGE_SOURCE)} || event.data.provider !== 'apple') return;
            finished = true;
            window.removeEventListener('message', onMessage);
            if (event.data.error) { reject({ error: event.data.error }); return; }
            resolve({ authorization: event.data.authorization, user: event.data.user });
          }
          window.addEventListener('message', onMessage);
          var watcher = setInterval(function () {
            if (!popup.closed) return;
            clearInterval(watcher);
            setTimeout(function () {
              if (finished) return;
              window.removeEventListener('message', onMessage);
              reject({ error: 'popup_closed_by_user' });
            }, 300);
          }, 250);
        });
      }
    }
  };
})();`;
}

export async function startIdentitySandbox(
  options: IdentitySandboxOptions,
): Promise<IdentitySandbox> {
  const keys: Record<IdentityProvider, SigningKey> = {
    google: await makeSigningKey(),
    apple: await makeSigningKey(),
  };
  const codes = new Map<string, PendingCode>();
  /** Apple shares the email only on an identity's first sign-in. */
  const appleSubjectsSeen = new Set<string>();
  /** Identities typed on the pages, offered again as one-click choices. */
  const knownIdentities: Record<IdentityProvider, Map<string, TestIdentity>> = {
    google: new Map(),
    apple: new Map(),
  };
  const keySetFetches: Record<IdentityProvider, number> = { google: 0, apple: 0 };
  let baseUrl = '';

  // ---- Every endpoint of the sandbox, in one place; each handler is a named function below ----
  const findRoute = routeTable<PageHandler>([
    // Google
    anyMethod('/google/.well-known/openid-configuration', sendDiscovery),
    anyMethod('/google/jwks', ({ response }) => sendKeySet(response, 'google')),
    anyMethod('/google/gsi/client', ({ response }) =>
      sendScript(response, googleScript(issuerOf('google'))),
    ),
    get(AUTHORIZE_PATHS.google, (exchange) => showSignInPage(exchange, 'google')),
    post(AUTHORIZE_PATHS.google, (exchange) => signIn(exchange, 'google')),
    post('/google/token', exchangeGoogleCode),
    // Apple
    anyMethod('/apple/auth/keys', ({ response }) => sendKeySet(response, 'apple')),
    anyMethod('/apple/appleid.auth.js', ({ response }) =>
      sendScript(response, appleScript(issuerOf('apple'))),
    ),
    get(AUTHORIZE_PATHS.apple, (exchange) => showSignInPage(exchange, 'apple')),
    post(AUTHORIZE_PATHS.apple, (exchange) => signIn(exchange, 'apple')),
  ]);

  const issuerOf = (provider: IdentityProvider): string => `${baseUrl}/${provider}`;
  const clientIdOf = (provider: IdentityProvider): string => options[provider].clientId;

  function idTokenClaims(provider: IdentityProvider, identity: TestIdentity): JWTPayload {
    const now = Math.floor(Date.now() / 1000);
    const claims: JWTPayload = {
      iss: issuerOf(provider),
      aud: clientIdOf(provider),
      sub: identity.sub,
      iat: now,
      exp: now + 3600,
      auth_time: now,
    };
    if (identity.email !== undefined) {
      claims.email = identity.email;
      claims.email_verified = identity.emailVerified ?? true;
    }
    if (identity.nonce) claims.nonce = identity.nonce;
    if (provider === 'google') claims.azp = clientIdOf(provider);
    if (provider === 'google' && identity.hostedDomain) claims.hd = identity.hostedDomain;
    return claims;
  }

  async function signIdToken(
    provider: IdentityProvider,
    claims: JWTPayload,
    signOptions: { kid?: string } = {},
  ): Promise<string> {
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: signOptions.kid ?? keys[provider].kid, typ: 'JWT' })
      .sign(keys[provider].privateKey);
  }

  async function issueGoogleCode(
    identity: TestIdentity,
    codeOptions: { idToken?: string; redirectUri?: string; scope?: string } = {},
  ): Promise<string> {
    const code = `4/${randomBytes(24).toString('base64url')}`;
    codes.set(code, {
      idToken:
        codeOptions.idToken ?? (await signIdToken('google', idTokenClaims('google', identity))),
      clientId: options.google.clientId,
      redirectUri: codeOptions.redirectUri ?? 'postmessage',
      scope: codeOptions.scope ?? 'openid email profile',
      used: false,
    });
    return code;
  }

  function signInPage(
    provider: IdentityProvider,
    query: URLSearchParams,
    action: string,
    error?: string,
  ): string {
    const isGoogle = provider === 'google';
    const hidden = [...query.entries()]
      .map(
        ([name, value]) =>
          `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`,
      )
      .join('');
    const known = [...knownIdentities[provider].values()]
      .map(
        (identity) =>
          `<button type="submit" name="known" value="${escapeHtml(identity.sub)}">${escapeHtml(identity.email ?? identity.sub)}${identity.emailVerified === false ? ' (unverified)' : ''}</button>`,
      )
      .join('');
    return page(
      isGoogle ? 'Sign in – Google (sandbox)' : 'Sign in with Apple (sandbox)',
      `<div class="card"><span class="badge">TEST MODE · local identity sandbox</span>
<h1>${isGoogle ? 'Sign in with Google' : 'Sign in with Apple'}</h1>
<p>to continue to Kegel Coach. Type any test identity; nothing leaves this machine.</p>
${error ? `<p role="alert" style="color:#b3261e">${escapeHtml(error)}</p>` : ''}
<form method="post" action="${escapeHtml(action)}">${hidden}
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="off" placeholder="you@example.com">
${isGoogle ? '<label class="check"><input type="checkbox" name="email_verified" value="true" checked> Email verified</label>' : '<p>Apple shares the email only the first time an Apple ID signs in to an app.</p>'}
<label for="sub">Subject (sub), optional</label><input id="sub" name="sub" type="text" autocomplete="off" placeholder="derived from the email">
<div class="row"><button type="submit" name="decision" value="cancel" class="secondary" formnovalidate>Cancel</button><button type="submit" name="decision" value="allow" class="primary">Continue</button></div>
${known ? `<div class="known"><p>Signed in here before:</p>${known}</div>` : ''}
</form></div>`,
      isGoogle ? '' : 'apple',
    );
  }

  /** Reads the identity the person typed or picked on a sign-in page. */
  function identityFromForm(
    provider: IdentityProvider,
    form: URLSearchParams,
  ): TestIdentity | string {
    const knownSub = form.get('known');
    if (knownSub) {
      const known = knownIdentities[provider].get(knownSub);
      if (known) return known;
    }
    const email = (form.get('email') ?? '').trim();
    const typedSub = (form.get('sub') ?? '').trim();
    if (!email && !typedSub) return 'Type an email (or a subject).';
    if (email && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email))
      return 'That email does not look right.';
    const identity: TestIdentity = {
      sub: typedSub || stableSubject(provider, email),
      ...(email
        ? { email, emailVerified: provider === 'apple' || form.get('email_verified') === 'true' }
        : {}),
    };
    knownIdentities[provider].set(identity.sub, identity);
    return identity;
  }

  function html(response: ServerResponse, body: string, status = 200): void {
    send(response, status, 'text/html; charset=utf-8', body);
  }

  /** What Google's popup hands back: a code for the token endpoint. */
  async function googleAnswer(identity: TestIdentity, form: URLSearchParams) {
    const scope = form.get('scope') ?? '';
    const code = await issueGoogleCode(identity, {
      redirectUri: form.get('redirect_uri') ?? '',
      scope,
    });
    return { code, state: form.get('state') ?? '', scope };
  }

  /** What Apple's popup hands back: the identity token (its email only the first time). */
  async function appleAnswer(identity: TestIdentity, form: URLSearchParams) {
    const isFirstTime = !appleSubjectsSeen.has(identity.sub);
    appleSubjectsSeen.add(identity.sub);
    const nonce = form.get('nonce');
    const shared: TestIdentity = {
      sub: identity.sub,
      ...(isFirstTime && identity.email ? { email: identity.email, emailVerified: true } : {}),
      ...(nonce ? { nonce } : {}),
    };
    return {
      authorization: {
        code: `c${randomBytes(16).toString('hex')}`,
        id_token: await signIdToken('apple', idTokenClaims('apple', shared)),
        state: form.get('state') ?? '',
      },
      ...(isFirstTime && identity.email ? { user: { email: identity.email } } : {}),
    };
  }

  function sendDiscovery({ response }: Exchange): void {
    const issuer = issuerOf('google');
    sendJson(response, 200, {
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      jwks_uri: `${issuer}/jwks`,
      response_types_supported: ['code'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      scopes_supported: ['openid', 'email', 'profile'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      claims_supported: ['aud', 'email', 'email_verified', 'exp', 'iat', 'iss', 'sub'],
    });
  }

  function sendKeySet(response: ServerResponse, provider: IdentityProvider): void {
    keySetFetches[provider] += 1;
    sendJson(response, 200, { keys: [keys[provider].publicJwk] });
  }

  function sendScript(response: ServerResponse, script: string): void {
    send(response, 200, 'text/javascript; charset=utf-8', script);
  }

  /** The authorization endpoint's GET: the sign-in page, for the app's own origin and client. */
  function showSignInPage({ response, url }: Exchange, provider: IdentityProvider): void {
    if (!options.allowedOrigins.includes(url.searchParams.get('origin') ?? '')) {
      return html(
        response,
        page(
          'Error 400: origin_mismatch',
          `<div class="card"><h1>Error 400: origin_mismatch</h1><p>This sandbox answers only the app at ${escapeHtml(options.allowedOrigins.join(', '))}. Open the app there.</p></div>`,
        ),
        400,
      );
    }
    if (url.searchParams.get('client_id') !== clientIdOf(provider)) {
      return html(
        response,
        page(
          'Error 401: invalid_client',
          '<div class="card"><h1>Error 401: invalid_client</h1><p>The OAuth client was not found.</p></div>',
        ),
        400,
      );
    }
    html(response, signInPage(provider, url.searchParams, AUTHORIZE_PATHS[provider]));
  }

  /** The sign-in page's form: the popup hands back a code or a token, or the page again. */
  async function signIn({ request, response }: Exchange, provider: IdentityProvider) {
    const form = await readForm(request);
    const origin = form.get('origin') ?? '';
    // Codes and tokens go only to the app's own pages, never to whoever asked.
    if (!options.allowedOrigins.includes(origin)) {
      return send(response, 400, 'text/plain', 'origin_mismatch');
    }
    if (form.get('decision') === 'cancel') {
      const error = provider === 'google' ? 'access_denied' : 'user_cancelled_authorize';
      return html(response, handBackPage(origin, { provider, error }));
    }
    const identity = identityFromForm(provider, form);
    if (typeof identity === 'string') {
      const again = signInPage(provider, stripAnswers(form), AUTHORIZE_PATHS[provider], identity);
      return html(response, again);
    }
    const answer =
      provider === 'google'
        ? await googleAnswer(identity, form)
        : await appleAnswer(identity, form);
    html(response, handBackPage(origin, { provider, ...answer }));
  }

  /** Google's token endpoint: the client authenticated, each code exchanged once. */
  async function exchangeGoogleCode({ request, response }: Exchange): Promise<void> {
    const form = await readForm(request);
    let clientId = form.get('client_id') ?? '';
    let clientSecret = form.get('client_secret') ?? '';
    const basic = /^Basic (.+)$/.exec(request.headers.authorization ?? '');
    if (basic?.[1]) {
      const [id = '', secret = ''] = Buffer.from(basic[1], 'base64').toString('utf8').split(':');
      try {
        clientId = decodeURIComponent(id);
        clientSecret = decodeURIComponent(secret);
      } catch {
        return sendJson(response, 401, { error: 'invalid_client' });
      }
    }
    if (clientId !== options.google.clientId || clientSecret !== options.google.clientSecret) {
      return sendJson(response, 401, {
        error: 'invalid_client',
        error_description: 'Unauthorized',
      });
    }
    const code = codes.get(form.get('code') ?? '');
    if (
      form.get('grant_type') !== 'authorization_code' ||
      !code ||
      code.used ||
      code.clientId !== clientId ||
      code.redirectUri !== form.get('redirect_uri')
    ) {
      // Google answers a reused or unknown code the same way.
      if (code) code.used = true;
      return sendJson(response, 400, {
        error: 'invalid_grant',
        error_description: 'Bad Request',
      });
    }
    code.used = true;
    sendJson(response, 200, {
      access_token: `ya29.${randomBytes(24).toString('base64url')}`,
      token_type: 'Bearer',
      expires_in: 3599,
      scope: code.scope,
      id_token: code.idToken,
    });
  }

  const server = createServer(
    serveRoutes(
      findRoute,
      ({ response }) => send(response, 404, 'text/plain', 'Not found'),
      (response, error) => send(response, 500, 'text/plain', String(error)),
    ),
  );
  const port = await listenOnLoopback(server, options.port);
  baseUrl = `http://localhost:${port}`;

  return {
    baseUrl,
    google: { issuer: issuerOf('google'), scriptUrl: `${issuerOf('google')}/gsi/client` },
    apple: {
      issuer: issuerOf('apple'),
      jwksUrl: `${issuerOf('apple')}/auth/keys`,
      scriptUrl: `${issuerOf('apple')}/appleid.auth.js`,
    },
    keySetFetches,
    idTokenClaims,
    signIdToken,
    publicJwk: (provider) => keys[provider].publicJwk,
    issueGoogleCode: (identity, codeOptions) => issueGoogleCode(identity, codeOptions),
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

/** The authorization request again, without what the person typed (to show the page anew). */
function stripAnswers(form: URLSearchParams): URLSearchParams {
  const query = new URLSearchParams(form);
  for (const name of ['email', 'email_verified', 'sub', 'known', 'decision']) query.delete(name);
  return query;
}
