export declare function pageFile(distDir: string, address: string, locale?: string): string;

export declare function prerenderPages(options: {
  webRoot: string;
  distDir: string;
}): Promise<Array<{ address: string; locale: string; bytes: number }>>;
