import { integerFlag, stringFlag } from './args.ts';
import type { Command, CommandContext } from './command.ts';
import { exitCodes, writeLine } from './io.ts';

const roles = ['all', 'api', 'worker'] as const;

/** Runs src/main.ts's server in this process with the command's role, port and host. */
async function startServer(context: CommandContext, role: string): Promise<number> {
  const env = { ...context.io.env };
  const host = stringFlag(context.args, 'host');
  if (stringFlag(context.args, 'port') !== undefined) {
    env.PORT = String(integerFlag('serve', context.args, 'port', 0, { min: 0, max: 65_535 }));
  }
  if (host !== undefined) {
    env.HOST = host;
  }
  const { main } = await import('../main.ts');
  await main({ env, argv: [`--role=${role}`] });
  return exitCodes.ok;
}

const serve: Command = {
  name: 'serve',
  summary: 'run the server: API, hosted pages, dashboard and worker (like npm start)',
  positionals: [],
  flags: {
    role: { type: 'string', valueName: 'ROLE', choices: roles, description: 'all (default), api (HTTP only) or worker (jobs only); default: ROLE or all' },
    port: { type: 'string', valueName: 'PORT', description: 'port to listen on (default: PORT or 4000)' },
    host: { type: 'string', valueName: 'HOST', description: 'interface to listen on (default: HOST or 127.0.0.1; 0.0.0.0 for every interface)' },
  },
  details: [
    'Migrates the database, prints the listening URL (and, on a new database, the generated admin key',
    'and demo merchant once), and runs until SIGTERM or SIGINT, which stop it gracefully (exit 0).',
    'All other settings come from the environment (see README, Configuration).',
  ],
  examples: ['paysail serve', 'PORT=8080 paysail serve --role api', 'DATABASE_URL=postgres://… paysail serve --role api'],
  run: (context) => startServer(context, stringFlag(context.args, 'role') ?? context.io.env.ROLE ?? 'all'),
};

const worker: Command = {
  name: 'worker',
  summary: 'run a job worker only (webhooks, e-mail, KYC, payouts, renewals); same as serve --role worker',
  positionals: [],
  flags: {},
  details: ['Several workers can share one PostgreSQL database (DATABASE_URL); PGlite allows one process per DATA_DIR.'],
  examples: ['DATABASE_URL=postgres://… paysail worker'],
  run: (context) => startServer(context, 'worker'),
};

const migrate: Command = {
  name: 'migrate',
  summary: 'apply database migrations and exit',
  positionals: [],
  flags: {},
  details: ['Safe to run at any time and from several processes (PostgreSQL takes an advisory lock); the server also migrates at start.'],
  examples: ['DATABASE_URL=postgres://… paysail migrate'],
  async run({ io }) {
    // Opening the database applies the migrations; no platform (services, key ring) is needed.
    const [{ loadConfig }, { openDatabase }] = await Promise.all([import('../config/index.ts'), import('../db/client.ts')]);
    const config = loadConfig(io.env, []);
    const database = await openDatabase(config);
    await database.close();
    writeLine(io.stdout, `migrations applied (${config.databaseUrl ? 'PostgreSQL' : `PGlite in ${config.dataDir}`})`);
    return exitCodes.ok;
  },
};

export const serverCommands: readonly Command[] = [serve, worker, migrate];
