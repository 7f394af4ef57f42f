import { defineConfig } from 'drizzle-kit';

// One schema, one migration set: applied by src/db/migrate.ts to PGlite and PostgreSQL alike.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema/index.ts',
  out: './src/db/migrations',
});
