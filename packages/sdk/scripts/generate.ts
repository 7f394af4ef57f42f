/**
 * `npm run generate -w @paysail/sdk`: writes `openapi.json` from the real app, then
 * `src/generated/*` from it (openapi-typescript for the types, scripts/sources.ts). `--from-file`
 * skips the app and regenerates the code from the committed document only.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderGeneratedSources, type OpenApiDocument } from './sources.ts';
import { buildOpenApiDocument, serializeDocument } from './openapi-document.ts';
import { documentPath, generatedDirectory } from './paths.ts';


async function generate(fromFile: boolean): Promise<void> {
  let document: OpenApiDocument;
  if (fromFile) {
    document = JSON.parse(fs.readFileSync(documentPath, 'utf8')) as OpenApiDocument;
  } else {
    document = await buildOpenApiDocument();
    fs.writeFileSync(documentPath, serializeDocument(document));
  }
  const sources = await renderGeneratedSources(document);
  fs.rmSync(generatedDirectory, { recursive: true, force: true });
  fs.mkdirSync(generatedDirectory, { recursive: true });
  for (const [name, text] of sources) {
    fs.writeFileSync(path.join(generatedDirectory, name), text);
  }
  const wrote = fromFile ? [] : [path.relative(process.cwd(), documentPath)];
  process.stdout.write(`Wrote ${[...wrote, `${path.relative(process.cwd(), generatedDirectory)}/`].join(' and ')}\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await generate(process.argv.includes('--from-file'));
}
