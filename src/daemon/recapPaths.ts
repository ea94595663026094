// The absolute paths an agent may use to name the real recap executable: the package's own
// bin script and any `recap` on the PATH that resolves to it.
import { existsSync, realpathSync } from 'node:fs';
import { delimiter, join } from 'node:path';
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
