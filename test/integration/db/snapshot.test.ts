import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { builtDataDir, migrationsHash, seedFromBuild } from '../../../src/db/snapshot.ts';

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
