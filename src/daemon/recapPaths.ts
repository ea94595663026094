// The absolute paths an agent may use to name the real recap executable: the package's own
// bin script and any `recap` on the PATH that resolves to it.
import { existsSync, realpathSync } from 'node:fs';
import { basename, delimiter, dirname, join } from 'node:path';
import { dataDir, socketPath, userConfigPath } from '../common/paths.js';
import { RECAP_BIN } from '../common/bins.js';

export function recapPaths(env: NodeJS.ProcessEnv): Set<string> {
  const real = realpathOr(RECAP_BIN);
  const paths = new Set([RECAP_BIN, real]);
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir.startsWith('/')) continue;
    const candidate = join(dir, 'recap');
    if (existsSync(candidate) && realpathOr(candidate) === real) paths.add(candidate);
  }
  return paths;
}

function realpathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * recap's own files, off limits to the agent: the data folder, the socket and the user
 * config, with their folders when those are recap's own (not, say, a shared /tmp).
 */
export function protectedPaths(env: NodeJS.ProcessEnv): string[] {
  const withOwnFolder = (file: string) => (isRecapFolder(dirname(file)) ? [file, dirname(file)] : [file]);
  return [dataDir(env), ...withOwnFolder(socketPath(env)), ...withOwnFolder(userConfigPath(env))];
}

/** A folder recap makes for itself: `recap`, or `/tmp/recap-$UID` for the socket. */
export function isRecapFolder(dir: string): boolean {
  return /^recap(-\d+)?$/.test(basename(dir));
}
