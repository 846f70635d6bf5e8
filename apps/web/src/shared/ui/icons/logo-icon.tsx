import type { SVGProps } from 'react';

/** The product mark: an arc of strength over a steady core. */
export function LogoIcon(props: SVGProps<SVGSVGElement>): React.JSX.Element {
  return (
    <svg viewBox="0 0 32 32" width="36" height="36" aria-hidden="true" focusable="false" {...props}>
      <rect width="32" height="32" rx="8" fill="#0f2a43" />
      <path
        d="M9 22c0-6 3-12 7-12s7 6 7 12"
        fill="none"
        stroke="#3cc5a6"
        strokeWidth="3"
        strokeLinecap="round"
      />
      <circle cx="16" cy="22" r="3" fill="#fff" />
    </svg>
  );
}
