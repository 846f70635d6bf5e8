// The API's layers are held by lint (eslint.config.js), by the role a file plays whatever it is
// called: each import below breaks one rule, as a file at that place in the tree, and must be
// refused with that rule's message. The planted files are never written: ESLint reads them as
// text at the path given.
import { fileURLToPath } from 'node:url';

import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const eslint = new ESLint({
  cwd: root,
  // The type-aware rules need a file on disk; the boundaries do not.
  overrideConfig: [
    {
      files: ['apps/api/src/**/planted-*.ts'],
      languageOptions: { parserOptions: { projectService: false, project: null } },
      rules: Object.fromEntries(
        [
          '@typescript-eslint/await-thenable',
          '@typescript-eslint/no-floating-promises',
          '@typescript-eslint/no-misused-promises',
          '@typescript-eslint/no-unsafe-assignment',
          '@typescript-eslint/no-unsafe-call',
          '@typescript-eslint/no-unsafe-member-access',
          '@typescript-eslint/no-unsafe-return',
          '@typescript-eslint/no-unsafe-argument',
          '@typescript-eslint/unbound-method',
          '@typescript-eslint/no-unnecessary-type-assertion',
          '@typescript-eslint/restrict-template-expressions',
          '@typescript-eslint/no-base-to-string',
          '@typescript-eslint/no-redundant-type-constituents',
          '@typescript-eslint/no-duplicate-type-constituents',
          '@typescript-eslint/no-implied-eval',
          '@typescript-eslint/only-throw-error',
          '@typescript-eslint/prefer-promise-reject-errors',
          '@typescript-eslint/require-await',
          '@typescript-eslint/no-unsafe-enum-comparison',
          '@typescript-eslint/no-unsafe-unary-minus',
          '@typescript-eslint/no-array-delete',
          '@typescript-eslint/no-for-in-array',
          '@typescript-eslint/restrict-plus-operands',
          '@typescript-eslint/no-unused-vars',
        ].map((rule) => [rule, 'off']),
      ),
    },
  ],
});

const BOUNDARY_RULES = ['import-x/no-restricted-paths', 'no-restricted-imports'];

const planted = [
  {
    what: 'a route importing a repo',
    path: 'apps/api/src/modules/social/planted-routes.ts',
    code: "export * from './repo';",
    message: 'Routes call services, never repos.',
  },
  {
    what: 'a route importing a *-repo.ts',
    path: 'apps/api/src/modules/users/planted-routes.ts',
    code: "export * from './export-repo';",
    message: 'Routes call services, never repos.',
  },
  {
    what: 'a repo importing routes',
    path: 'apps/api/src/modules/auth/planted-repo.ts',
    code: "export * from './routes';",
    message: 'Repos hold SQL only: they import no rules and no routes.',
  },
  {
    what: 'a *-repo.ts importing a rules file',
    path: 'apps/api/src/modules/users/planted-repo.ts',
    code: "export * from '../auth/credential-checks';",
    message: 'Repos hold SQL only: they import no rules and no routes.',
  },
  {
    what: 'a rules file importing routes',
    path: 'apps/api/src/modules/auth/planted-rules.ts',
    code: "export * from '../payments/routes';",
    message: 'Rules never import routes: routes call rules, not the other way.',
  },
  {
    what: 'security/ importing a service',
    path: 'apps/api/src/security/planted-helper.ts',
    code: "export * from '../modules/auth/service';",
    message: 'security/, mail/ and http/ know no module: hand them what they need.',
  },
  {
    what: 'mail/ importing a service',
    path: 'apps/api/src/mail/planted-helper.ts',
    code: "export * from '../modules/payments/service';",
    message: 'security/, mail/ and http/ know no module: hand them what they need.',
  },
  {
    what: "a module reaching into another's files",
    path: 'apps/api/src/modules/auth/planted-rules.ts',
    code: "export * from '../users/repo';",
    message:
      "Another module is reached through its index.ts, its public face: import from '../<module>'.",
  },
  {
    what: 'a plugin importing a module',
    path: 'apps/api/src/plugins/planted-plugin.ts',
    code: "export * from '../modules/auth/service';",
    message: 'Plugins never import modules: hand them what they need from app.ts.',
  },
];

describe('the API layers in lint', () => {
  it.each(planted)('refuses $what', async ({ path, code, message }) => {
    const [result] = await eslint.lintText(code, { filePath: `${root}${path}` });
    const refusals = (result?.messages ?? [])
      .filter((problem) => BOUNDARY_RULES.includes(problem.ruleId ?? ''))
      .map((problem) => problem.message);
    expect(refusals.join('\n')).toContain(message);
  });

  it('lets a rules file use a repo and a route use a service', async () => {
    const [result] = await eslint.lintText(
      "export * from './session-repo';\nexport * from './service';",
      {
        filePath: `${root}apps/api/src/modules/auth/planted-rules.ts`,
      },
    );
    expect(
      (result?.messages ?? []).filter(
        (problem) => problem.ruleId === 'import-x/no-restricted-paths',
      ),
    ).toEqual([]);
  });
});
