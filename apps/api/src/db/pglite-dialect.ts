import { type PGlite, parse, protocol } from '@electric-sql/pglite';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type Driver,
  type Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
  type TransactionSettings,
  CompiledQuery as Compiled,
} from 'kysely';

import { preparedNameOf } from './prepared-statements';

/**
 * Kysely over embedded PGlite. PGlite is one PostgreSQL backend in this process, so it is one
 * session: a transaction opened with BEGIN would see the statements of any concurrent request.
 * The driver therefore lends its single connection to one caller at a time (a FIFO queue), which
 * is what a pool of size one does for node-postgres.
 */
export class PGliteDialect implements Dialect {
  constructor(private readonly pglite: PGlite) {}

  createAdapter(): PostgresAdapter {
    return new PostgresAdapter();
  }

  createDriver(): Driver {
    return new PGliteDriver(this.pglite);
  }

  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new PostgresIntrospector(db);
  }

  createQueryCompiler(): PostgresQueryCompiler {
    return new PostgresQueryCompiler();
  }
}

class PGliteDriver implements Driver {
  private readonly connection: PGliteConnection;
  private readonly waiting: Array<() => void> = [];
  private isLent = false;

  constructor(private readonly pglite: PGlite) {
    this.connection = new PGliteConnection(pglite);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    if (this.isLent) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    this.isLent = true;
    return this.connection;
  }

  async releaseConnection(): Promise<void> {
    const next = this.waiting.shift();
    if (next) next();
    else this.isLent = false;
  }

  async beginTransaction(
    connection: DatabaseConnection,
    settings: TransactionSettings,
  ): Promise<void> {
    const isolation = settings.isolationLevel ? ` isolation level ${settings.isolationLevel}` : '';
    await connection.executeQuery(Compiled.raw(`begin${isolation}`));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(Compiled.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(Compiled.raw('rollback'));
  }

  /** Kysely's destroy() ends here: the dialect owns the PGlite instance and closes it. */
  async destroy(): Promise<void> {
    await this.pglite.close();
  }
}

class PGliteConnection implements DatabaseConnection {
  /** The prepared statements this PGlite instance has parsed (prepared-statements.ts). */
  private readonly prepared = new Set<string>();

  constructor(private readonly pglite: PGlite) {}

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const preparedName = preparedNameOf(compiledQuery.sql);
    if (preparedName) return this.executePrepared<R>(preparedName, compiledQuery);
    if (compiledQuery.parameters.length === 0) {
      // No parameters: the simple protocol, which also runs a multi-statement migration file.
      const results = await this.pglite.exec(compiledQuery.sql);
      const last = results.at(-1);
      return {
        rows: (last?.rows ?? []) as R[],
        numAffectedRows: BigInt(last?.affectedRows ?? 0),
      };
    }
    const result = await this.pglite.query<R>(compiledQuery.sql, [...compiledQuery.parameters]);
    return { rows: result.rows, numAffectedRows: BigInt(result.affectedRows ?? 0) };
  }

  /**
   * A registered statement, through PostgreSQL's extended protocol: Parse once under its name,
   * then Bind and Execute it. PGlite's query() parses and plans the text on every call.
   */
  private async executePrepared<R>(
    name: string,
    compiledQuery: CompiledQuery,
  ): Promise<QueryResult<R>> {
    const { serialize } = protocol;
    if (!this.prepared.has(name)) {
      await this.pglite.execProtocol(
        joinMessages(serialize.parse({ name, text: compiledQuery.sql }), serialize.sync()),
      );
      this.prepared.add(name);
    }
    const { messages } = await this.pglite.execProtocol(
      joinMessages(
        serialize.bind({ statement: name, values: compiledQuery.parameters.map(asText) }),
        serialize.describe({ type: 'P' }),
        serialize.execute({}),
        serialize.sync(),
      ),
    );
    const [result] = parse.parseResults(messages, this.pglite.parsers);
    return {
      rows: (result?.rows ?? []) as R[],
      numAffectedRows: BigInt(result?.affectedRows ?? 0),
    };
  }

  // eslint-disable-next-line require-yield -- streaming is not used by this product
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('PGliteDialect does not support streaming queries');
  }
}

function joinMessages(...messages: Uint8Array[]): Uint8Array {
  const joined = new Uint8Array(messages.reduce((length, message) => length + message.length, 0));
  let offset = 0;
  for (const message of messages) {
    joined.set(message, offset);
    offset += message.length;
  }
  return joined;
}

/** A parameter in PostgreSQL's text format, as PGlite's query() would send it. */
function asText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    return String(value);
  }
  throw new TypeError('prepared statements take text, numbers, booleans and dates only');
}
