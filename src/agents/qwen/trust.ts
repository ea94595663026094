// Whether Qwen Code will run the hooks it finds: `disableAllHooks` in any settings layer it
// loads turns every hook off, and a project's settings (hooks included) load only in a
// trusted folder once folder trust is on. Read as Qwen Code 0.24.4 reads them.
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, normalize, relative, resolve, sep } from 'node:path';
import { systemSettingsFiles } from './facts.js';
import { qwenHome, readSettings, settingsFile } from './install.js';
import { withoutComments } from '../kit/jsonComments.js';
import type { Settings } from './settings.js';

/** A settings file's object, or undefined when it is missing or unreadable (doctor says so elsewhere). */
function tryRead(file: string): Settings | undefined {
  try {
    return existsSync(file) ? readSettings(file).settings : undefined;
  } catch {
    return undefined;
  }
}

const folderTrustIn = (settings: Settings | undefined): boolean | undefined => {
  const value = (settings?.security as { folderTrust?: { enabled?: unknown } } | undefined)?.folderTrust?.enabled;
  return typeof value === 'boolean' ? value : undefined;
};

/** Whether folder trust is on: system defaults, then the user's settings, then the system's. */
export function folderTrustEnabled(env: NodeJS.ProcessEnv): boolean {
  const [system, defaults] = systemSettingsFiles(env).map(tryRead);
  return folderTrustIn(system) ?? folderTrustIn(tryRead(settingsFile('user', '', env))) ?? folderTrustIn(defaults) ?? false;
}

export type Trust = 'trusted' | 'untrusted' | 'undecided';

const variants = (path: string): string[] => {
  const found = [normalize(resolve(path))];
  try {
    found.push(normalize(realpathSync(path)));
  } catch {
    // A path that does not exist is compared as written.
  }
  return [...new Set(found)];
};

const depth = (path: string) => path.split(sep).filter(Boolean).length;

function within(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** The trusted-folders file Qwen Code reads. */
export function trustedFoldersFile(env: NodeJS.ProcessEnv): string {
  return env.QWEN_CODE_TRUSTED_FOLDERS_PATH || join(qwenHome(env), 'trustedFolders.json');
}

/**
 * A folder's trust by the rules in trustedFolders.json: the deepest rule that holds the
 * folder decides (TRUST_PARENT names a folder whose parent is trusted), DO_NOT_TRUST winning a tie.
 */
export function folderTrust(folder: string, env: NodeJS.ProcessEnv): Trust {
  let rules: Record<string, unknown> = {};
  try {
    const file = trustedFoldersFile(env);
    if (existsSync(file)) rules = JSON.parse(withoutComments(readFileSync(file, 'utf8')).json) as Record<string, unknown>;
  } catch {
    // Qwen Code refuses to start with a broken file; nothing is trusted here.
  }
  const here = variants(folder);
  let winner: { level: Trust; depth: number } | undefined;
  for (const [path, level] of Object.entries(rules ?? {})) {
    const trust = level === 'TRUST_FOLDER' || level === 'TRUST_PARENT' ? 'trusted' : level === 'DO_NOT_TRUST' ? 'untrusted' : undefined;
    if (trust === undefined) continue;
    const root = level === 'TRUST_PARENT' ? dirname(path) : path;
    const matched = Math.max(
      -1,
      ...variants(root)
        .filter((r) => here.some((h) => within(h, r)))
        .map(depth),
    );
    if (matched < 0) continue;
    if (winner === undefined || matched > winner.depth || (matched === winner.depth && trust === 'untrusted')) winner = { level: trust, depth: matched };
  }
  return winner?.level ?? 'undecided';
}

/** Whether Qwen Code loads a project's settings (and so its hooks) in `project`. */
export function projectSettingsLoad(project: string, env: NodeJS.ProcessEnv): boolean {
  return !folderTrustEnabled(env) || folderTrust(project, env) === 'trusted';
}

/**
 * The settings file whose `disableAllHooks: true` turns every hook off, if one does: the
 * layers merge from the system defaults up through the user's and the project's (when it
 * loads) to the system's, the last to say decides.
 */
export function hooksDisabledBy(project: string, env: NodeJS.ProcessEnv): string | undefined {
  const [system, defaults] = systemSettingsFiles(env) as [string, string];
  const layers = [defaults, settingsFile('user', project, env), ...(projectSettingsLoad(project, env) ? [settingsFile('project', project, env)] : []), system];
  let decides: { file: string; off: boolean } | undefined;
  for (const file of layers) {
    const value = tryRead(file)?.disableAllHooks;
    if (typeof value === 'boolean') decides = { file, off: value };
  }
  return decides?.off ? decides.file : undefined;
}
