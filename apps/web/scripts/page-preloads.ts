// A Vite plugin: for each address of the app, a copy of the built index.html that also asks for
// the code of the page shown there (`<link rel="modulepreload">` for its chunks and their static
// imports, `<link rel="stylesheet">` for their CSS), written to dist/pages/<address>.html. Without
// it the browser learns of a page's chunks only once the entry has run and the router has asked
// for them: a second round trip before the first paint. The API answers each address with its
// copy (apps/api/src/plugins/web-app.ts); any other address gets index.html.
import path from 'node:path';

import type { Plugin, ResolvedConfig } from 'vite';

/** Where the copies go, under dist/: the server reads this folder. */
export const PAGES_FOLDER = 'pages';
/** The table of modules by address, under dist/. */
export const PAGE_MODULES_FILE = '.vite/page-modules.json';

interface BuiltChunk {
  type: 'chunk';
  fileName: string;
  isEntry: boolean;
  facadeModuleId: string | null;
  imports: string[];
  viteMetadata?: { importedCss: Set<string> };
}

export function pagePreloads(
  pageModulesByPath: Readonly<Record<string, readonly string[]>>,
): Plugin {
  let config: ResolvedConfig;
  return {
    name: 'kegel:page-preloads',
    // The browser's build only: the prerender's build for Node (scripts/prerender.mjs) has no HTML.
    apply: (_config, { command, isSsrBuild }) => command === 'build' && !isSsrBuild,
    configResolved(resolved) {
      config = resolved;
    },
    generateBundle: {
      // After Vite's own HTML plugin has written index.html into the bundle.
      order: 'post',
      handler(_options, bundle) {
        const html = bundle['index.html'];
        if (html?.type !== 'asset' || typeof html.source !== 'string') {
          this.error('index.html is not in the bundle');
        }
        const chunks = Object.values(bundle).filter(
          (output): output is typeof output & BuiltChunk => output.type === 'chunk',
        );
        const byModule = new Map(
          chunks
            .filter((chunk) => chunk.facadeModuleId)
            .map((chunk) => [path.relative(config.root, chunk.facadeModuleId ?? ''), chunk]),
        );
        const byFile = new Map(chunks.map((chunk) => [chunk.fileName, chunk]));

        /** The chunk and every chunk it imports statically, each once. */
        function withStaticImports(chunk: BuiltChunk, into: Set<BuiltChunk>): Set<BuiltChunk> {
          if (into.has(chunk)) return into;
          into.add(chunk);
          for (const file of chunk.imports) {
            const imported = byFile.get(file);
            if (imported) withStaticImports(imported, into);
          }
          return into;
        }

        // What index.html already loads: the entry and its static imports, with their CSS.
        const loadedByEntry = new Set<BuiltChunk>();
        for (const chunk of chunks.filter((candidate) => candidate.isEntry)) {
          withStaticImports(chunk, loadedByEntry);
        }
        const cssOf = (chunk: BuiltChunk): string[] => [...(chunk.viteMetadata?.importedCss ?? [])];
        const cssLoadedByEntry = new Set([...loadedByEntry].flatMap(cssOf));

        for (const [address, modules] of Object.entries(pageModulesByPath)) {
          const pageChunks = new Set<BuiltChunk>();
          for (const module of modules) {
            const chunk = byModule.get(module);
            if (!chunk) this.error(`${address}: no chunk was built for ${module}`);
            withStaticImports(chunk, pageChunks);
          }
          const scripts = [...pageChunks].filter((chunk) => !loadedByEntry.has(chunk));
          const styles = [...new Set(scripts.flatMap(cssOf))].filter(
            (file) => !cssLoadedByEntry.has(file),
          );
          const tags = [
            ...scripts.map(
              (chunk) =>
                `<link rel="modulepreload" crossorigin href="${config.base}${chunk.fileName}">`,
            ),
            ...styles.map(
              (file) => `<link rel="stylesheet" crossorigin href="${config.base}${file}">`,
            ),
          ];
          this.emitFile({
            type: 'asset',
            fileName: `${PAGES_FOLDER}${address}.html`,
            source: html.source.replace('</head>', `  ${tags.join('\n    ')}\n  </head>`),
          });
        }
        // Beside Vite's manifest, for scripts/initial-javascript.mjs to tell what each page loads.
        this.emitFile({
          type: 'asset',
          fileName: PAGE_MODULES_FILE,
          source: `${JSON.stringify(pageModulesByPath, null, 2)}\n`,
        });
      },
    },
  };
}
