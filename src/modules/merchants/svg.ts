import { createRequire } from 'node:module';
import type * as Jsdom from 'jsdom';
import type DomPurify from 'dompurify';

/**
 * jsdom and DOMPurify are loaded on the first SVG upload, not at start (jsdom is large, and reads
 * files next to itself at run time, so the start bundle leaves both in node_modules).
 */
const load = createRequire(import.meta.url);

const svgNamespace = 'http://www.w3.org/2000/svg';
const xlinkNamespace = 'http://www.w3.org/1999/xlink';

/** A reference inside the document (`#id`): the only kind a logo keeps. */
function isLocalReference(value: string): boolean {
  return value.trim().startsWith('#');
}

/** `url(...)` in CSS that points anywhere but inside the document, and `@import`. */
const externalCss = /@import|url\(\s*['"]?\s*(?!#)/i;

/**
 * One DOMPurify over one jsdom window for the process (building a window costs milliseconds), with
 * the hooks that make it a logo sanitiser rather than an HTML one:
 * - no external references: `href` / `xlink:href` that are not `#fragment` go, and so do style
 *   attributes and `<style>` elements that import or `url()` anything outside the document;
 * - the root `<svg>` keeps (or gets) its namespace, so the file is a standalone SVG image.
 */
function createSanitizer() {
  const { JSDOM } = load('jsdom') as typeof Jsdom;
  const createDOMPurify = load('dompurify') as typeof DomPurify;
  const { window } = new JSDOM('');
  const purify = createDOMPurify(window);
  purify.addHook('uponSanitizeElement', (node, data) => {
    if (data.tagName === 'style' && externalCss.test(node.textContent ?? '')) {
      node.parentNode?.removeChild(node);
    }
  });
  purify.addHook('uponSanitizeAttribute', (_node, data) => {
    const name = data.attrName.toLowerCase();
    if ((name === 'href' || name === 'xlink:href') && !isLocalReference(data.attrValue)) {
      data.keepAttr = false;
    }
    if (name === 'style' && externalCss.test(data.attrValue)) {
      data.keepAttr = false;
    }
  });
  purify.addHook('afterSanitizeAttributes', (node) => {
    if (node.nodeName.toLowerCase() === 'svg' && node.parentElement?.nodeName.toLowerCase() !== 'svg') {
      node.setAttribute('xmlns', svgNamespace);
      if (node.outerHTML.includes('xlink:')) {
        node.setAttribute('xmlns:xlink', xlinkNamespace);
      }
    }
  });
  return { purify, window };
}

let sanitizer: ReturnType<typeof createSanitizer> | null = null;

/**
 * An uploaded SVG logo made safe to store and serve (decision 0035): DOMPurify's SVG profile (no
 * script, no `on*` handlers, no `foreignObject`, no HTML), no external references (hooks above),
 * then parsed again as XML so what we store is a well-formed standalone SVG document. Null when
 * nothing usable is left (no `<svg>` root, or not XML).
 *
 * Served files are locked down as well (CSP `default-src 'none'`, nosniff, `<img>` only), so a
 * sanitiser miss still runs no script and loads nothing.
 */
export function sanitizeSvg(source: string): Buffer | null {
  sanitizer ??= createSanitizer();
  const { purify, window } = sanitizer;
  const clean = purify.sanitize(source, {
    USE_PROFILES: { svg: true, svgFilters: true },
    FORBID_TAGS: ['foreignObject', 'script', 'iframe', 'image', 'feImage', 'a'],
    FORBID_ATTR: ['src', 'action', 'formaction'],
  });
  if (!/^<svg[\s>]/i.test(clean.trim())) {
    return null;
  }
  // The HTML serialiser writes named entities XML does not know.
  const xml = clean.replace(/&nbsp;/g, '&#160;');
  const document = new window.DOMParser().parseFromString(xml, 'image/svg+xml');
  const root = document.documentElement;
  if (!root || root.namespaceURI !== svgNamespace || root.localName !== 'svg' || document.getElementsByTagName('parsererror').length > 0) {
    return null;
  }
  return Buffer.from(new window.XMLSerializer().serializeToString(root), 'utf8');
}
