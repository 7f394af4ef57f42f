import { randomBytes } from 'node:crypto';
import type { Platform } from '../platform.ts';
import type { CliIo } from './io.ts';

/** An open platform for one command, and how to let go of it (database, Redis, PGlite lock). */
export interface CliPlatform {
  platform: Platform;
  close(): Promise<void>;
}

/**
 * What commands get from outside. `openPlatform` is replaced by tests that run commands in-process
 * against their own platform; the default opens the database the environment names.
 */
export interface CliDeps {
  openPlatform(io: CliIo): Promise<CliPlatform>;
  /** The audit entry of a state-changing command (set by `runCli` from the command's `audit`). */
  audit?: { action: string; target: string | null; merchantId: string | null };
}

/**
 * Opens the configured database (migrating it, like the server does) and builds the platform with
 * a quiet logger on stderr. The heavy modules load here, on first use, so `--help` stays quick.
 */
export async function openConfiguredPlatform(io: CliIo): Promise<CliPlatform> {
  const [{ loadConfig }, { createLogger }, { loadKeyRing }, { openDatabase }, { createPlatform }] = await Promise.all([
    import('../config/index.ts'),
    import('../logger.ts'),
    import('../crypto/keyring.ts'),
    import('../db/client.ts'),
    import('../platform.ts'),
  ]);
  const config = loadConfig(io.env, []);
  const keyRing = loadKeyRing(config);
  const logger = createLogger({ level: 'warn', stream: { write: (line: string) => void io.stderr.write(line) } });
  const database = await openDatabase(config);
  try {
    const platform = await createPlatform({ config, database, keyRing, logger });
    return {
      platform,
      async close() {
        try {
          // Closes the rate limiter's Redis connection too, which would otherwise keep the CLI running.
          await platform.close();
        } finally {
          await database.close();
        }
      },
    };
  } catch (error) {
    await database.close();
    throw error;
  }
}

export const defaultDeps: CliDeps = { openPlatform: openConfiguredPlatform };

export async function withPlatform<T>(io: CliIo, deps: CliDeps, work: (platform: Platform) => Promise<T>): Promise<T> {
  const opened = await deps.openPlatform(io);
  let failure: { code: string | null } | null = null;
  try {
    return await work(opened.platform);
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    failure = { code: typeof code === 'string' && /^[A-Z_]{1,60}$/.test(code) ? code : null };
    throw error;
  } finally {
    if (deps.audit) {
      // The exit code stands for the status: 0 done, 1 refused or failed.
      opened.platform.services.audit.record({
        merchantId: deps.audit.merchantId,
        livemode: null,
        actorType: 'operator',
        actorId: 'operator',
        action: deps.audit.action,
        target: deps.audit.target,
        address: 'cli',
        outcome: failure ? 'FAILED' : 'SUCCEEDED',
        statusCode: failure ? 1 : 0,
        errorCode: failure?.code ?? null,
        requestId: `cli_${randomBytes(12).toString('base64url')}`,
      });
      await opened.platform.services.audit.flush();
    }
    await opened.close();
  }
}
