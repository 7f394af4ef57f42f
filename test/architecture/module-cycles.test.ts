import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { cycles, moduleGraph } from '../../bin/check-module-cycles.ts';

/** Writes `files` (path → source) under a throw-away `src/modules/`; the module graph of them. */
function graphOf(t: TestContext, files: Record<string, string>): ReturnType<typeof moduleGraph> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'paysail-cycles-'));
  t.after(() => fs.rmSync(directory, { recursive: true, force: true }));
  const modules = path.join(directory, 'src', 'modules');
  const paths = Object.entries(files).map(([name, source]) => {
    const file = path.join(modules, name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, source);
    return file;
  });
  return moduleGraph(paths, modules);
}

test('module cycles: a two-module cycle through a type-only import is found, with the modules in it', (t) => {
  const graph = graphOf(t, {
    'a/service.ts': "import { b } from '../b/index.ts';\nexport const a = b;\n",
    'b/index.ts': "import type { A } from '../a/types.ts';\nexport const b: A | 1 = 1;\n",
    'c/index.ts': "import { a } from '../a/service.ts';\nexport const c = a;\n",
  });
  assert.deepEqual(cycles(graph), [['a', 'b']]);
  assert.deepEqual([...(graph.get('b')?.get('a') ?? [])], [path.join('src', 'modules', 'b', 'index.ts')]);
});

test('module cycles: imports in one direction only and imports inside a module are no cycle', (t) => {
  const graph = graphOf(t, {
    'a/service.ts': "import { b } from '../b/index.ts';\nimport { x } from './x.ts';\nexport const a = b + x;\n",
    'a/x.ts': "import { a } from './service.ts';\nexport const x = 1;\nexport const y = a;\n",
    'b/index.ts': 'export const b = 1;\n',
  });
  assert.deepEqual(cycles(graph), []);
});
