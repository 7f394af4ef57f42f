/**
 * Backups of the embedded database (decision 0024): `paysail backup create / verify / restore`, and
 * the running server's backup socket that gives the CLI a consistent snapshot. PostgreSQL
 * installations back up with PostgreSQL's own tools (docs/guides/deployment.md#backups).
 */
export { BackupError } from './archive.ts';
export { backupSocketPath, serveBackupSocket, type BackupSocket } from './control.ts';
export { createBackup, type CreatedBackup } from './create.ts';
export type { BackupManifest } from './manifest.ts';
export { restoreBackup, verifyBackup, type VerifiedBackup } from './restore.ts';
export type { Inspection } from './snapshot.ts';
