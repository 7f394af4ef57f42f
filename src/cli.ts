import { runCli } from './cli/program.ts';

/**
 * The operator CLI (`npx paysail …`, `npm run cli -- …`): commands live in src/cli/, one file per
 * group. Long-running commands (`serve`, `worker`, `listen`) keep the process alive after this.
 */
process.exitCode = await runCli(process.argv.slice(2), { env: process.env, stdout: process.stdout, stderr: process.stderr });
