import type { ColumnType, Generated } from 'kysely';

/**
 * The tables as Kysely sees them. Columns are snake_case in SQL (migrations/) and camelCase here
 * (Kysely's CamelCasePlugin translates). Keep this file in step with the migrations.
 */
export interface Database {
  schemaMigrations: SchemaMigrationsTable;
  plans: PlansTable;
}

export interface SchemaMigrationsTable {
  name: string;
  appliedAt: ColumnType<Date, never, never>;
}

export interface PlansTable {
  id: string;
  name: string;
  days: number;
  /** Integer cents: money is never a float in storage. */
  priceCents: number;
  currency: string;
  createdAt: Generated<Date>;
}
