import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseDocument, parseMarkdown, renderMarkdownToHtml, slugify } from './markdown.ts';
import { resolveGuideLink } from './guides.ts';

const context = { resolveLink: (target: string) => resolveGuideLink(target, new Set(['webhooks', 'sandbox'])) };
const render = (source: string) => renderMarkdownToHtml(source, context);

describe('Markdown renderer: escaping', () => {
  test('raw HTML in text, headings, tables and code is shown as text, never as markup', async () => {
    const html = await render(
      [
        '# Title <img src=x onerror=alert(1)>',
        '',
        'Text <script>alert(1)</script> & "quotes"',
        '',
        '| a | b |',
        '|---|---|',
        '| <b>x</b> | `<i>` |',
        '',
        '```html',
        '</code></pre><script>alert(2)</script>',
        '```',
      ].join('\n'),
    );
    assert.doesNotMatch(html, /<script|<img|<b>|<i>/);
    assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt; &amp; &quot;quotes&quot;/);
    assert.match(html, /&lt;\/code&gt;&lt;\/pre&gt;&lt;script&gt;/);
  });

  test('links go only to http(s), mailto, this site, anchors or other guides; anything else is text', async () => {
    const html = await render('[a](javascript:alert(1)) [b](data:text/html,x) [c](//evil.example) [d](../ARCHITECTURE.md) [e](https://example.com/x?a=1&b=2) [f](/docs/reference) [g](#retries) [h](webhooks.md#retries) [i](unknown.md)');
    assert.doesNotMatch(html, /javascript:|data:text|\/\/evil|ARCHITECTURE|unknown\.md/);
    assert.match(html, /<span>a<\/span>/);
    assert.match(html, /<a href="https:\/\/example.com\/x\?a=1&amp;b=2">e<\/a>/);
    assert.match(html, /<a href="\/docs\/reference">f<\/a>/);
    assert.match(html, /<a href="#retries">g<\/a>/);
    assert.match(html, /<a href="\/docs\/guides\/webhooks#retries">h<\/a>/);
    assert.match(html, /<span>i<\/span>/);
  });

  test('docs/cli.md and the guides link each other as in the repository (guides/x.md, ../x.md)', async () => {
    const html = await render('[a](guides/webhooks.md#retries) [b](../sandbox.md) [c](guides/unknown.md) [d](../../webhooks.md)');
    assert.match(html, /<a href="\/docs\/guides\/webhooks#retries">a<\/a>/);
    assert.match(html, /<a href="\/docs\/guides\/sandbox">b<\/a>/);
    assert.match(html, /<span>c<\/span>/);
    assert.match(html, /<span>d<\/span>/);
  });

  test('HTML comments are dropped from the page but kept in the tree for the example runner', async () => {
    const source = '<!-- expect: secret -->\n```sh example\necho hi\n```';
    assert.deepEqual(parseMarkdown(source)[0], { type: 'comment', text: 'expect: secret' });
    const html = await render(source);
    assert.doesNotMatch(html, /expect: secret|<!--/);
    assert.match(html, /tested example/);
    assert.match(html, /<p class="expect muted">Prints <code>secret<\/code><\/p>/, 'the expected output is shown to readers');
  });
});

describe('Markdown renderer: the subset the guides use', () => {
  test('headings get GitHub-style anchors, unique per page', async () => {
    const html = await render('# Verify in TypeScript\n\n## Retries\n\n### Retries\n\n## `GET /v1/entitlements`');
    assert.match(html, /<h1 id="verify-in-typescript">/);
    assert.match(html, /<h2 id="retries">/);
    assert.match(html, /<h3 id="retries-1">/);
    assert.match(html, /<h2 id="get-v1entitlements"><code>GET \/v1\/entitlements<\/code>/);
    assert.equal(slugify('Hosted page `/payout-page/<id>`'), 'hosted-page-payout-pageid');
  });

  test('paragraphs join their lines; bold, italics and inline code', async () => {
    const html = await render('One **bold** and *em*\nsecond line with `a ** b` and snake_case_name.');
    assert.equal(html, '<p>One <strong>bold</strong> and <em>em</em> second line with <code>a ** b</code> and snake_case_name.</p>');
  });

  test('nested and ordered lists, with continuation lines and blocks inside items', async () => {
    const html = await render(['3. **Claim.** First', '   continued.', '   - nested one', '   - nested two', '', '4. Second', '', '   | a |', '   |---|', '   | 1 |', '', '- other list'].join('\n'));
    assert.match(html, /^<ol start="3"><li><strong>Claim.<\/strong> First continued.<ul><li>nested one<\/li><li>nested two<\/li><\/ul><\/li><li>Second<div class="table"><table>/);
    assert.match(html, /<\/ol><ul><li>other list<\/li><\/ul>$/);
  });

  test('tables: header, alignment as classes (no style attributes under the CSP), escaped pipes', async () => {
    const html = await render('| Name | Amount |\n|:---|---:|\n| `DAY\\|WEEK` | 10 |');
    assert.match(html, /<th class="align-left">Name<\/th><th class="align-right">Amount<\/th>/);
    assert.match(html, /<td class="align-left"><code>DAY\|WEEK<\/code><\/td><td class="align-right">10<\/td>/);
    assert.doesNotMatch(html, /style=/);
  });

  test('fenced code keeps its text exactly and names its language', async () => {
    const html = await render('```ts example file=a.ts\nconst a = 1;\n\n  indented();\n```\n\n~~~\nplain\n~~~');
    assert.match(html, /<code class="language-ts">const a = 1;\n\n {2}indented\(\);<\/code>/);
    assert.match(html, /<code>plain<\/code>/);
  });
});

describe('Markdown renderer: the outline the index and the example runner read', () => {
  test('the title is the first level-1 heading as plain text; only top-level code blocks and comments are listed', () => {
    const document = parseDocument(['Intro', '# The `paysail` *CLI* [guide](x.md)', '', '- item', '', '  ```sh', '  nested', '  ```', '', 'Text', '<!-- wait: 5s -->', '```ts example file=a.ts', 'top', '```'].join('\n'));
    assert.equal(document.title, 'The paysail CLI guide');
    assert.deepEqual(
      document.outline.filter((block) => block.type !== 'other'),
      [
        { type: 'heading', level: 1, text: 'The `paysail` *CLI* [guide](x.md)' },
        { type: 'comment', text: 'wait: 5s' },
        { type: 'code', info: 'ts example file=a.ts', text: 'top' },
      ],
      'a comment interrupts the paragraph before it; the code block inside the list item is not an example',
    );
  });

  test('images show their text (the pages load nothing from elsewhere); comments inside lists are dropped too', async () => {
    const html = await render('![diagram of <flows>](https://example.com/a.png)\n\n- one\n  <!-- hidden -->\n- two');
    assert.equal(html, '<p><span>diagram of &lt;flows&gt;</span></p><ul><li>one</li><li>two</li></ul>');
  });
});
