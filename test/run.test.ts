import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { groupSize, planProcesses } from './run.ts';

describe('npm test: which files share a process (test/run.ts)', () => {
  const plain = () => "describe('x', () => { before(() => {}); });";

  test('the files of test/http (any module folder) share a process, at most groupSize; test/integration and test/providers the same; src/ as one folder; other folders each their own', () => {
    assert.equal(groupSize, 20);
    const admin = Array.from({ length: groupSize }, (_, index) => `test/http/admin/a${String(index).padStart(2, '0')}.test.ts`);
    const units = planProcesses(
      [...admin, 'test/http/ledger/balance.test.ts', 'test/integration/jobs/claim.test.ts', 'test/integration/kyc/rules.test.ts', 'test/security/pii.test.ts', 'test/web/page.test.ts', 'src/config/index.test.ts', 'src/modules/kyc/rules.test.ts'],
      plain,
    );
    const sizes = units.map((unit) => unit.length).sort();
    assert.deepEqual(sizes, [1, 1, 1, 2, 2, groupSize].sort());
    assert.ok(units.some((unit) => unit.length === 2 && unit.every((file) => file.startsWith('src/'))));
    assert.ok(units.some((unit) => unit.length === 2 && unit.every((file) => file.startsWith('test/integration/'))));
    assert.ok(units.some((unit) => unit.length === 1 && unit[0] === 'test/http/ledger/balance.test.ts'));
    assert.ok(units.every((unit) => new Set(unit.map((file) => file.split('/').slice(0, file.startsWith('src/') ? 1 : 2).join('/'))).size === 1));
  });

  test('files that start processes or browsers, or have top-level hooks, run alone', () => {
    const files = ['test/e2e/a.e2e.test.ts', 'test/e2e/b.e2e.test.ts', 'test/reliability/crash.test.ts', 'test/http/common/every-route.test.ts', 'test/http/common/ids.test.ts', 'test/http/common/limits.test.ts'];
    const units = planProcesses(files, (file) => (file.endsWith('every-route.test.ts') ? "before(async () => {});\ndescribe('x', () => {});" : plain()));
    assert.equal(units.length, 5);
    assert.deepEqual(units.find((unit) => unit.length === 2)?.sort(), ['test/http/common/ids.test.ts', 'test/http/common/limits.test.ts']);
    assert.ok(units.some((unit) => unit.length === 1 && unit[0] === 'test/http/common/every-route.test.ts'));
  });

  test('on PostgreSQL the files that run on PGlite only (reported as skipped there) share one process; on PGlite each runs alone', () => {
    const files = ['test/docs/examples.test.ts', 'test/e2e/a.e2e.test.ts', 'test/e2e/b.e2e.test.ts', 'test/e2e/c.e2e.test.ts', 'test/e2e/hooked.e2e.test.ts', 'test/reliability/crash.test.ts'];
    const read = (file: string) =>
      file.endsWith('crash.test.ts') ? plain() : file.endsWith('hooked.e2e.test.ts') ? "before(async () => {});\ndescribe('x', { skip: onEmbeddedRunOnly }, () => {});" : "describe('x', { skip: onEmbeddedRunOnly }, () => {});";
    const onPostgres = planProcesses(files, read, true);
    assert.equal(onPostgres.length, 3);
    assert.deepEqual(onPostgres.find((unit) => unit.length > 1)?.sort(), ['test/docs/examples.test.ts', 'test/e2e/a.e2e.test.ts', 'test/e2e/b.e2e.test.ts', 'test/e2e/c.e2e.test.ts']);
    assert.ok(onPostgres.some((unit) => unit.length === 1 && unit[0] === 'test/e2e/hooked.e2e.test.ts'), 'a file with top-level hooks still runs alone');
    assert.ok(onPostgres.some((unit) => unit.length === 1 && unit[0] === 'test/reliability/crash.test.ts'));
    assert.equal(planProcesses(files, read, false).length, files.length);
  });

  test('the files known to take longest start first, longest first; then the rest in reverse order of their first file', () => {
    const units = planProcesses(
      ['src/a.test.ts', 'test/cli/backup.test.ts', 'test/http/x/a.test.ts', 'test/reliability/crash.test.ts', 'test/reliability/isolation.test.ts', 'test/reliability/ledger-model.test.ts', 'test/web/page.test.ts'],
      plain,
    );
    assert.deepEqual(
      units.map((unit) => unit[0]),
      ['test/reliability/ledger-model.test.ts', 'test/reliability/crash.test.ts', 'test/cli/backup.test.ts', 'test/web/page.test.ts', 'test/reliability/isolation.test.ts', 'test/http/x/a.test.ts', 'src/a.test.ts'],
    );
  });
});
