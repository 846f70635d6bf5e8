import { encode } from 'uqr';

/**
 * A QR code drawn as one SVG path, from the text it holds (an authenticator's `otpauth://` URL).
 * Drawn in the browser: the secret never goes to a QR service. `uqr` is only in Account
 * Settings' code, which loads lazily, never with the sign-in page.
 */
export function QrCode({ text, label }: { text: string; label: string }): React.JSX.Element {
  const { data, size } = encode(text, { ecc: 'M', border: 2 });
  const modules = data
    .flatMap((row, y) => row.map((isDark, x) => (isDark ? `M${x} ${y}h1v1h-1z` : '')))
    .join('');
  return (
    <svg
      role="img"
      aria-label={label}
      viewBox={`0 0 ${size} ${size}`}
      width={192}
      height={192}
      shapeRendering="crispEdges"
    >
      <rect width={size} height={size} fill="#fff" />
      <path d={modules} fill="#000" />
    </svg>
  );
}
