// recap's data folder made (0700) before anything is written there, by the daemon and by the
// CLI that starts one: a folder that cannot be made or written says what stands in the way and
// what to do, in recap's words rather than the system's.
import { mkdirSync } from 'node:fs';
import { UserError } from './errors.js';
import { dataDir } from './paths.js';

export class DataFolderUnusable extends UserError {}

/** Makes the data folder if it is missing; throws DataFolderUnusable when it cannot be. */
export function makeDataFolder(env: NodeJS.ProcessEnv = process.env): string {
  const dir = dataDir(env);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw unusable(dir, error);
  }
  return dir;
}

/** Why the data folder `dir` (or `path`, a file in it) could not be made or written, and what to do. */
export function unusable(dir: string, error: unknown): DataFolderUnusable {
  const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  const instead = 'or set RECAP_DATA_DIR to a folder of yours';
  if (code === 'EEXIST' || code === 'ENOTDIR')
    return new DataFolderUnusable(`recap's data folder ${dir} is a file, or lies under one, not a folder: move that file away, ${instead}`);
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS')
    return new DataFolderUnusable(`recap's data folder ${dir} cannot be written (${code}): make it yours and writable (chown, chmod u+rwx), ${instead}`);
  return new DataFolderUnusable(`recap's data folder ${dir} cannot be used (${code}): fix that, ${instead}`);
}
