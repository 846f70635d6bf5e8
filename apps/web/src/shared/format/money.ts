/** Money is in US dollars, shown with two decimals ("$9.99", "$1,234.00"). */
const US_DOLLARS = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

export function formatUsd(amount: number): string {
  return US_DOLLARS.format(amount);
}
