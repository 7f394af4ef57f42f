import { loadConfig } from './config/index.ts';
import { createLogger } from './logger.ts';
import { generateKeySpec, loadKeyRing, rotateKeyFile } from './crypto/keyring.ts';
import { openDatabase } from './db/client.ts';
import { createPlatform } from './platform.ts';

const usage = `Usage: npm run cli -- <command>

Commands:
  migrate                      apply database migrations
  merchants create NAME EMAIL  create a merchant (prints its API key and dashboard login once)
  merchants list               list merchants
  crypto generate-key [KID]    print a new ENCRYPTION_KEYS entry
  crypto rotate-key            add a new active key to the key file in DATA_DIR and re-encrypt all PII
  crypto reencrypt             re-encrypt all PII under the active key (after changing ENCRYPTION_KEYS)
`;

async function withPlatform<T>(work: (platform: Awaited<ReturnType<typeof createPlatform>>) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const logger = createLogger({ level: 'warn' });
  const database = await openDatabase(config);
  try {
    const platform = await createPlatform({ config, database, keyRing: loadKeyRing(config), logger });
    try {
      return await work(platform);
    } finally {
      // Closes the rate limiter's Redis connection too, which would otherwise keep the CLI running.
      await platform.close();
    }
  } finally {
    await database.close();
  }
}

async function reencrypt(): Promise<void> {
  await withPlatform(async (platform) => {
    const customers = await platform.services.customers.reencryptAll();
    const keys = await platform.services.merchants.reencryptPiiKeys();
    console.log(`re-encrypted ${customers} customers and ${keys} merchant PII keys under ${platform.keyRing.activeKeyId}`);
  });
}

async function run(argv: string[]): Promise<number> {
  const [command, sub, ...rest] = argv;
  switch (`${command ?? ''} ${sub ?? ''}`.trim()) {
    case 'migrate':
      await withPlatform(async () => console.log('migrations applied'));
      return 0;
    case 'merchants create': {
      const [name, email] = rest;
      if (!name || !email) {
        console.error('merchants create needs NAME and EMAIL');
        return 2;
      }
      await withPlatform(async (platform) => {
        const created = await platform.services.merchants.createMerchant({ name, email });
        console.log(JSON.stringify(created, null, 2));
      });
      return 0;
    }
    case 'merchants list':
      await withPlatform(async (platform) => {
        for (const merchant of await platform.services.merchants.listMerchants()) {
          console.log(`${merchant.id}\t${merchant.liveEnabled ? 'live+sandbox' : 'sandbox'}\t${merchant.name}\t${merchant.email}`);
        }
      });
      return 0;
    case 'crypto generate-key':
      console.log(generateKeySpec(rest[0] ?? `k${Date.now().toString(36)}`));
      return 0;
    case 'crypto rotate-key': {
      const config = loadConfig();
      if (config.encryptionKeys) {
        console.error('ENCRYPTION_KEYS is set: put a new key first in it (crypto generate-key), restart, then run crypto reencrypt');
        return 2;
      }
      loadKeyRing(config);
      const id = rotateKeyFile(config.dataDir);
      console.log(`new active key ${id}`);
      await reencrypt();
      return 0;
    }
    case 'crypto reencrypt':
      await reencrypt();
      return 0;
    default:
      console.log(usage);
      return command === undefined || command === 'help' || command === '--help' ? 0 : 2;
  }
}

process.exitCode = await run(process.argv.slice(2));
