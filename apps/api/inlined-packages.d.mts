export declare const INLINED_PACKAGES: readonly string[];
export declare function isInlined(specifier: string): boolean;
