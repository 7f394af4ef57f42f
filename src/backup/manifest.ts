import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';

/** The archive's entries: the manifest first, then PGlite's data directory, then (optionally) the key file. */
export const manifestEntry = 'manifest.json';
export const databaseEntry = 'database.tar.gz';
export const keyFileEntry = 'encryption-keys';

const FileDigest = Type.Object({ bytes: Type.Integer({ minimum: 0 }), sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }) });
export type FileDigest = Static<typeof FileDigest>;

/**
 * Where the encryption keys of this backup are: `included` (the key file is in the archive),
 * `separate` (written apart with `--key-file-out`; `keyFile` names its digest so restore can tell
 * the right file), `environment` (ENCRYPTION_KEYS: never in a backup). `keyIds` lists the key ids,
 * never the keys, so verify can tell whether a key ring can open what the database holds.
 */
const Keys = Type.Object({
  location: Type.Union([Type.Literal('included'), Type.Literal('separate'), Type.Literal('environment')]),
  keyIds: Type.Array(Type.String()),
  keyFile: Type.Optional(FileDigest),
});

export const BackupManifest = Type.Object({
  format: Type.Literal('paysail-backup'),
  formatVersion: Type.Literal(1),
  createdAt: Type.String(),
  paysailVersion: Type.String(),
  pgliteVersion: Type.String(),
  /** `running server` (taken through its control socket) or `data directory` (no server ran). */
  takenFrom: Type.String(),
  migrations: Type.Object({ applied: Type.Integer({ minimum: 0 }), newest: Type.Union([Type.String(), Type.Null()]) }),
  /** Rows per table of the `public` schema, as the snapshot holds them. */
  tables: Type.Record(Type.String(), Type.Integer({ minimum: 0 })),
  ledger: Type.Object({ transactions: Type.Integer({ minimum: 0 }), entries: Type.Integer({ minimum: 0 }) }),
  keys: Keys,
  database: FileDigest,
});
export type BackupManifest = Static<typeof BackupManifest>;

export function parseManifest(text: string): BackupManifest | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  return Value.Check(BackupManifest, value) ? value : null;
}
