import type { ReactNode, SVGProps } from 'react';

export type IconProps = SVGProps<SVGSVGElement>;

/** Stroke icons of the set: 24×24, currentColor, hidden from screen readers. */
export function makeStrokeIcon(paths: ReactNode): (props: IconProps) => React.JSX.Element {
  return function StrokeIcon(props: IconProps): React.JSX.Element {
    return (
      <svg
        viewBox="0 0 24 24"
        width="20"
        height="20"
        fill="none"
        stroke="currentColor"
        strokeWidth="2"
        strokeLinecap="round"
        strokeLinejoin="round"
        aria-hidden="true"
        focusable="false"
        {...props}
      >
        {paths}
      </svg>
    );
  };
}
