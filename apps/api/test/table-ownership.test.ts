// Every table has one owning module, and only that module's SQL writes it: the other modules ask
// the owner through its public face (modules/<name>/index.ts). Read from the source, so a write
// added in the wrong place fails here, with the file that made it.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

const sourceRoot = fileURLToPath(new URL('../src', import.meta.url));

/** The owner of every table the server writes. */
const OWNERS: Record<string, string> = {
  users: 'modules/users',
  auth_sessions: 'modules/auth',
  refresh_tokens: 'modules/auth',
  one_time_codes: 'modules/auth',
  user_identities: 'modules/social',
  used_sign_in_nonces: 'modules/social',
  passkeys: 'modules/passkeys',
  passkey_challenges: 'modules/passkeys',
  purchases: 'modules/premium',
  premium_ledger: 'modules/premium',
  stripe_events: 'modules/payments',
  stripe_charges: 'modules/payments',
  stripe_disputes: 'modules/payments',
  stripe_failed_refunds: 'modules/payments',
  stripe_parked_events: 'modules/payments',
  app_store_notifications: 'modules/app-store',
  app_store_subscriptions: 'modules/app-store',
  app_store_consumption_reports: 'modules/app-store',
  stripe_customer_deletions: 'modules/account-deletion',
  two_step_authenticators: 'modules/two-step',
  two_step_recovery_codes: 'modules/two-step',
  two_step_challenges: 'modules/two-step',
  sign_in_events: 'modules/auth',
  operators: 'modules/operators',
  audit_events: 'modules/audit',
  operator_grants: 'modules/support-desk',
  outbox_emails: 'mail',
  premium_expiry_reminders: 'modules/premium-reminders',
  schema_migrations: 'db',
  job_leases: 'jobs',
  app_store_history_cursors: 'modules/app-store',
  // The development clock's one row (schema dev_clock, never in production).
  dev_clock: 'db',
};

const WRITES = [
  /\.(?:insertInto|updateTable|deleteFrom)\(\s*'(\w+)'/g,
  /\b(?:insert\s+into|delete\s+from)\s+(\w+)/gi,
  /\bupdate\s+(\w+)\s+set\b/gi,
];

function sourceFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const full = path.join(directory, name);
    if (statSync(full).isDirectory()) return name === 'migrations' ? [] : sourceFiles(full);
    return name.endsWith('.ts') ? [full] : [];
  });
}

const snakeCase = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** The module (or top-level folder) a source file belongs to. */
function ownerOf(file: string): string {
  const parts = path.relative(sourceRoot, file).split(path.sep);
  return parts[0] === 'modules' ? `modules/${parts[1]}` : parts[0]!;
}

/** Every write in the server's source: which table, from which file. */
function findTableWrites(files: readonly string[]) {
  return files.flatMap((file) => {
    const text = readFileSync(file, 'utf8').replace(/^\s*(\/\/|\*).*$/gm, '');
    return WRITES.flatMap((pattern) =>
      [...text.matchAll(pattern)].map((match) => ({
        table: snakeCase(match[1]!),
        file: path.relative(sourceRoot, file),
        owner: ownerOf(file),
      })),
    );
  });
}

describe('table ownership', () => {
  const writes = findTableWrites(sourceFiles(sourceRoot));

  it('finds the writes it checks (the scan reads the source)', () => {
    const written = new Set(writes.map((write) => write.table));
    expect([...written].sort()).toEqual(Object.keys(OWNERS).sort());
  });

  it('lets only the owning module write each table', () => {
    const strangers = writes
      .filter((write) => OWNERS[write.table] !== write.owner)
      .map((write) => `${write.file} writes ${write.table} (owned by ${OWNERS[write.table]})`);
    expect(strangers).toEqual([]);
  });
});
