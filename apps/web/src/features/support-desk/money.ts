/** An amount in cents of a currency, as the desk shows it: "$9.99", "€4.00". */
export function formatMoney(cents: number, currency: string): string {
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency }).format(cents / 100);
  } catch {
    // A currency code Intl does not know: the number and the code.
    return `${(cents / 100).toFixed(2)} ${currency.toUpperCase()}`;
  }
}
