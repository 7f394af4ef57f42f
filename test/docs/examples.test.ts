import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { after, describe, test } from 'node:test';
import { adminApiKey, createTestContext, type TestMerchant } from '../helpers/context.ts';
import { TestClock } from '../helpers/clock.ts';
import { guidesFolder } from '../../src/modules/docs/guides.ts';
import { extractExamples, readGuideSources, type DocExample } from './doc-examples.ts';
import { onEmbeddedRunOnly } from '../helpers/database.ts';

/**
 * The doc examples: every `example` block of docs/guides/*.md runs against a real server listening
 * on loopback (real database, real HTTP, curl and tsx as a reader would use them). See
 * doc-examples.ts for the markup. The server's clock follows real time; `<!-- wait: … -->` moves
 * it forward and runs the jobs that come due, so nothing here sleeps for KYC or payout delays.
 */

const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Real time plus whatever the examples' waits added: webhook timestamps stay near the receiver's clock. */
class RunningClock extends TestClock {
  private offset = 0;
  override now(): Date {
    return new Date(Date.now() + this.offset);
  }
  override advance(ms: number): void {
    this.offset += ms;
  }
  override set(time: Date | number): void {
    this.offset = (typeof time === 'number' ? time : time.getTime()) - Date.now();
  }
}

async function findFreePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  assert.ok(address && typeof address === 'object');
  return address.port;
}

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) {
      return false;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

/** One bash process per guide: blocks run one after another in it, sharing variables. */
class BashSession {
  private output = '';
  private exitCode: number | null = null;
  private readonly child: ChildProcessWithoutNullStreams;
  private blockCount = 0;

  constructor(readonly directory: string) {
    // Its own process group, so ending the session also ends what the examples started in the background.
    // No database, Redis or key ring of the test run: CLI examples open a scratch DATA_DIR of their own, as a reader's would.
    const env = { ...process.env, NO_COLOR: '1', DATABASE_URL: '', REDIS_URL: '', ENCRYPTION_KEYS: '', DATA_DIR: '' };
    this.child = spawn('bash', ['--noprofile', '--norc'], { cwd: directory, detached: true, env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.output += chunk.toString('utf8');
    });
    this.child.stderr.on('data', (chunk: Buffer) => {
      this.output += chunk.toString('utf8');
    });
    this.child.on('exit', (code) => {
      this.exitCode = code ?? -1;
    });
    this.child.stdin.write('set -eo pipefail\n');
  }

  async run(code: string, timeoutMs: number): Promise<{ output: string; ended: boolean }> {
    this.blockCount += 1;
    const file = path.join(this.directory, `.example-${this.blockCount}.sh`);
    fs.writeFileSync(file, `${code}\n`);
    const marker = `__doc_example_${randomBytes(6).toString('hex')}__`;
    const start = this.output.length;
    // stdin of the block is /dev/null: a command reading stdin must not eat the next lines of the session.
    this.child.stdin.write(`source ${JSON.stringify(file)} < /dev/null\nprintf '\\n%s\\n' '${marker}'\n`);
    const finished = await waitUntil(() => this.output.includes(marker, start) || this.exitCode !== null, timeoutMs);
    const text = this.output.slice(start);
    if (!finished) {
      return { output: `${text}\n[timed out after ${timeoutMs} ms]`, ended: true };
    }
    if (!text.includes(marker)) {
      return { output: `${text}\n[the shell exited with status ${this.exitCode}]`, ended: true };
    }
    return { output: text.slice(0, text.indexOf(marker)).trimEnd(), ended: false };
  }

  close(): void {
    if (this.exitCode === null && this.child.pid !== undefined) {
      try {
        process.kill(-this.child.pid, 'SIGTERM');
      } catch {
        // Already gone.
      }
    }
  }
}

const openSessions = new Set<BashSession>();
// A test run that ends early must not leave example servers (receivers) running.
process.on('exit', () => {
  for (const session of openSessions) {
    session.close();
  }
});

const guides = readGuideSources(guidesFolder)
  .map(({ guide, source }) => ({ guide, examples: extractExamples(guide, source).examples }))
  .filter((entry) => entry.examples.length > 0);

const port = await findFreePort();
const receiverPorts = [await findFreePort(), await findFreePort()] as const;
const clock = new RunningClock();
const context = await createTestContext({ clock, env: { PUBLIC_URL: `http://127.0.0.1:${port}` } });
await context.app.listen({ port, host: '127.0.0.1' });
const directories: string[] = [];
after(async () => {
  await context.close();
  for (const directory of directories) {
    fs.rmSync(directory, { recursive: true, force: true });
  }
});

/** What a reader fills in: the server address, their keys, their receiver's port. */
function substitute(code: string, merchant: TestMerchant): string {
  return code
    .replaceAll('localhost:4000', `127.0.0.1:${port}`)
    .replaceAll('localhost:3000', `127.0.0.1:${receiverPorts[0]}`)
    .replaceAll('PORT=3000', `PORT=${receiverPorts[0]}`)
    .replaceAll('localhost:3001', `127.0.0.1:${receiverPorts[1]}`)
    .replaceAll('PORT=3001', `PORT=${receiverPorts[1]}`)
    .replaceAll('<API_KEY>', merchant.apiKey)
    .replaceAll('<MERCHANT_ID>', merchant.id)
    .replaceAll('<ADMIN_API_KEY>', adminApiKey)
    // `npx paysail` is this repository's bin; the example's directory is a reader's project without it.
    .replaceAll('npx paysail ', `node ${JSON.stringify(path.join(repositoryRoot, 'bin/paysail.mjs'))} `);
}

/** Lets `ms` pass on the server's clock a second at a time, running the jobs that come due. */
async function letTimePass(ms: number): Promise<void> {
  for (let elapsed = 0; elapsed < ms; elapsed += 1000) {
    clock.advance(Math.min(1000, ms - elapsed));
    await context.drainJobs();
  }
}

function describeExample(example: DocExample): string {
  const firstLine = example.code.split('\n').find((line) => line.trim() !== '' && !line.trim().startsWith('#')) ?? '';
  return `${example.guide}.md:${example.line} ${example.language}${example.file ? ` ${example.file}` : ''}: ${firstLine.trim().slice(0, 60)}`;
}

describe('the doc examples', { skip: onEmbeddedRunOnly }, () => {
  test('the tools the examples use are installed (bash, curl, jq)', () => {
    for (const tool of ['bash', 'curl', 'jq']) {
      const found = spawnSync('bash', ['-c', `command -v ${tool}`], { encoding: 'utf8' });
      assert.equal(found.status, 0, `${tool} is on the PATH (apt-get install -y ${tool})`);
    }
  });

  test('the guides have examples to run', () => {
    const names = guides.map((entry) => entry.guide);
    for (const expected of ['quickstart', 'payout-pages', 'payment-pages', 'webhooks', 'cli']) {
      assert.ok(names.includes(expected), `${expected}.md has runnable examples`);
    }
  });

  for (const { guide, examples } of guides) {
    test(`${guide}.md: every example runs against a real server`, async (t) => {
      const directory = fs.mkdtempSync(path.join(os.tmpdir(), `paysail-doc-${guide}-`));
      directories.push(directory);
      // A reader's project: the dependencies, `@paysail/sdk` among them (a workspace link to packages/sdk).
      fs.symlinkSync(path.join(repositoryRoot, 'node_modules'), path.join(directory, 'node_modules'));
      fs.writeFileSync(path.join(directory, 'package.json'), JSON.stringify({ name: `doc-${guide}`, private: true, type: 'module' }));
      const merchant = await context.createMerchant({ name: `Docs ${guide}` });
      const session = new BashSession(directory);
      openSessions.add(session);
      try {
        for (const example of examples) {
          await t.test(describeExample(example), async () => {
            await letTimePass(example.waitMs);
            const code = substitute(example.code, merchant);
            if (example.language === 'ts') {
              fs.writeFileSync(path.join(directory, example.file ?? 'example.ts'), code);
              return;
            }
            // Each `npx` in a block (counted before `npx paysail` becomes `node bin/paysail.mjs`) starts a process of its own (tsx and, for the CLI, an embedded
            // database): on a busy CI machine a few seconds each, so the block's budget grows with them.
            const processes = example.code.match(/\bnpx\s/g)?.length ?? 0;
            const { output, ended } = await session.run(code, 60_000 + 45_000 * processes);
            assert.equal(ended, false, `the example failed:\n${output}`);
            for (const expected of example.expect.map((text) => substitute(text, merchant))) {
              assert.ok(output.includes(expected), `the output contains ${JSON.stringify(expected)}:\n${output}`);
            }
            if (!example.expect.some((expected) => expected.includes('FAILED'))) {
              assert.ok(!output.includes('"status":"FAILED"'), `no error envelope in the output:\n${output}`);
            }
            // Work the example caused that is due now (KYC submission, webhook fan-out) runs before the next one.
            await context.drainJobs();
          });
        }
      } finally {
        session.close();
        openSessions.delete(session);
      }
    });
  }
});
