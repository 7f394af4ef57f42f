import { raw } from 'hono/html';
import { Type } from 'typebox';
import type { Api } from '../../http/types.ts';
import { AppError } from '../../http/errors.ts';
import { Layout } from '../../web/layout.tsx';
import { registerWebScope } from '../../web/scope.ts';
import type { Platform } from '../../platform.ts';
import { loadGuides, resolveGuideLink, type Guide } from './guides.ts';
import { renderDocument } from './markdown.ts';

/** Where @fastify/swagger-ui serves the API reference (registered in app.ts). */
export const apiReferencePath = '/docs/reference';

const docsStyles = `
main, main.wide { max-width: 52rem; }
nav.guides { font-size: 0.9rem; margin-bottom: 1.5rem; display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; }
nav.guides a[aria-current] { font-weight: 700; color: var(--ink); }
h3 { font-size: 1rem; margin: 1.25rem 0 0.5rem; }
a { color: var(--accent); }
a.anchor { color: var(--line); text-decoration: none; font-weight: 400; }
a.anchor:hover, a.anchor:focus { color: var(--accent); }
code { font: 0.88em ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: #e2e8f0; padding: 0.05rem 0.25rem; border-radius: 4px; }
.code { margin: 0.75rem 0; }
.code p.expect { margin: 0.3rem 0 0; font-size: 0.85rem; }
pre { background: #0f172a; color: #e2e8f0; padding: 0.9rem 1rem; border-radius: 8px; overflow-x: auto; margin: 0; line-height: 1.4; }
pre code { background: none; padding: 0; color: inherit; font-size: 0.85rem; }
.badge.example { margin: 0 0 0.3rem; background: #dbeafe; color: #1e3a8a; font-size: 0.7rem; }
.table { overflow-x: auto; margin: 0.75rem 0; }
table { font-size: 0.92rem; }
.align-right { text-align: right; } .align-center { text-align: center; }
blockquote { margin: 1rem 0; padding: 0.25rem 1rem; border-left: 4px solid var(--line); color: var(--muted); }
ul.index { list-style: none; padding: 0; }
ul.index li { margin: 0.75rem 0; }
`;

function GuideNav(props: { guides: readonly Guide[]; current?: string }) {
  return (
    <nav class="guides" aria-label="Guides">
      <a href="/docs">Documentation</a>
      {props.guides.map((guide) => (
        <a href={`/docs/guides/${guide.slug}`} aria-current={guide.slug === props.current ? 'page' : undefined}>
          {guide.title}
        </a>
      ))}
      <a href={apiReferencePath}>API reference</a>
    </nav>
  );
}

/**
 * `/docs` (index), `/docs/guides/:slug` (a guide rendered from docs/guides/<slug>.md). The guides
 * are read and parsed once, on the first request for one of these pages, and each is rendered on
 * its first request; the API reference (Swagger UI) is at `/docs/reference` and the OpenAPI
 * document at `/openapi.json`.
 */
export async function registerDocsRoutes(app: Api, platform: Platform, options: { guidesFolder?: string } = {}): Promise<void> {
  // Read and parsed on the first request to /docs, not at start (a tenth of a second of every start).
  let library: { guides: Map<string, Guide>; list: Guide[]; context: { resolveLink: (target: string) => string | null } } | undefined;
  const guideLibrary = () => {
    if (!library) {
      const guides = loadGuides(options.guidesFolder);
      const known = new Set(guides.keys());
      library = { guides, list: [...guides.values()], context: { resolveLink: (target: string) => resolveGuideLink(target, known) } };
    }
    return library;
  };
  // Rendered on first request, then kept: markdown-it escapes every text and attribute, so the HTML
  // is embedded as is.
  const rendered = new Map<string, ReturnType<typeof raw>>();
  const htmlOf = (guide: Guide) => {
    const html = rendered.get(guide.slug) ?? raw(renderDocument(guide.document, guideLibrary().context));
    rendered.set(guide.slug, html);
    return html;
  };

  await registerWebScope(app, { csrfSecret: platform.keyRing.deriveKey('csrf'), secureCookies: platform.config.publicUrl.startsWith('https:') }, (web, tools) => {
    web.get('/docs', { schema: { hide: true } }, async (_request, reply) =>
      tools.render(reply, (nonce) => (
        <Layout title="Paysail documentation" nonce={nonce} styles={docsStyles}>
          <h1>Paysail documentation</h1>
          <p>
            Guides for integrating with Paysail and running it, and the API reference generated from the OpenAPI document. The examples in these guides are run by the
            test suite against a real server, so they stay correct.
          </p>
          <h2>API reference</h2>
          <ul class="index">
            <li>
              <a href={apiReferencePath}>API reference</a>: every operation, its parameters, bodies and answers (Swagger UI).
            </li>
            <li>
              <a href="/openapi.json">OpenAPI document</a> (<code>/openapi.json</code>): for client generators.
            </li>
          </ul>
          <h2>Guides</h2>
          <ul class="index">
            {guideLibrary().list.map((guide) => (
              <li>
                <a href={`/docs/guides/${guide.slug}`}>{guide.title}</a>
                <br />
                <span class="muted">{guide.summary}</span>
              </li>
            ))}
          </ul>
        </Layout>
      )),
    );

    web.get(
      '/docs/guides/:slug',
      { schema: { hide: true, params: Type.Object({ slug: Type.String({ maxLength: 100 }) }, { additionalProperties: false }) } },
      async (request, reply) => {
        const { slug } = request.params as { slug: string };
        const guide = guideLibrary().guides.get(slug);
        if (!guide) {
          throw new AppError('NOT_FOUND', 'There is no guide with this name.');
        }
        return tools.render(reply, (nonce) => (
          <Layout title={`${guide.title} · Paysail documentation`} nonce={nonce} styles={docsStyles}>
            <GuideNav guides={guideLibrary().list} current={guide.slug} />
            <article>{htmlOf(guide)}</article>
          </Layout>
        ));
      },
    );
  });
}
