// `recap install qwen` and `recap uninstall qwen`: recap's hooks in Qwen Code's settings,
// merged with what is there, written atomically.
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { RECAP_HOOK_BIN } from '../../common/bins.js';
import { UserError } from '../../common/errors.js';
import { hookEnvironment } from '../hookEnvironment.js';
import { withoutComments } from '../jsonComments.js';
import { commandHook, withoutRecap, withRecap, type Settings } from './settings.js';

export type Scope = 'user' | 'project';

/** A mistake in the user's files that recap will not write over. */
export class InstallError extends UserError {}

/** Qwen Code's own folder: QWEN_HOME (which replaces ~/.qwen whole), else ~/.qwen. */
export function qwenHome(env: NodeJS.ProcessEnv): string {
  const home = env.HOME ?? homedir();
  const custom = env.QWEN_HOME;
  if (!custom) return join(home, '.qwen');
  if (custom === '~') return home;
  return custom.startsWith('~/') ? join(home, custom.slice(2)) : resolve(custom);
}

/** Where recap's hooks go: the user settings, or the project's .qwen/settings.json. */
export function settingsFile(scope: Scope, project: string, env: NodeJS.ProcessEnv): string {
  return scope === 'user' ? join(qwenHome(env), 'settings.json') : join(project, '.qwen', 'settings.json');
}

export type Read = { settings: Settings; comments: boolean };

/** A settings file as Qwen Code reads it (JSON with comments, a BOM allowed); {} when there is none. */
export function readSettings(file: string): Read {
  if (!existsSync(file)) return { settings: {}, comments: false };
  const { json, comments } = withoutComments(readFileSync(file, 'utf8').replace(/^\uFEFF/, ''));
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (error) {
    const reason = (error as Error).message.replace(/\s+/g, ' ');
    throw new InstallError(`cannot read ${file}: ${reason}; fix it or move it aside (recap changed nothing)`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new InstallError(`${file} does not hold a JSON object; fix it or move it aside (recap changed nothing)`);
  }
  const hooks = (parsed as Settings).hooks;
  if (hooks !== undefined && (hooks === null || typeof hooks !== 'object' || Array.isArray(hooks))) {
    throw new InstallError(`"hooks" in ${file} is not an object; fix it or move it aside (recap changed nothing)`);
  }
  return { settings: parsed as Settings, comments };
}

/** Writes through a temporary file and a rename, so a crash never leaves half a file. */
function writeSettings(file: string, settings: Settings): void {
  mkdirSync(dirname(file), { recursive: true });
  const mode = existsSync(file) ? statSync(file).mode & 0o777 : 0o644;
  const temporary = `${file}.recap-${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(settings, null, 2)}\n`, { mode });
  renameSync(temporary, file);
}

/** Applies `change` to the file; writes only when something changed. Whether it wrote. */
function update(file: string, change: (s: Settings) => Settings): boolean {
  const { settings, comments } = readSettings(file);
  const after = change(settings);
  if (JSON.stringify(after) === JSON.stringify(settings)) return false;
  // Written back as plain JSON, the user's comments would be gone.
  if (comments) {
    throw new InstallError(
      `${file} holds comments, which recap would lose by writing the file; take them out (or move the file aside) and run the command again (recap changed nothing)`,
    );
  }
  writeSettings(file, after);
  return true;
}

export function installHooks(scope: Scope, project: string, env: NodeJS.ProcessEnv): { file: string; changed: boolean } {
  const file = settingsFile(scope, project, env);
  return { file, changed: update(file, (s) => withRecap(s, commandHook(RECAP_HOOK_BIN, process.execPath, hookEnvironment(env)))) };
}

export function uninstallHooks(scope: Scope, project: string, env: NodeJS.ProcessEnv): string[] {
  const file = settingsFile(scope, project, env);
  if (!existsSync(file)) return [];
  return update(file, withoutRecap) ? [file] : [];
}
