import fp from 'fastify-plugin';

import type { DatabaseConfig } from '../config';
import { type DatabaseHandle, openDatabase } from '../db/database';

declare module 'fastify' {
  interface FastifyInstance {
    database: DatabaseHandle;
  }
}

/** Opens and migrates the database before the server answers; closes it when the server closes. */
export const databasePlugin = fp<{ config: DatabaseConfig }>(
  async function databasePlugin(app, { config }) {
    const database = await openDatabase(config);
    if (database.appliedMigrations.length > 0) {
      app.log.info({ migrations: database.appliedMigrations }, 'database migrated');
    }
    app.decorate('database', database);
    app.addHook('onClose', async () => {
      await database.close();
    });
  },
  { name: 'database' },
);
