import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { PGlite } from '@electric-sql/pglite';
import { loadConfig, ConfigError, type Config } from './config/index.ts';
import { createLogger } from './logger.ts';
import { loadKeyRing } from './crypto/keyring.ts';
import { DatabaseLockedError, openDatabase, type Database } from './db/client.ts';
import type { Platform } from './platform.ts';
import { platformSettings } from './db/schema/index.ts';

/** Creates the sandbox demo merchant on an empty database and returns what to print (once). */
async function createDemoMerchantOnce(platform: Platform): Promise<string[]> {
  const claimed = await platform.database.db
    .insert(platformSettings)
    .values({ key: 'demo_merchant_created', value: 'true', updatedAt: platform.clock.now() })
    .onConflictDoNothing()
    .returning({ key: platformSettings.key });
  if (claimed.length === 0 || (await platform.services.merchants.countMerchants()) > 0) {
    return [];
  }
  const demo = await platform.services.merchants.createMerchant({ name: 'Demo Merchant', email: 'demo@paysail.localhost' });
  return [
    `Demo merchant ${demo.merchant.id} (sandbox only; use ?livemode=false)`,
    `  API key:          ${demo.apiKey}`,
    `  Dashboard login:  ${demo.dashboardUser.email} / ${demo.dashboardUser.password}`,
    `  Try:  curl -u '${demo.apiKey}:' -H 'Content-Type: application/json' \\`,
    `          -d '{"referenceId":"user-1","signupAt":${Date.now()}}' '${platform.config.publicUrl}/v1/customers?livemode=false'`,
  ];
}

function fail(message: string): never {
  process.stderr.write(`paysail: ${message}\n`);
  process.exit(1);
}

/**
 * Starts the server (API, pages, dashboard and/or worker per the role) and returns once it listens;
 * the process then runs until SIGTERM/SIGINT. `paysail serve` / `paysail worker` call this with
 * their own environment and `--role=`.
 */
export async function main(options: { env?: Record<string, string | undefined>; argv?: readonly string[] } = {}): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(options.env ?? process.env, options.argv ?? process.argv);
  } catch (error) {
    if (error instanceof ConfigError) {
      fail(`invalid configuration: ${error.message}`);
    }
    throw error;
  }
  const logger = createLogger({ level: config.logLevel });
  let keyRing;
  try {
    keyRing = loadKeyRing(config);
  } catch (error) {
    fail(`invalid configuration: ENCRYPTION_KEYS: ${(error as Error).message}`);
  }
  // The database opens (PGlite: its WebAssembly build loads and starts) while the rest of the
  // server's modules load: the two took about as long as each other, one after the other.
  const opening = openDatabase(config);
  const loading = Promise.all([import('./platform.ts'), import('./app.ts')]);
  loading.catch(() => undefined); // awaited below, once the database is open
  let database: Database;
  try {
    database = await opening;
  } catch (error) {
    if (error instanceof DatabaseLockedError) {
      fail(error.message);
    }
    fail(`cannot open the database (${config.databaseUrl ? 'DATABASE_URL' : `PGlite in ${config.dataDir}`}): ${(error as Error).message}`);
  }
  const [{ createPlatform, scheduleMaintenance }, { buildApp }] = await loading;
  const platform = await createPlatform({ config, database, keyRing, logger });

  const banner: string[] = [];
  if (platform.adminKey.generated) {
    banner.push(`Admin API key (generated; set ADMIN_API_KEY to choose your own): ${platform.adminKey.generated}`);
  }
  // The demo merchant (on a first start) is made while the app is built: hashing its password
  // (argon2, in libuv's thread pool) and its first inserts take about as long as building the app.
  // Both are done before the server listens.
  const demoCreation = createDemoMerchantOnce(platform);
  demoCreation.catch(() => undefined); // awaited below, once the app is built
  const app = config.role === 'worker' ? null : await buildApp(platform);
  banner.push(...(await demoCreation));
  if (app) {
    await app.listen({ port: config.port, host: config.host });
  }
  if (config.role !== 'api') {
    await scheduleMaintenance(platform);
    await platform.worker.start();
  }
  // The embedded database is this process's alone: `paysail backup create` asks it for a consistent
  // snapshot through a Unix socket in DATA_DIR (decision 0024).
  const backupSocket =
    database.kind === 'pglite'
      ? await (await import('./backup/control.ts')).serveBackupSocket({ dataDir: config.dataDir, client: (database as Database & { client: PGlite }).client, logger })
      : null;
  const where = config.databaseUrl ? 'PostgreSQL' : `PGlite in ${config.dataDir}`;

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) {
      return;
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 30_000);
    force.unref();
    try {
      await app?.close();
      await backupSocket?.close();
      await platform.close();
      await database.close();
    } finally {
      process.exit(0);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  // Printed once the signal handlers are in place: whoever waits for this line may stop us at once.
  process.stdout.write(
    [
      '',
      `Paysail ${config.role === 'worker' ? 'worker' : `listening on ${config.publicUrl}`} (role ${config.role}, ${where})`,
      ...(app ? [`  API docs: ${config.publicUrl}/docs   OpenAPI: ${config.publicUrl}/openapi.json`] : []),
      ...banner,
      '',
    ].join('\n') + '\n',
  );
}

// Run only as the entry point (`tsx src/main.ts`), not when the CLI imports `main`.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  await main();
}
