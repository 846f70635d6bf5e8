export declare const INITIAL_JAVASCRIPT_BUDGETS_KB: Readonly<Record<string, number>>;

export declare const BEFORE_THE_DESK: Readonly<Record<string, { raw: number; gzip: number }>>;

export declare const STILL_OVER_BEFORE_THE_DESK: Readonly<
  Record<string, { raw: number; gzip: number }>
>;

export declare const GROWN_FOR_MONEY_OPERATIONS: Readonly<
  Record<string, { raw: number; gzip: number }>
>;

export declare const GROWN_FOR_FIELD_MESSAGES: Readonly<
  Record<string, { raw: number; gzip: number }>
>;

export declare const GROWN_FOR_LANGUAGES: Readonly<Record<string, { raw: number; gzip: number }>>;

export declare const GROWN_FOR_QUICK_PAGES: Readonly<Record<string, { raw: number; gzip: number }>>;
export declare const GROWN_FOR_LAZY_SCHEMAS: Readonly<
  Record<string, { raw: number; gzip: number }>
>;

export declare const NOT_FOR_HOME: RegExp;

export declare const DESK_MODULE: RegExp;

export declare function deskFiles(distDir: string): string[];

export interface InitialJavaScript {
  address: string;
  files: Array<{ file: string; raw: number; gzip: number }>;
  raw: number;
  gzip: number;
  preloaded: string[];
}

export declare function measureInitialJavaScript(distDir: string): InitialJavaScript[];
