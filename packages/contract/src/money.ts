// Money in any currency, written once for the API and the web. Every stored amount is an integer
// count of its currency's minor units as Stripe counts them (docs/payments.md: "Amounts and
// currencies"): 999 USD is $9.99, 1000 JPY is ¥1,000, 1000 BHD is 1.000 BHD. Apple's `price` is
// in milliunits whatever the currency, and becomes minor units once, when it is recorded.

/** Stripe's zero-decimal currencies: an amount of 1 is one yen, one won (stripe.com/docs/currencies). */
const ZERO_DECIMAL = new Set([
  'bif', 'clp', 'djf', 'gnf', 'jpy', 'kmf', 'krw', 'mga', 'pyg', 'rwf', 'ugx', 'vnd', 'vuv',
  'xaf', 'xof', 'xpf',
]); // prettier-ignore

/** Stripe's three-decimal currencies: an amount of 1000 is one dinar. */
const THREE_DECIMAL = new Set(['bhd', 'jod', 'kwd', 'omr', 'tnd']);

/**
 * How many decimals a currency's minor unit has in Stripe's API: 0, 3, or 2 for every other
 * (ISK and HUF included: Stripe counts them in hundredths although nobody pays a fraction).
 */
export function minorUnitDigits(currency: string): 0 | 2 | 3 {
  const code = currency.toLowerCase();
  if (ZERO_DECIMAL.has(code)) return 0;
  if (THREE_DECIMAL.has(code)) return 3;
  return 2;
}

/** An amount in minor units as a number of whole units: 999 USD → 9.99, 1000 JPY → 1000. */
export function fromMinorUnits(amount: number, currency: string): number {
  const digits = minorUnitDigits(currency);
  // Rounded to the currency's digits: 999 / 100 must read 9.99, never 9.990000000000002.
  return Number((amount / 10 ** digits).toFixed(digits));
}

/** Whole units (as a person types them: 4.99) in minor units: 499 USD, 5 JPY, 4990 KWD. */
export function toMinorUnits(amount: number, currency: string): number {
  return Math.round(amount * 10 ** minorUnitDigits(currency));
}

/** Apple's `price` (milliunits of any currency: 1000 is one unit) in minor units. */
export function minorUnitsFromMilliunits(milliunits: number, currency: string): number {
  return Math.round(milliunits / 10 ** (3 - minorUnitDigits(currency)));
}

/** Minor units as Apple's milliunits: what the App Store sandbox lists a plan's price as. */
export function milliunitsFromMinorUnits(amount: number, currency: string): number {
  return amount * 10 ** (3 - minorUnitDigits(currency));
}

/**
 * An amount in minor units as a person reads it: "$9.99", "¥1,000", "BHD 1.500". Intl chooses
 * the decimals shown (ISO 4217's), which for ISK differ from the hundredths Stripe counts.
 */
export function formatMoney(amount: number, currency: string): string {
  const units = fromMinorUnits(amount, currency);
  try {
    return new Intl.NumberFormat('en-US', {
      style: 'currency',
      currency: currency.toUpperCase(),
    }).format(units);
  } catch {
    // A currency code Intl does not know: the number and the code.
    return `${units.toFixed(minorUnitDigits(currency))} ${currency.toUpperCase()}`;
  }
}
