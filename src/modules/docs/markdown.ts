import MarkdownIt, { type Env, type StateBlock, type Token } from 'markdown-it';
import GithubSlugger, { slug as githubSlug } from 'github-slugger';

/**
 * Markdown for the guides in docs/guides, rendered by markdown-it with raw HTML off (any HTML in
 * the source shows as text; markdown-it escapes every piece of text and attribute). On top of
 * markdown-it's CommonMark + GFM tables this adds what the docs site needs:
 *
 * - HTML comments (`<!-- expect: … -->`) are recognised as their own blocks: never rendered, but
 *   kept in the outline for the doc-example runner (test/docs/doc-examples.ts);
 * - headings carry GitHub-style anchors (github-slugger: `title`, `title-1`, …) and a `#` link;
 * - every link target goes through `RenderContext.resolveLink` (a guide's `webhooks.md#x` becomes
 *   `/docs/guides/webhooks#x`; anything it refuses renders as plain text in a `<span>`);
 * - fenced code is wrapped in `<div class="code">` with a "tested example" badge and the expected
 *   output for blocks the test suite runs;
 * - table alignment is a class, not a style attribute (the pages' CSP allows no inline styles);
 * - the first paragraph of a list item renders without `<p>`, and soft line breaks as spaces.
 */

export interface RenderContext {
  /** Maps a link target to an href, or null to render the text without a link. */
  resolveLink(target: string): string | null;
}

/** A top-level block of a document, as the guide index and the doc-example runner read it. */
export type Block =
  | { type: 'heading'; level: number; text: string }
  | { type: 'code'; info: string; text: string }
  /** `<!-- … -->`: not rendered; the doc-example runner reads its directives. */
  | { type: 'comment'; text: string }
  | { type: 'other'; name: string };

/** What a render carries through markdown-it's `env`: the page's link resolver and its anchors so far. */
interface PageEnv extends Env {
  context: RenderContext;
  slugger: GithubSlugger;
}

const pageEnv = (env: Env | undefined): PageEnv => env as PageEnv;

/** An HTML comment on its own lines: `<!--` at the start of a line through the line holding `-->`. */
function commentRule(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  const lineText = (line: number) => state.src.slice((state.bMarks[line] ?? 0) + (state.tShift[line] ?? 0), state.eMarks[line]);
  if ((state.sCount[startLine] ?? 0) - state.blkIndent >= 4 || !lineText(startLine).startsWith('<!--')) {
    return false;
  }
  if (silent) {
    return true;
  }
  let line = startLine;
  const collected: string[] = [];
  while (line < endLine) {
    const text = lineText(line);
    collected.push(text);
    line += 1;
    if (text.includes('-->')) {
      break;
    }
  }
  const token = state.push('comment', '', 0);
  token.content = collected.join('\n').replace(/^\s*<!--/, '').replace(/-->\s*$/, '').trim();
  token.map = [startLine, line];
  token.block = true;
  state.line = line;
  return true;
}

function tokenAt(tokens: readonly Token[], index: number): Token {
  const token = tokens[index];
  if (!token) {
    throw new Error(`markdown: no token at ${index}`);
  }
  return token;
}

/** The text of an inline token without its markup (for anchors and titles). */
function inlineText(token: Token | undefined): string {
  return (token?.children ?? [])
    .map((child) => (child.type === 'text' || child.type === 'code_inline' ? child.content : child.type === 'softbreak' || child.type === 'hardbreak' ? ' ' : ''))
    .join('');
}

const md = new MarkdownIt('default', { html: false, linkify: false, typographer: false, xhtmlOut: true });
md.block.ruler.before('paragraph', 'comment', commentRule, { alt: ['paragraph', 'reference', 'blockquote', 'list'] });
// Every target is judged by the page's resolveLink (which allows far less than markdown-it's
// default: no relative file outside the guides, no other scheme); a refused one still renders its text.
md.validateLink = () => true;

md.core.ruler.push('paysail_layout', (state) => {
  let tight = false;
  state.tokens.forEach((token, index) => {
    // The first paragraph of a list item is "tight" (no <p>), every other one is a paragraph.
    if (token.type === 'paragraph_open') {
      tight = state.tokens[index - 1]?.type === 'list_item_open';
    }
    if (token.type === 'paragraph_open' || token.type === 'paragraph_close') {
      token.hidden = tight;
    }
    // No newlines between block tags: the pages are compact and the tests read exact HTML.
    token.block = false;
  });
});

const rules = md.renderer.rules;

rules.comment = () => '';
rules.softbreak = () => ' ';

rules.heading_open = (tokens, index, _options, env) => {
  const token = tokenAt(tokens, index);
  const id = anchorOf(inlineText(tokens[index + 1]), pageEnv(env).slugger);
  token.meta = { id };
  return `<${token.tag} id="${md.utils.escapeHtml(id)}">`;
};
rules.heading_close = (tokens, index) => {
  const token = tokenAt(tokens, index);
  const opening = tokens[index - 2];
  const id = String((opening?.meta as { id?: string } | null)?.id ?? '');
  return ` <a class="anchor" href="#${md.utils.escapeHtml(id)}" aria-label="Link to this section">#</a></${token.tag}>`;
};

/** Link targets resolved by the page, kept per link so the closing tag matches. */
rules.link_open = (tokens, index, _options, env) => {
  const token = tokenAt(tokens, index);
  const href = pageEnv(env).context.resolveLink(String(token.attrGet('href') ?? ''));
  token.meta = { resolved: href !== null };
  return href === null ? '<span>' : `<a href="${md.utils.escapeHtml(href)}">`;
};
rules.link_close = (tokens, index) => {
  const opening = tokens.slice(0, index).findLast((other) => other.type === 'link_open');
  return (opening?.meta as { resolved?: boolean } | null)?.resolved ? '</a>' : '</span>';
};
// An image is shown as its text: the pages load nothing from elsewhere.
rules.image = (tokens, index) => `<span>${md.utils.escapeHtml(md.utils.unescapeAll(tokenAt(tokens, index).content))}</span>`;

rules.table_open = () => '<div class="table"><table>';
rules.table_close = () => '</table></div>';
// A class, not a style attribute: the pages' CSP allows styles only through the nonce'd element.
const cell = (tokens: Token[], index: number) => {
  const token = tokenAt(tokens, index);
  const align = /text-align:(left|right|center)/.exec(String(token.attrGet('style') ?? ''))?.[1];
  return `<${token.tag}${align ? ` class="align-${align}"` : ''}>`;
};
rules.th_open = cell;
rules.td_open = cell;

rules.fence = (tokens, index) => {
  const token = tokenAt(tokens, index);
  const language = codeLanguage(token.info);
  const example = isExampleInfo(token.info);
  const expected = example ? expectationsBefore(tokens, index) : [];
  const escape = md.utils.escapeHtml;
  return [
    '<div class="code">',
    example ? '<span class="badge example" title="This example is run by the test suite against a real server">tested example</span>' : '',
    `<pre><code${language ? ` class="language-${escape(language)}"` : ''}>${escape(token.content.replace(/\n$/, ''))}</code></pre>`,
    expected.length > 0 ? `<p class="expect muted">Prints ${expected.map((text) => `<code>${escape(text)}</code>`).join(', ')}</p>` : '',
    '</div>',
  ].join('');
};

/** The `<!-- expect: … -->` texts just before an example block: shown to readers as its output. */
function expectationsBefore(tokens: readonly Token[], position: number): string[] {
  const expected: string[] = [];
  for (let index = position - 1; index >= 0 && tokens[index]?.type === 'comment'; index -= 1) {
    const match = /^expect:\s*([\s\S]+)$/.exec(tokens[index]?.content ?? '');
    if (match?.[1]) {
      expected.unshift(match[1].trim());
    }
  }
  return expected;
}

/** A heading's anchor from its plain text, unique on the page (`title`, `title-1`, …). */
function anchorOf(plain: string, slugger: GithubSlugger): string {
  return slugger.slug(githubSlug(plain.trim()) === '' ? 'section' : plain.trim());
}

/** GitHub-style heading anchor of inline Markdown (github-slugger): lower case, punctuation dropped, spaces to hyphens. */
export function slugify(text: string): string {
  return anchorOf(inlineText(md.parseInline(text, {})[0]), new GithubSlugger());
}

/** Fence info `sh example` → language `sh`; the rest marks blocks the doc-example test runs. */
export function codeLanguage(info: string): string {
  return (info.trim().split(/\s+/)[0] ?? '').replace(/[^A-Za-z0-9_+-]/g, '');
}

export function isExampleInfo(info: string): boolean {
  return info.trim().split(/\s+/).slice(1).includes('example');
}

/** The parsed form of a document, rendered once per context (markdown-it tokens). */
export interface ParsedMarkdown {
  tokens: Token[];
  /** The top-level blocks (headings, code, comments, and the names of the others). */
  outline: Block[];
  /** The text of the first level-1 heading, if any. */
  title: string | undefined;
}

export function parseDocument(source: string): ParsedMarkdown {
  const tokens = md.parse(source, {});
  const outline: Block[] = [];
  let title: string | undefined;
  tokens.forEach((token, index) => {
    if (token.level !== 0 || token.nesting === -1) {
      return;
    }
    if (token.type === 'heading_open') {
      const inline = tokens[index + 1];
      outline.push({ type: 'heading', level: Number(token.tag.slice(1)), text: inline?.content ?? '' });
      if (token.tag === 'h1' && title === undefined) {
        title = inlineText(inline);
      }
    } else if (token.type === 'fence' || token.type === 'code_block') {
      outline.push({ type: 'code', info: token.info.trim(), text: token.content.replace(/\n$/, '') });
    } else if (token.type === 'comment') {
      outline.push({ type: 'comment', text: token.content });
    } else if (token.type !== 'inline') {
      outline.push({ type: 'other', name: token.type.replace(/_open$/, '') });
    }
  });
  return { tokens, outline, title };
}

/** The top-level blocks of Markdown text (the doc-example runner reads code blocks and comments). */
export function parseMarkdown(source: string): Block[] {
  return parseDocument(source).outline;
}

/** The HTML of a parsed document; safe to embed as is (all text and attributes are escaped). */
export function renderDocument(document: ParsedMarkdown, context: RenderContext): string {
  const env: PageEnv = { context, slugger: new GithubSlugger() };
  return md.renderer.render(document.tokens, md.options, env);
}

/** The HTML of Markdown text. */
export async function renderMarkdownToHtml(source: string, context: RenderContext): Promise<string> {
  return Promise.resolve(renderDocument(parseDocument(source), context));
}
