// A readable name for the device a session began on ("Chrome on macOS"), from its User-Agent,
// for "Where you're signed in". Parsed once at sign-in with bowser, a maintained parser.
import Bowser from 'bowser';

const UNKNOWN = 'Unknown device';

export function deviceLabel(userAgent: string | undefined): string {
  if (!userAgent) return UNKNOWN;
  const { browser, os } = Bowser.parse(userAgent);
  const system = os.name;
  if (browser.name && system) return `${browser.name} on ${system}`;
  return browser.name ?? system ?? UNKNOWN;
}
