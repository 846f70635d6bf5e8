// Measured once for issue 29 (docs/decisions/025): the JavaScript each i18n library adds to a
// minimal React 19 + Vite page, beside that page without one. Its libraries are not the
// product's: run it in a folder of its own after
// `npm install vite @vitejs/plugin-react react react-dom i18next react-i18next i18next-icu
// intl-messageformat @lingui/core @lingui/react @lingui/message-utils`.
// Measures the JavaScript each i18n library adds to a minimal React 19 + Vite production build.
// Usage: node measure.mjs   (needs vite, @vitejs/plugin-react, react, react-dom, i18next, react-i18next,
// i18next-icu, intl-messageformat, @lingui/core, @lingui/react, @lingui/message-utils installed)
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { compileMessage } from '@lingui/message-utils/compileMessage';
import react from '@vitejs/plugin-react';
import { build } from 'vite';

const ROOT = join(import.meta.dirname, 'variants');
const GREETING = 'Welcome back';
const DAYS_ICU = '{count, plural, one {# day} other {# days}}';
const render = (hook, greet, days) => `
export function App({ count = 3 }) {${hook}
  return <main><h1>{${greet}}</h1><p>{${days}}</p></main>;
}
createRoot(document.getElementById('root')).render(<App />);`;
const head = `import { createRoot } from 'react-dom/client';\n`;
const linguiSetup = `import { i18n } from '@lingui/core';
i18n.load('en', ${JSON.stringify({ greeting: compileMessage(GREETING), days: compileMessage(DAYS_ICU) })});
i18n.activate('en');\n`;
const i18nextInit = (resources, extra = '') => `import i18n from 'i18next';
import { initReactI18next, useTranslation } from 'react-i18next';
${extra}i18n.use(initReactI18next).init({ lng: 'en', initImmediate: false,
  resources: { en: { translation: ${JSON.stringify(resources)} } }, interpolation: { escapeValue: false } });\n`;

const variants = {
  reference: head + render('', `'${GREETING}'`, '`${count} ${count === 1 ? "day" : "days"}`'),
  'i18next-native':
    head +
    i18nextInit({ greeting: GREETING, days_one: '{{count}} day', days_other: '{{count}} days' }) +
    render('\n  const { t } = useTranslation();', "t('greeting')", "t('days', { count })"),
  'i18next-icu':
    head +
    i18nextInit(
      { greeting: GREETING, days: DAYS_ICU },
      "import ICU from 'i18next-icu';\ni18n.use(ICU);\n",
    ) +
    render('\n  const { t } = useTranslation();', "t('greeting')", "t('days', { count })"),
  'lingui-react':
    head +
    linguiSetup +
    `import { I18nProvider, useLingui } from '@lingui/react';\n` +
    render(
      '\n  const { i18n } = useLingui();',
      "i18n._('greeting')",
      "i18n._('days', { count })",
    ).replace('<App />', '<I18nProvider i18n={i18n}><App /></I18nProvider>'),
  'lingui-core':
    head +
    linguiSetup +
    `import { useSyncExternalStore } from 'react';
const subscribe = (cb) => i18n.on('change', cb);
const useLocale = () => useSyncExternalStore(subscribe, () => i18n.locale);\n` +
    render('\n  useLocale();', "i18n._('greeting')", "i18n._('days', { count })"),
};

rmSync(ROOT, { recursive: true, force: true });
const rows = [];
for (const [name, main] of Object.entries(variants)) {
  const dir = join(ROOT, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'index.html'),
    '<!doctype html><html><body><div id="root"></div><script type="module" src="/main.jsx"></script></body></html>',
  );
  writeFileSync(join(dir, 'main.jsx'), main);
  await build({
    root: dir,
    configFile: false,
    logLevel: 'warn',
    mode: 'production',
    plugins: [react()],
    build: { outDir: 'dist', emptyOutDir: true },
  });
  const assets = join(dir, 'dist/assets');
  let raw = 0,
    gz = 0;
  for (const f of readdirSync(assets).filter((f) => f.endsWith('.js'))) {
    const buf = readFileSync(join(assets, f));
    raw += buf.length;
    gz += gzipSync(buf, { level: 9 }).length;
  }
  rows.push({ name, raw, gz });
}
const ref = rows[0];
const kb = (n) => (n / 1024).toFixed(2); // KB = 1024 B, like scripts/measure-bundle.mjs
const sign = (n) => (n >= 0 ? '+' : '') + kb(n);
console.log('| variant | raw KB | gzip-9 KB | Δ raw KB | Δ gzip-9 KB |\n|---|---:|---:|---:|---:|');
for (const r of rows)
  console.log(
    `| ${r.name} | ${kb(r.raw)} | ${kb(r.gz)} | ${sign(r.raw - ref.raw)} | ${sign(r.gz - ref.gz)} |`,
  );
