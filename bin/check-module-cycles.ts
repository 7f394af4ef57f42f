/**
 * `npm run lint:cycles`: no import cycles between the modules of `src/modules/` (decision 0041).
 * Every import in `src/` (type-only ones too: they couple as much) from one module's folder into
 * another's is an edge of the module graph; any strongly connected set of two or more modules is a
 * cycle, printed with the files that make each of its edges. Imports are read by TypeScript's own
 * pre-processor, so nothing is compiled or run.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const modulesDirectory = path.join(root, 'src', 'modules');

function sourceFiles(directory: string): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const child = path.join(directory, entry.name);
    return entry.isDirectory() ? sourceFiles(child) : /\.tsx?$/.test(entry.name) ? [child] : [];
  });
}

function moduleOf(modules: string, file: string): string | null {
  const relative = path.relative(modules, file);
  return relative.startsWith('..') ? null : (relative.split(path.sep)[0] ?? null);
}

/** module → module it imports → the importing files; `modules` is the folder of module folders. */
export function moduleGraph(files: string[], modules = modulesDirectory): Map<string, Map<string, Set<string>>> {
  const graph = new Map<string, Map<string, Set<string>>>();
  for (const file of files) {
    const from = moduleOf(modules, file);
    if (!from) {
      continue;
    }
    for (const imported of ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true).importedFiles) {
      const to = imported.fileName.startsWith('.') ? moduleOf(modules, path.resolve(path.dirname(file), imported.fileName)) : null;
      if (!to || to === from) {
        continue;
      }
      const edges = graph.get(from) ?? new Map<string, Set<string>>();
      graph.set(from, edges);
      const importers = edges.get(to) ?? new Set<string>();
      edges.set(to, importers);
      importers.add(path.relative(path.dirname(path.dirname(modules)), file));
    }
  }
  return graph;
}

/** Tarjan's strongly connected components with more than one module: each is a cycle. */
export function cycles(graph: Map<string, Map<string, Set<string>>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node) ?? 0);
    stack.push(node);
    for (const next of graph.get(node)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (stack.includes(next)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop();
        if (member !== undefined) {
          component.push(member);
        }
      } while (member !== undefined && member !== node);
      if (component.length > 1) {
        found.push(component.sort());
      }
    }
  };
  for (const node of graph.keys()) {
    if (!index.has(node)) {
      visit(node);
    }
  }
  return found;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const graph = moduleGraph(sourceFiles(path.join(root, 'src')));
  const found = cycles(graph);
  for (const component of found) {
    process.stderr.write(`Import cycle between modules: ${component.join(', ')}\n`);
    for (const from of component) {
      for (const [to, importers] of graph.get(from) ?? []) {
        if (component.includes(to)) {
          process.stderr.write(`  ${from} → ${to}: ${[...importers].join(', ')}\n`);
        }
      }
    }
  }
  if (found.length > 0) {
    process.exitCode = 1;
  } else {
    process.stdout.write(`No import cycles between the ${fs.readdirSync(modulesDirectory).length} modules.\n`);
  }
}
