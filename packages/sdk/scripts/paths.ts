import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the committed document and the generated code live (no server imports: tests read these cheaply). */
export const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const documentPath = path.join(packageRoot, 'openapi.json');
export const generatedDirectory = path.join(packageRoot, 'src', 'generated');
