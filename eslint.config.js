// One lint configuration for the whole tree. Beyond correctness it holds the boundaries the
// README's Architecture names: kebab-case file names, process.env only in config files,
// import.meta.env only in the web's config/env.ts, web imports that run shared -> features -> app,
// and the API's layers by role (routes -> rules -> repos -> db; plugins, security/, mail/ and
// http/ know no module), which apps/api/test/lint-boundaries.test.ts proves with planted files.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import checkFile from 'eslint-plugin-check-file';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import jsxA11y from 'eslint-plugin-jsx-a11y';
import reactHooks from 'eslint-plugin-react-hooks';
import i18next from 'eslint-plugin-i18next';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const webFeatures = ['marketing', 'auth', 'account', 'premium', 'purchase'];

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      'data/**',
      'test-results/**',
      'playwright-report/**',
      // Written by the generators (npm run generate:api-clients --workspace @kegel/api) and
      // compared with their fresh output by a test; type-checked, never edited by hand.
      'apps/api/test/generated-client/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.node },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { 'check-file': checkFile, 'import-x': importX },
    settings: {
      'import-x/resolver-next': [
        createTypeScriptImportResolver({
          project: ['apps/*/tsconfig.json', 'packages/*/tsconfig.json'],
          noWarnOnMultipleProjects: true,
        }),
      ],
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      // onSubmit={form.handleSubmit(async ...)} is the react-hook-form idiom.
      '@typescript-eslint/no-misused-promises': [
        'error',
        { checksVoidReturn: { attributes: false } },
      ],
      // Fastify plugins and interface implementations are async by contract, awaiting or not.
      '@typescript-eslint/require-await': 'off',
      'check-file/filename-naming-convention': [
        'error',
        { '**/*.{ts,tsx,js,mjs}': 'KEBAB_CASE' },
        { ignoreMiddleExtensions: true },
      ],
      'check-file/folder-naming-convention': ['error', { '{apps,packages}/**/': 'KEBAB_CASE' }],
      'import-x/no-cycle': 'error',
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message:
            'Read settings through config.ts (API) or config/env.ts (web): configuration is parsed once.',
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // The places that may read the environment: the parsed configurations, tooling, and the
    // test run's own settings.
    files: [
      'apps/api/src/config.ts',
      'apps/api/test/support/test-env.ts',
      'apps/api/bench/**',
      'apps/api/cluster/**',
      '**/*.config.ts',
      'scripts/**',
    ],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    files: [
      'apps/*/test/**',
      'apps/*/bench/**',
      'apps/web/e2e/**',
      '**/*.test.ts',
      '**/*.test.tsx',
    ],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      // expect.any(...) and friends are typed `any` by design.
      '@typescript-eslint/no-unsafe-assignment': 'off',
    },
  },
  {
    files: ['apps/web/src/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      ...jsxA11y.flatConfigs.recommended.rules,
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.type='MetaProperty'][property.name='env']",
          message: 'Read build settings through src/config/env.ts.',
        },
      ],
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            // shared -> features -> app, never the other way, never across features.
            {
              target: './apps/web/src/shared',
              from: ['./apps/web/src/features', './apps/web/src/app'],
            },
            { target: './apps/web/src/features', from: './apps/web/src/app' },
            ...webFeatures.map((feature) => ({
              target: `./apps/web/src/features/${feature}`,
              from: './apps/web/src/features',
              except: [`./${feature}`],
            })),
          ],
        },
      ],
    },
  },
  {
    files: ['apps/web/src/**/*.{ts,tsx}'],
    plugins: { 'jsx-a11y': jsxA11y },
  },
  {
    // Every word a person reads comes from the catalogs (README, Languages): no text written into
    // JSX, as a child or as an attribute a person reads (label, title, aria-label, placeholder…).
    // Attributes that are code (class names, paths, input modes) are left alone, and so is
    // `text(...)`, the catalogs' own function (shared/i18n/define-texts.ts).
    files: ['apps/web/src/**/*.tsx'],
    ignores: ['**/*.test.tsx', 'apps/web/src/testing/**'],
    plugins: { i18next },
    rules: {
      'i18next/no-literal-string': [
        'error',
        {
          mode: 'jsx-only',
          callees: { exclude: ['text', 'i18n(ext)?', 't'] },
          'jsx-attributes': {
            exclude: [
              'className',
              'style',
              'type',
              'key',
              'id',
              'width',
              'height',
              'to',
              'href',
              'hrefLang',
              'lang',
              'rel',
              'target',
              'role',
              'autoComplete',
              'inputMode',
              'name',
              'htmlFor',
              'variant',
              'size',
              'method',
              'data-.*',
              'aria-controls',
              'aria-describedby',
              'aria-labelledby',
              'aria-live',
              'aria-current',
              'aria-haspopup',
              'aria-hidden',
              'spellCheck',
              'autoCapitalize',
              'autoCorrect',
              'describedBy',
              'enterKeyHint',
              'pattern',
              'form',
              'viewBox',
              'd',
              'fill',
              'stroke',
              'strokeWidth',
              'strokeLinecap',
              'strokeLinejoin',
              'xmlns',
              'tone',
              'loading',
              'decoding',
              'fetchPriority',
              'accept',
              'dir',
              'scope',
              'referrerPolicy',
              'src',
              'name',
            ],
          },
        },
      ],
    },
  },
  {
    // The API's layers: routes -> services -> repos -> db. Plugins own the outside world and
    // know no module; the composition root (app.ts) is the one place that joins them.
    files: ['apps/api/src/**/*.ts'],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            {
              target: './apps/api/src/plugins',
              from: './apps/api/src/modules',
              message: 'Plugins never import modules: hand them what they need from app.ts.',
            },
            // By role, whatever the file is called: routes are routes.ts and *-routes.ts, repos
            // repo.ts and *-repo.ts, and every other module file holds rules.
            {
              target: ['./apps/api/src/modules/**/routes.ts', './apps/api/src/**/*-routes.ts'],
              from: ['./apps/api/src/modules/**/repo.ts', './apps/api/src/modules/**/*-repo.ts'],
              message: 'Routes call services, never repos.',
            },
            {
              target: ['./apps/api/src/modules/**/repo.ts', './apps/api/src/modules/**/*-repo.ts'],
              from: './apps/api/src/modules/**/!(repo|*-repo).ts',
              message: 'Repos hold SQL only: they import no rules and no routes.',
            },
            {
              target: './apps/api/src/modules/**/!(routes|*-routes).ts',
              from: [
                './apps/api/src/modules/**/routes.ts',
                './apps/api/src/modules/**/*-routes.ts',
              ],
              message: 'Rules never import routes: routes call rules, not the other way.',
            },
            {
              target: ['./apps/api/src/security', './apps/api/src/mail', './apps/api/src/http'],
              from: './apps/api/src/modules',
              message: 'security/, mail/ and http/ know no module: hand them what they need.',
            },
            {
              target: './apps/api/src/db',
              from: ['./apps/api/src/modules', './apps/api/src/plugins'],
              message: 'db/ knows no module.',
            },
          ],
        },
      ],
    },
  },
  {
    // A module reaches another only through its public face (its index.ts); the composition
    // root, modules/module-routes.ts, is the one file that joins them all.
    files: ['apps/api/src/modules/*/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^\\.\\./[a-z-]+/',
              message:
                "Another module is reached through its index.ts, its public face: import from '../<module>'.",
            },
          ],
        },
      ],
    },
  },
  {
    // One way each: cache settings on the query client, forms through useContractForm, progress
    // toasts from the mutation cache, test helpers only in tests.
    files: ['apps/web/src/features/**/*.{ts,tsx}', 'apps/web/src/app/**/*.{ts,tsx}'],
    ignores: ['**/*.test.tsx', '**/*.test.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'Property[key.name=/^(staleTime|gcTime|retry)$/]',
          message:
            'Cache time and retries are set once: use a preset of shared/query/query-client.ts.',
        },
        {
          selector: "MemberExpression[object.type='MetaProperty'][property.name='env']",
          message: 'Read build settings through src/config/env.ts.',
        },
      ],
    },
  },
  {
    files: ['apps/web/src/**/*.{ts,tsx}'],
    ignores: ['**/*.test.tsx', '**/*.test.ts', 'apps/web/src/testing/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'react-hook-form',
              importNames: ['useForm'],
              message: 'Bind a contract schema with useContractForm (shared/forms).',
            },
            {
              name: 'react-toastify',
              message:
                "Import 'react-toastify/unstyled': the main entry injects an inline <style> that the Content-Security-Policy refuses.",
            },
            {
              name: 'react-toastify/unstyled',
              allowTypeImports: true,
              message:
                'Show toasts through shared/ui/toasts.ts: the library loads with the first toast, not with every page.',
            },
            {
              name: 'zod',
              message:
                "Validate with the contract's schemas (zod/mini): classic zod is four times the weight on the first page, and compiles parsers with `new Function`, which the Content-Security-Policy refuses.",
            },
          ],
          patterns: [
            {
              group: ['**/testing/*'],
              message: 'Test helpers are for tests only.',
            },
          ],
        },
      ],
    },
  },
  {
    files: [
      'apps/web/src/shared/forms/use-contract-form.ts',
      'apps/web/src/shared/ui/toast-container.tsx',
    ],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    // Shared with the web's first pages: see the note atop packages/contract/src/fields.ts.
    files: ['packages/contract/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { name: 'zod', message: "Write the contract's schemas with 'zod/mini'." },
      ],
    },
  },
  {
    files: ['apps/web/src/config/env.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  prettier,
);
