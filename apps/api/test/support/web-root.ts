import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';

/** The build's index.html, in English. */
export const INDEX_HTML = '<!doctype html><title>Kegel Coach</title><div id="root"></div>';
/** The build's copy of index.html for /auth/login, which also preloads that page's code. */
export const LOGIN_HTML =
  '<!doctype html><title>Kegel Coach</title><link rel="modulepreload" href="/assets/login-page-XyZ.js"><div id="root"></div>';
export const ASSET_JS = `console.log(${JSON.stringify('x'.repeat(4000))});\n//# sourceMappingURL=index-AbC123.js.map`;
export const SOURCE_MAP = JSON.stringify({
  version: 3,
  sources: ['../../src/main.tsx'],
  mappings: '',
});

/** A page's copy in another language, told apart by its title. */
export const indexIn = (language: string): string =>
  INDEX_HTML.replace('<title>', `<title lang="${language}">`);
export const loginIn = (language: string): string =>
  LOGIN_HTML.replace('<title>', `<title lang="${language}">`);

/** One build's time, to the second, as an archive or an image layer may keep it. */
export const BUILT_AT = new Date('2026-11-26T16:00:00Z');

/**
 * A built web app in miniature, laid out as `vite build`, prerender and precompress leave
 * apps/web/dist: index.html and /auth/login's page in English, German and Spanish (with their
 * .br/.gz twins), a hashed script with its source map, and a folder beside the languages that no
 * cookie may ever choose. The caller removes it.
 */
export function writeFixtureWebRoot(): string {
  const root = mkdtempSync(path.join(tmpdir(), 'kegel-web-'));
  const write = (file: string, content: string | Buffer): void => {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
  };
  const page = (file: string, html: string): void => {
    write(file, html);
    utimesSync(file, BUILT_AT, BUILT_AT);
    write(`${file}.br`, brotliCompressSync(html));
    write(`${file}.gz`, gzipSync(html));
  };
  page(path.join(root, 'index.html'), INDEX_HTML);
  page(path.join(root, 'pages', 'auth', 'login.html'), LOGIN_HTML);
  for (const language of ['de', 'es']) {
    page(path.join(root, 'languages', language, 'index.html'), indexIn(language));
    page(path.join(root, 'languages', language, 'pages', 'auth', 'login.html'), loginIn(language));
  }
  write(path.join(root, 'secret', 'index.html'), 'SECRET');
  write(path.join(root, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  const assets = path.join(root, 'assets');
  write(path.join(assets, 'index-AbC123.js'), ASSET_JS);
  write(path.join(assets, 'index-AbC123.js.br'), brotliCompressSync(ASSET_JS));
  write(path.join(assets, 'index-AbC123.js.map'), SOURCE_MAP);
  write(path.join(assets, 'index-AbC123.js.map.br'), brotliCompressSync(SOURCE_MAP));
  write(path.join(assets, 'index-AbC123.js.map.gz'), gzipSync(SOURCE_MAP));
  return root;
}
