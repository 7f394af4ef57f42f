import fs from 'node:fs';
import path from 'node:path';
import { guideEntries, guideFile } from '../../src/modules/docs/guides.ts';
import { parseMarkdown, codeLanguage, isExampleInfo, type Block } from '../../src/modules/docs/markdown.ts';

/**
 * Executable examples in the guides. A fenced block whose info string carries `example` runs:
 *
 * - ```` ```sh example ```` — run in one bash session per guide (`set -eo pipefail`), so variables a
 *   block sets are there for the next one;
 * - ```` ```ts example file=receiver.ts ```` — written to that file in the session's directory (a
 *   later `sh` block runs it, e.g. `node --import tsx receiver.ts`).
 *
 * HTML comments right before a block (invisible when rendered) direct the runner:
 *
 * - `<!-- expect: text -->` — the block's output must contain `text` (several allowed);
 * - `<!-- wait: 5s -->` — before the block, let that much time pass on the server's clock, running
 *   due jobs every second, as a real worker would while the reader types (KYC decisions, payout
 *   settlement, webhook delivery);
 * - `<!-- not-executed: reason -->` — a shell or TypeScript block that is deliberately not run.
 *
 * A shell block's output must not contain an error envelope (`"status":"FAILED"`) unless one of
 * its `expect` texts names `FAILED`.
 */
export interface DocExample {
  guide: string;
  /** 1-based position among the guide's examples. */
  index: number;
  line: number;
  language: 'sh' | 'ts';
  code: string;
  file: string | undefined;
  expect: string[];
  waitMs: number;
}

export interface UnmarkedBlock {
  guide: string;
  language: string;
  line: number;
  notExecutedReason: string | undefined;
}

function lineOf(source: string, code: string, from: number): number {
  const position = source.indexOf(code, from);
  return position === -1 ? 0 : source.slice(0, position).split('\n').length;
}

function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m)?$/.exec(text.trim());
  if (!match) {
    throw new Error(`wait: cannot read "${text}" (use e.g. 5s, 500ms, 2m)`);
  }
  const value = Number(match[1]);
  return match[2] === 'ms' ? value : match[2] === 'm' ? value * 60_000 : value * 1000;
}

/** Every top-level code block of a guide with the directives of the comments just before it. */
export function extractExamples(guide: string, source: string): { examples: DocExample[]; unmarked: UnmarkedBlock[] } {
  const blocks: Block[] = parseMarkdown(source);
  const examples: DocExample[] = [];
  const unmarked: UnmarkedBlock[] = [];
  let pending: string[] = [];
  let searchFrom = 0;
  for (const block of blocks) {
    if (block.type === 'comment') {
      pending.push(block.text);
      continue;
    }
    if (block.type !== 'code') {
      pending = [];
      continue;
    }
    const line = lineOf(source, block.text, searchFrom);
    searchFrom = Math.max(searchFrom, source.indexOf(block.text, searchFrom));
    const language = codeLanguage(block.info);
    const directives = pending.map((text) => /^([a-z-]+):\s*([\s\S]*)$/.exec(text.trim())).filter((match): match is RegExpExecArray => match !== null);
    pending = [];
    if (!isExampleInfo(block.info)) {
      unmarked.push({ guide, language, line, notExecutedReason: directives.find((match) => match[1] === 'not-executed')?.[2] });
      continue;
    }
    if (language !== 'sh' && language !== 'ts') {
      throw new Error(`${guide}.md:${line}: examples are sh or ts, not "${language}"`);
    }
    const file = /(?:^|\s)file=(\S+)/.exec(block.info)?.[1];
    if (language === 'ts' && !file) {
      throw new Error(`${guide}.md:${line}: a ts example needs file=<name>.ts (a later sh example runs it)`);
    }
    examples.push({
      guide,
      index: examples.length + 1,
      line,
      language,
      code: block.text,
      file,
      expect: directives.filter((match) => match[1] === 'expect').map((match) => (match[2] ?? '').trim()),
      waitMs: directives.filter((match) => match[1] === 'wait').reduce((total, match) => total + parseDuration(match[2] ?? ''), 0),
    });
  }
  return { examples, unmarked };
}

/** Every Markdown file of the guides folder, and the listed guides kept elsewhere (docs/cli.md). */
export function readGuideSources(folder: string): Array<{ guide: string; source: string }> {
  const inFolder = fs
    .readdirSync(folder)
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => ({ guide: name.slice(0, -'.md'.length), source: fs.readFileSync(path.join(folder, name), 'utf8') }));
  const elsewhere = guideEntries
    .filter((entry) => path.dirname(guideFile(entry, folder)) !== path.resolve(folder))
    .map((entry) => ({ guide: entry.slug, source: fs.readFileSync(guideFile(entry, folder), 'utf8') }));
  return [...inFolder, ...elsewhere];
}
