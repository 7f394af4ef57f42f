import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { builtDataDir, compactWal, migrationsHash, pruneWal, seedFromBuild } from '../../../src/db/snapshot.ts';

/**
 * The first start's copy of the build's migrated PGlite data directory (src/db/snapshot.ts), on real
 * directories. That the copy is a working database is shown by test/e2e/main-process.test.ts,
 * whose first start on an empty DATA_DIR begins from it once `npm run build` has made one.
 */
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'paysail-seed-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

function fakeBuild(name: string, withVersion = true): string {
  const built = path.join(scratch, name);
  fs.mkdirSync(path.join(built, 'base', '1'), { recursive: true });
  fs.writeFileSync(path.join(built, 'base', '1', '1259'), 'catalog');
  if (withVersion) {
    fs.writeFileSync(path.join(built, 'PG_VERSION'), '17\n');
  }
  return built;
}

describe('seedFromBuild', () => {
  test('copies the built data directory into an empty one, whole, leaving no partial copy', async () => {
    const built = fakeBuild('built-a');
    const target = path.join(scratch, 'data-a', 'pglite');
    assert.equal(await seedFromBuild(target, built), true);
    assert.equal(fs.readFileSync(path.join(target, 'PG_VERSION'), 'utf8'), '17\n');
    assert.equal(fs.readFileSync(path.join(target, 'base', '1', '1259'), 'utf8'), 'catalog');
    assert.equal(fs.existsSync(`${target}.partial`), false);
    // The copy is the new database's own: writing to it leaves the build as it was.
    fs.writeFileSync(path.join(target, 'base', '1', '1259'), 'changed');
    assert.equal(fs.readFileSync(path.join(built, 'base', '1', '1259'), 'utf8'), 'catalog');
  });

  test('an empty directory that exists is seeded too; a leftover partial copy is replaced', async () => {
    const built = fakeBuild('built-b');
    const target = path.join(scratch, 'data-b', 'pglite');
    fs.mkdirSync(target, { recursive: true });
    fs.mkdirSync(`${target}.partial`);
    fs.writeFileSync(path.join(`${target}.partial`, 'stale'), 'x');
    assert.equal(await seedFromBuild(target, built), true);
    assert.equal(fs.existsSync(path.join(target, 'stale')), false);
    assert.equal(fs.existsSync(path.join(target, 'PG_VERSION')), true);
  });

  test('a directory that holds anything is never touched', async () => {
    const built = fakeBuild('built-c');
    const target = path.join(scratch, 'data-c', 'pglite');
    fs.mkdirSync(target, { recursive: true });
    fs.writeFileSync(path.join(target, 'PG_VERSION'), '16\n');
    assert.equal(await seedFromBuild(target, built), false);
    assert.equal(fs.readFileSync(path.join(target, 'PG_VERSION'), 'utf8'), '16\n');
    assert.equal(fs.existsSync(path.join(target, 'base')), false);
  });

  test('without a complete build (no PG_VERSION, or none at all) nothing is copied: PGlite runs initdb', async () => {
    const incomplete = fakeBuild('built-d', false);
    const target = path.join(scratch, 'data-d', 'pglite');
    assert.equal(await seedFromBuild(target, incomplete), false);
    assert.equal(await seedFromBuild(target, path.join(scratch, 'no-such-build')), false);
    assert.equal(await seedFromBuild(target, null), false);
    assert.equal(fs.existsSync(target), false);
  });

  test('the build directory is named by the PGlite version and this migration set', () => {
    const built = builtDataDir();
    assert.ok(built, 'the installed PGlite version is found');
    assert.match(path.basename(built), new RegExp(`^pglite-\\d+\\.\\d+\\.\\d+-${migrationsHash()}$`));
  });
});

/** A 16 MB WAL segment of zeros with a record in its second page (as the build leaves it). */
const segmentBytes = 16 * 1024 * 1024;
function writeSegment(file: string): Buffer {
  const content = Buffer.alloc(segmentBytes);
  content.fill(0x5a, 8192, 8192 + 100);
  fs.writeFileSync(file, content);
  return content;
}

describe('the WAL of the built data directory', () => {
  test('a first start copies a WAL segment with the same content, its zero pages as holes', async () => {
    const built = fakeBuild('built-wal');
    fs.mkdirSync(path.join(built, 'pg_wal'));
    const content = writeSegment(path.join(built, 'pg_wal', '000000010000000000000002'));
    const target = path.join(scratch, 'data-wal', 'pglite');
    assert.equal(await seedFromBuild(target, built), true);
    const copy = path.join(target, 'pg_wal', '000000010000000000000002');
    assert.ok(fs.readFileSync(copy).equals(content));
    // Allocated blocks (512 bytes each) far below the file's 16 MB: the zeros were not written.
    assert.ok(fs.statSync(copy).blocks * 512 < 1024 * 1024, `${fs.statSync(copy).blocks} blocks allocated`);
    assert.equal(fs.readFileSync(path.join(target, 'base', '1', '1259'), 'utf8'), 'catalog');
  });

  test('pruneWal removes the segments after the current one and keeps the current one whole', async () => {
    const directory = path.join(scratch, 'prune');
    fs.mkdirSync(path.join(directory, 'pg_wal', 'archive_status'), { recursive: true });
    const current = writeSegment(path.join(directory, 'pg_wal', '000000010000000000000002'));
    writeSegment(path.join(directory, 'pg_wal', '000000010000000000000003'));
    await pruneWal(directory, '000000010000000000000002');
    assert.deepEqual(fs.readdirSync(path.join(directory, 'pg_wal')).sort(), ['000000010000000000000002', 'archive_status']);
    assert.ok(fs.readFileSync(path.join(directory, 'pg_wal', '000000010000000000000002')).equals(current));
  });

  test('compactWal moves a database to a fresh segment and names it', async () => {
    const client = await PGlite.create();
    try {
      const before = (await client.query<{ name: string }>('select pg_walfile_name(pg_current_wal_lsn()) as name')).rows[0]?.name ?? '';
      const segment = await compactWal(client);
      assert.match(segment, /^[0-9A-F]{24}$/);
      assert.ok(segment > before, `${segment} follows ${before}`);
      assert.deepEqual((await client.query('select 1 as one')).rows, [{ one: 1 }]);
    } finally {
      await client.close();
    }
  });
});
