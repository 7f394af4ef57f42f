import type { Child } from 'hono/jsx';

/**
 * A small Markdown renderer for the guides in docs/guides (the subset they use: headings,
 * paragraphs, nested lists, tables, fenced code, block quotes, inline code, links, bold, italics).
 * It parses into a tree and renders hono/jsx elements, so every piece of text is escaped by the
 * JSX runtime; raw HTML in the source is never passed through (HTML comments are dropped, any other
 * HTML shows as text).
 */

export type Block =
  | { type: 'heading'; level: number; text: string }
  | { type: 'paragraph'; text: string }
  | { type: 'code'; info: string; text: string }
  | { type: 'list'; ordered: boolean; start: number; items: Block[][] }
  | { type: 'table'; header: string[]; align: Array<'left' | 'right' | 'center' | null>; rows: string[][] }
  | { type: 'quote'; blocks: Block[] }
  | { type: 'rule' }
  /** `<!-- … -->`: not rendered; the doc-example runner reads its directives. */
  | { type: 'comment'; text: string };

const fencePattern = /^ {0,3}(`{3,}|~{3,})\s*(.*)$/;
const headingPattern = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const listItemPattern = /^( *)([-*+]|\d{1,9}[.)])( +|$)(.*)$/;
const rulePattern = /^ {0,3}([-*_])( *\1){2,}\s*$/;
const tableSeparatorPattern = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

function isBlank(line: string): boolean {
  return line.trim() === '';
}

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

/** Splits a table row on unescaped pipes; `\|` stands for a literal pipe (also inside code). */
export function splitTableRow(line: string): string[] {
  let text = line.trim();
  if (text.startsWith('|')) {
    text = text.slice(1);
  }
  if (text.endsWith('|') && !text.endsWith('\\|')) {
    text = text.slice(0, -1);
  }
  const cells: string[] = [];
  let current = '';
  for (let index = 0; index < text.length; index += 1) {
    const character = text[index];
    if (character === '\\' && text[index + 1] === '|') {
      current += '|';
      index += 1;
    } else if (character === '|') {
      cells.push(current.trim());
      current = '';
    } else {
      current += character;
    }
  }
  cells.push(current.trim());
  return cells;
}

function startsBlock(lines: readonly string[], index: number): boolean {
  const line = lines[index] ?? '';
  return (
    fencePattern.test(line) ||
    headingPattern.test(line) ||
    listItemPattern.test(line) ||
    rulePattern.test(line) ||
    line.trimStart().startsWith('>') ||
    line.trimStart().startsWith('<!--') ||
    (line.trimStart().startsWith('|') && tableSeparatorPattern.test(lines[index + 1] ?? ''))
  );
}

/** Parses Markdown text into blocks. */
export function parseMarkdown(source: string): Block[] {
  return parseLines(source.replace(/\r\n?/g, '\n').replace(/\t/g, '    ').split('\n'));
}

function parseLines(lines: readonly string[]): Block[] {
  const blocks: Block[] = [];
  let index = 0;
  while (index < lines.length) {
    const line = lines[index] ?? '';
    if (isBlank(line)) {
      index += 1;
      continue;
    }
    const trimmed = line.trimStart();

    if (trimmed.startsWith('<!--')) {
      const collected: string[] = [];
      while (index < lines.length) {
        const current = lines[index] ?? '';
        collected.push(current);
        index += 1;
        if (current.includes('-->')) {
          break;
        }
      }
      blocks.push({ type: 'comment', text: collected.join('\n').replace(/^\s*<!--/, '').replace(/-->\s*$/, '').trim() });
      continue;
    }

    const fence = fencePattern.exec(line);
    if (fence) {
      const marker = fence[1] ?? '```';
      const indent = indentOf(line);
      const body: string[] = [];
      index += 1;
      while (index < lines.length) {
        const current = lines[index] ?? '';
        const closing = /^ *(`{3,}|~{3,})\s*$/.exec(current)?.[1];
        if (closing && closing[0] === marker[0] && closing.length >= marker.length) {
          index += 1;
          break;
        }
        // Code inside an indented fence (a list item) loses that indentation, as in CommonMark.
        body.push(current.slice(Math.min(indent, indentOf(current))));
        index += 1;
      }
      blocks.push({ type: 'code', info: (fence[2] ?? '').trim(), text: body.join('\n') });
      continue;
    }

    const heading = headingPattern.exec(line);
    if (heading) {
      blocks.push({ type: 'heading', level: (heading[1] ?? '#').length, text: heading[2] ?? '' });
      index += 1;
      continue;
    }

    if (rulePattern.test(line)) {
      blocks.push({ type: 'rule' });
      index += 1;
      continue;
    }

    if (trimmed.startsWith('|') && tableSeparatorPattern.test(lines[index + 1] ?? '')) {
      const header = splitTableRow(line);
      const align = splitTableRow(lines[index + 1] ?? '').map((cell) => {
        const left = cell.startsWith(':');
        const right = cell.endsWith(':');
        return left && right ? 'center' : right ? 'right' : left ? 'left' : null;
      });
      const rows: string[][] = [];
      index += 2;
      while (index < lines.length && (lines[index] ?? '').trimStart().startsWith('|')) {
        rows.push(splitTableRow(lines[index] ?? ''));
        index += 1;
      }
      blocks.push({ type: 'table', header, align, rows });
      continue;
    }

    if (trimmed.startsWith('>')) {
      const quoted: string[] = [];
      while (index < lines.length && (lines[index] ?? '').trimStart().startsWith('>')) {
        quoted.push((lines[index] ?? '').trimStart().replace(/^> ?/, ''));
        index += 1;
      }
      blocks.push({ type: 'quote', blocks: parseLines(quoted) });
      continue;
    }

    const item = listItemPattern.exec(line);
    if (item) {
      const parsed = parseList(lines, index);
      blocks.push(parsed.block);
      index = parsed.next;
      continue;
    }

    const paragraph: string[] = [trimmed];
    index += 1;
    while (index < lines.length && !isBlank(lines[index] ?? '') && !startsBlock(lines, index)) {
      paragraph.push((lines[index] ?? '').trim());
      index += 1;
    }
    blocks.push({ type: 'paragraph', text: paragraph.join('\n') });
  }
  return blocks;
}

function parseList(lines: readonly string[], first: number): { block: Block; next: number } {
  const head = listItemPattern.exec(lines[first] ?? '');
  const baseIndent = (head?.[1] ?? '').length;
  const ordered = /\d/.test(head?.[2] ?? '');
  const start = ordered ? Number.parseInt(head?.[2] ?? '1', 10) : 1;
  const items: string[][] = [];
  let index = first;
  while (index < lines.length) {
    const line = lines[index] ?? '';
    const match = listItemPattern.exec(line);
    if (!match || (match[1] ?? '').length !== baseIndent || /\d/.test(match[2] ?? '') !== ordered) {
      break;
    }
    const contentIndent = baseIndent + (match[2] ?? '').length + Math.max(1, Math.min((match[3] ?? ' ').length, 4));
    const itemLines = [match[4] ?? ''];
    index += 1;
    while (index < lines.length) {
      const current = lines[index] ?? '';
      if (isBlank(current)) {
        // A blank line continues the item only when indented content follows it.
        let look = index + 1;
        while (look < lines.length && isBlank(lines[look] ?? '')) {
          look += 1;
        }
        if (look < lines.length && indentOf(lines[look] ?? '') >= contentIndent) {
          for (; index < look; index += 1) {
            itemLines.push('');
          }
          continue;
        }
        break;
      }
      if (indentOf(current) >= contentIndent) {
        itemLines.push(current.slice(contentIndent));
      } else if (indentOf(current) > baseIndent && listItemPattern.test(current)) {
        // A nested list indented less than the content column still belongs to this item.
        itemLines.push(current.slice(baseIndent + 1));
      } else if (!startsBlock(lines, index) && indentOf(current) > baseIndent) {
        itemLines.push(current.trim());
      } else if (!startsBlock(lines, index) && itemLines.length > 0 && !isBlank(itemLines[itemLines.length - 1] ?? '')) {
        // Lazy continuation of the item's paragraph.
        itemLines.push(current.trim());
      } else {
        break;
      }
      index += 1;
    }
    items.push(itemLines);
    // Blank lines between items of the same list.
    let look = index;
    while (look < lines.length && isBlank(lines[look] ?? '')) {
      look += 1;
    }
    const nextItem = listItemPattern.exec(lines[look] ?? '');
    if (look !== index && nextItem && (nextItem[1] ?? '').length === baseIndent) {
      index = look;
    }
  }
  return { block: { type: 'list', ordered, start, items: items.map((itemLines) => parseLines(itemLines)) }, next: index };
}

/** The text of inline Markdown without its markup (for anchors and titles). */
export function plainText(text: string): string {
  return text
    .replace(/`([^`]*)`/g, '$1')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/(\*|_)(.+?)\1/g, '$2')
    .replace(/\\([\\`*_[\]()#+\-.!|])/g, '$1');
}

/** GitHub-style heading anchor: lower case, punctuation dropped, spaces to hyphens. */
export function slugify(text: string): string {
  return plainText(text)
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s/g, '-');
}

export interface RenderContext {
  /** Maps a link target to an href, or null to render the text without a link. */
  resolveLink(target: string): string | null;
}

/** Renders inline Markdown (code spans, links, bold, italics, escapes, hard line breaks as spaces). */
export function renderInline(text: string, context: RenderContext): Child[] {
  const out: Child[] = [];
  let buffer = '';
  const flush = () => {
    if (buffer !== '') {
      out.push(buffer);
      buffer = '';
    }
  };
  let index = 0;
  while (index < text.length) {
    const character = text[index] ?? '';
    const rest = text.slice(index);

    if (character === '\\' && index + 1 < text.length && /[\\`*_[\]()#+\-.!|<>{}]/.test(text[index + 1] ?? '')) {
      buffer += text[index + 1];
      index += 2;
      continue;
    }

    if (character === '`') {
      const ticks = /^`+/.exec(rest)?.[0] ?? '`';
      const close = text.indexOf(ticks, index + ticks.length);
      if (close !== -1) {
        flush();
        let code = text.slice(index + ticks.length, close).replace(/\n/g, ' ');
        if (code.startsWith(' ') && code.endsWith(' ') && code.trim() !== '') {
          code = code.slice(1, -1);
        }
        out.push(<code>{code}</code>);
        index = close + ticks.length;
        continue;
      }
      buffer += ticks;
      index += ticks.length;
      continue;
    }

    if (character === '[') {
      const link = /^\[((?:[^\]\\]|\\.)*)\]\(\s*<?([^\s)>]*)>?(?:\s+"[^"]*")?\s*\)/.exec(rest);
      if (link) {
        flush();
        const label = renderInline(link[1] ?? '', context);
        const href = context.resolveLink(link[2] ?? '');
        out.push(href === null ? <span>{label}</span> : <a href={href}>{label}</a>);
        index += link[0].length;
        continue;
      }
    }

    if (rest.startsWith('**') || rest.startsWith('__')) {
      const marker = rest.slice(0, 2);
      const close = text.indexOf(marker, index + 2);
      if (close > index + 2) {
        flush();
        out.push(<strong>{renderInline(text.slice(index + 2, close), context)}</strong>);
        index = close + 2;
        continue;
      }
    }

    if (character === '*' || (character === '_' && !/\w/.test(text[index - 1] ?? ''))) {
      const close = text.indexOf(character, index + 1);
      const inner = close === -1 ? '' : text.slice(index + 1, close);
      const closesWord = close !== -1 && (character === '*' || !/\w/.test(text[close + 1] ?? ''));
      if (inner !== '' && closesWord && !/^\s/.test(inner) && !/\s$/.test(inner)) {
        flush();
        out.push(<em>{renderInline(inner, context)}</em>);
        index = close + 1;
        continue;
      }
    }

    buffer += character === '\n' ? ' ' : character;
    index += 1;
  }
  flush();
  return out;
}

/** Assigns unique anchors to headings in document order (`title`, `title-1`, …). */
export function headingAnchors(blocks: readonly Block[]): Map<Block, string> {
  const anchors = new Map<Block, string>();
  const used = new Map<string, number>();
  const visit = (list: readonly Block[]) => {
    for (const block of list) {
      if (block.type === 'heading') {
        const base = slugify(block.text) || 'section';
        const count = used.get(base) ?? 0;
        used.set(base, count + 1);
        anchors.set(block, count === 0 ? base : `${base}-${count}`);
      } else if (block.type === 'list') {
        block.items.forEach(visit);
      } else if (block.type === 'quote') {
        visit(block.blocks);
      }
    }
  };
  visit(blocks);
  return anchors;
}

function Heading(props: { level: number; id: string; children: Child }) {
  const content = (
    <>
      {props.children}{' '}
      <a class="anchor" href={`#${props.id}`} aria-label="Link to this section">
        #
      </a>
    </>
  );
  switch (props.level) {
    case 1:
      return <h1 id={props.id}>{content}</h1>;
    case 2:
      return <h2 id={props.id}>{content}</h2>;
    case 3:
      return <h3 id={props.id}>{content}</h3>;
    case 4:
      return <h4 id={props.id}>{content}</h4>;
    case 5:
      return <h5 id={props.id}>{content}</h5>;
    default:
      return <h6 id={props.id}>{content}</h6>;
  }
}

/** Fence info `sh example` → language `sh`; the rest marks blocks the doc-example test runs. */
export function codeLanguage(info: string): string {
  return (info.split(/\s+/)[0] ?? '').replace(/[^A-Za-z0-9_+-]/g, '');
}

export function isExampleInfo(info: string): boolean {
  return info.split(/\s+/).slice(1).includes('example');
}

/** The `<!-- expect: … -->` texts just before an example block: shown to readers as its output. */
function expectationsBefore(blocks: readonly Block[], position: number): string[] {
  const expected: string[] = [];
  for (let index = position - 1; index >= 0; index -= 1) {
    const block = blocks[index];
    if (!block || block.type !== 'comment') {
      break;
    }
    const match = /^expect:\s*([\s\S]+)$/.exec(block.text);
    if (match?.[1]) {
      expected.unshift(match[1].trim());
    }
  }
  return expected;
}

// A class, not a style attribute: the pages' CSP allows styles only through the nonce'd element.
function alignClass(align: 'left' | 'right' | 'center' | null | undefined): string | undefined {
  return align ? `align-${align}` : undefined;
}

function renderBlocks(blocks: readonly Block[], context: RenderContext, anchors: Map<Block, string>, tight = false): Child[] {
  return blocks.map((block, position) => {
    switch (block.type) {
      case 'heading':
        return (
          <Heading level={block.level} id={anchors.get(block) ?? slugify(block.text)}>
            {renderInline(block.text, context)}
          </Heading>
        );
      case 'paragraph':
        // The first paragraph of a list item renders without <p> (a "tight" item).
        return tight && position === 0 ? <>{renderInline(block.text, context)}</> : <p>{renderInline(block.text, context)}</p>;
      case 'code': {
        const language = codeLanguage(block.info);
        const example = isExampleInfo(block.info);
        const expected = example ? expectationsBefore(blocks, position) : [];
        return (
          <div class="code">
            {example ? <span class="badge example" title="This example is run by the test suite against a real server">tested example</span> : null}
            <pre>
              <code class={language ? `language-${language}` : undefined}>{block.text}</code>
            </pre>
            {expected.length > 0 ? (
              <p class="expect muted">
                Prints{' '}
                {expected.map((text, index) => (
                  <>
                    {index > 0 ? ', ' : null}
                    <code>{text}</code>
                  </>
                ))}
              </p>
            ) : null}
          </div>
        );
      }
      case 'list': {
        const items = block.items.map((item) => <li>{renderBlocks(item, context, anchors, true)}</li>);
        return block.ordered ? <ol start={block.start === 1 ? undefined : block.start}>{items}</ol> : <ul>{items}</ul>;
      }
      case 'table':
        return (
          <div class="table">
            <table>
              <thead>
                <tr>
                  {block.header.map((cell, column) => (
                    <th class={alignClass(block.align[column])}>{renderInline(cell, context)}</th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {block.rows.map((row) => (
                  <tr>
                    {block.header.map((_cell, column) => (
                      <td class={alignClass(block.align[column])}>{renderInline(row[column] ?? '', context)}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        );
      case 'quote':
        return <blockquote>{renderBlocks(block.blocks, context, anchors)}</blockquote>;
      case 'rule':
        return <hr />;
      case 'comment':
        return null;
    }
  });
}

/** Renders parsed blocks to hono/jsx children. */
export function renderMarkdown(blocks: readonly Block[], context: RenderContext): Child[] {
  return renderBlocks(blocks, context, headingAnchors(blocks));
}

/** The HTML of rendered Markdown (the pages render the tree inside their layout; tests read this). */
export async function renderMarkdownToHtml(source: string, context: RenderContext): Promise<string> {
  return String(await (<>{renderMarkdown(parseMarkdown(source), context)}</>).toString());
}
