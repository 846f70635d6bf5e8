// Stand-ins for Google's and Apple's sign-in scripts in Vitest. jsdom loads no scripts, so the
// test plays the browser: when the page adds the provider's <script>, the stand-in is put on
// `window` and the script's `load` fires. Each test gets its own script URL, because the page
// loads a URL once and remembers it.
import type {
  AppleSignInResponse,
  GoogleCodeResponse,
} from '../features/auth/social/provider-scripts';

let scriptCount = 0;

function serveScript(install: () => void): string {
  scriptCount += 1;
  const url = `https://provider.test/script-${scriptCount}.js`;
  const observer = new MutationObserver((records) => {
    for (const node of records.flatMap((record) => [...record.addedNodes])) {
      if (node instanceof HTMLScriptElement && node.src === url) {
        observer.disconnect();
        install();
        node.dispatchEvent(new Event('load'));
      }
    }
  });
  observer.observe(document.head, { childList: true });
  return url;
}

/**
 * Google Identity Services' code client: its popup "answers" with what `respond` returns for the
 * state the page sent (a code, or an error such as access_denied when the person cancels).
 */
export function serveGoogleScript(
  respond: (request: { scope: string; state: string }) => GoogleCodeResponse,
): string {
  return serveScript(() => {
    window.google = {
      accounts: {
        oauth2: {
          initCodeClient: (config) => ({
            requestCode: () => {
              setTimeout(() => config.callback(respond(config)), 0);
            },
          }),
        },
      },
    };
  });
}

/** Sign in with Apple JS: signIn resolves with what `respond` makes of the init settings. */
export function serveAppleScript(
  respond: (settings: {
    state: string;
    nonce: string;
    scope: string;
  }) => AppleSignInResponse | Promise<AppleSignInResponse>,
): string {
  return serveScript(() => {
    let settings = { state: '', nonce: '', scope: '' };
    window.AppleID = {
      auth: {
        init: (config) => {
          settings = config;
        },
        signIn: async () => respond(settings),
      },
    };
  });
}
