import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The directory holding Paysail's package.json, found by walking up from this file: `src/` when run
 * through tsx (development, tests), `dist/server/` when `npm start` runs the bundle. Files
 * that are not compiled (migrations, the guides, package.json) are read from here, so both work.
 */
function findPackageRoot(start: string): string {
  for (let directory = start; ; directory = path.dirname(directory)) {
    if (fs.existsSync(path.join(directory, 'package.json'))) {
      return directory;
    }
    if (path.dirname(directory) === directory) {
      throw new Error(`no package.json above ${start}`);
    }
  }
}

export const packageRoot = findPackageRoot(path.dirname(fileURLToPath(import.meta.url)));
