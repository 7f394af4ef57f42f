import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import type { Logger } from 'pino';
import { dumpConsistently } from './snapshot.ts';

/** Longest Unix socket path Linux takes (108 bytes with the terminating NUL); macOS takes 104. */
const socketPathLimit = 103;

/**
 * The running server's backup socket: `<DATA_DIR>/backup.sock`, or null when that path is too long
 * for a Unix socket (then backups are taken with the server stopped). Decision 0024.
 */
export function backupSocketPath(dataDir: string): string | null {
  const socket = path.join(path.resolve(dataDir), 'backup.sock');
  return Buffer.byteLength(socket) <= socketPathLimit ? socket : null;
}

export interface BackupSocket {
  readonly path: string;
  close(): Promise<void>;
}

/**
 * Serves `POST /snapshot` on the data directory's Unix socket: a consistent dump of the embedded
 * database, taken in this process, which alone may open it. Only the owner may connect (mode 0600):
 * whoever can, could read the data directory and its key file anyway. Nothing else is served.
 */
export async function serveBackupSocket(options: { dataDir: string; client: PGlite; logger: Logger }): Promise<BackupSocket | null> {
  const socketPath = backupSocketPath(options.dataDir);
  if (!socketPath) {
    options.logger.warn({ dataDir: options.dataDir }, 'DATA_DIR path too long for the backup socket: `paysail backup create` needs the server stopped');
    return null;
  }
  // Left by a process that died: this process holds the data directory's lock, so it is no one's.
  fs.rmSync(socketPath, { force: true });
  const server = http.createServer((request, response) => {
    if (request.method !== 'POST' || request.url !== '/snapshot') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('POST /snapshot is the only request served here\n');
      return;
    }
    const started = performance.now();
    dumpConsistently(options.client).then(
      (dump) => {
        options.logger.info({ bytes: dump.length, ms: Math.round(performance.now() - started) }, 'backup snapshot taken');
        response.writeHead(200, { 'content-type': 'application/x-tar', 'content-length': dump.length }).end(dump);
      },
      (error: unknown) => {
        options.logger.error({ err: error }, 'backup snapshot failed');
        response.writeHead(500, { 'content-type': 'text/plain' }).end(`the server could not take the snapshot: ${(error as Error).message}\n`);
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });
  fs.chmodSync(socketPath, 0o600);
  return {
    path: socketPath,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      fs.rmSync(socketPath, { force: true });
    },
  };
}

/**
 * Asks the server running on `dataDir` for a snapshot. Resolves to null when no server listens
 * there (no socket, or one left by a process that died); rejects when one answers with a failure.
 */
export function requestSnapshot(socketPath: string): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const request = http.request({ socketPath, method: 'POST', path: '/snapshot' }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const body = Buffer.concat(chunks);
        if (response.statusCode === 200) {
          resolve(body);
        } else {
          reject(new Error(body.toString('utf8').trim() || `the server answered ${response.statusCode}`));
        }
      });
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ECONNREFUSED') {
        resolve(null);
      } else {
        reject(error);
      }
    });
    request.end();
  });
}
