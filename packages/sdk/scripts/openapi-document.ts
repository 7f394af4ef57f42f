import { createTestContext } from '../../../test/helpers/context.ts';
import type { OpenApiDocument } from './sources.ts';

/** The server address the committed document names: the documented default, whoever generated it. */
export const documentServerUrl = 'http://localhost:4000';

/**
 * The committed form of a served document (the JSON of GET /openapi.json): `servers` and the
 * contact's guides pinned to the default, since they reflect `PUBLIC_URL`, not the API.
 */
export function pinServedDocument(served: unknown): OpenApiDocument {
  const document = served as OpenApiDocument & { servers?: Array<{ url: string }>; info: { contact?: { url?: string } } };
  const contact = document.info.contact?.url ? { ...document.info.contact, url: `${documentServerUrl}/docs` } : document.info.contact;
  return { ...document, info: { ...document.info, ...(contact ? { contact } : {}) }, ...(document.servers ? { servers: [{ url: documentServerUrl }] } : {}) };
}

/** The OpenAPI document an app serves, as committed: a JSON round trip (exactly what /openapi.json sends), pinned. */
export function openApiDocumentOf(app: { swagger(): unknown }): OpenApiDocument {
  return pinServedDocument(JSON.parse(JSON.stringify(app.swagger())));
}

/** The document of the real app, built on a throw-away database. */
export async function buildOpenApiDocument(): Promise<OpenApiDocument> {
  const context = await createTestContext({ env: { LOG_LEVEL: 'warn' } });
  try {
    return openApiDocumentOf(context.app);
  } finally {
    await context.close();
  }
}

/** The committed form of the document: two-space JSON with a final newline. */
export function serializeDocument(document: OpenApiDocument): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
