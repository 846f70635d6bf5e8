// Statements the server runs on every signed-in request, prepared once per database connection:
// PostgreSQL then parses and plans them once instead of on each call (on PGlite the plan was two
// thirds of the session check's time). A statement is known by its SQL text: both dialects look
// the text up here and run it as a named prepared statement, everything else as before.
const namesBySql = new Map<string, string>();

/** Registers `sql` as the prepared statement `name`; answers the text, for CompiledQuery.raw. */
export function preparedStatement(name: string, sql: string): string {
  const known = namesBySql.get(sql);
  if (known && known !== name) throw new Error(`statement already prepared as ${known}`);
  namesBySql.set(sql, name);
  return sql;
}

/** The name `sql` was prepared under, if it was. */
export function preparedNameOf(sql: string): string | undefined {
  return namesBySql.get(sql);
}
