import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { loadConfig } from '../../../src/config/index.ts';
import { openDatabase, openPglite, queryRows } from '../../../src/db/client.ts';
import { onEmbeddedRunOnly } from '../../helpers/database.ts';

/**
 * The embedded database's buffer pool (decision 0067): 32 MB unless PGLITE_SHARED_BUFFERS_MB says
 * otherwise, for the server's own data directory and for every other open (backups, snapshots).
 */
describe('PGlite shared_buffers', { skip: onEmbeddedRunOnly }, () => {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'paysail-shared-buffers-'));
  after(() => fs.rmSync(scratch, { recursive: true, force: true }));

  test('an open without a setting has the default; the configured size is the one the server opens with', async () => {
    const plain = await openPglite({});
    try {
      assert.deepEqual(await queryRows(plain.db, sql`show shared_buffers`), [{ shared_buffers: '32MB' }]);
    } finally {
      await plain.close();
    }
    const config = loadConfig({ DATA_DIR: scratch, PGLITE_SHARED_BUFFERS_MB: '16' }, []);
    const configured = await openDatabase(config);
    try {
      assert.deepEqual(await queryRows(configured.db, sql`show shared_buffers`), [{ shared_buffers: '16MB' }]);
    } finally {
      await configured.close();
    }
  });
});
