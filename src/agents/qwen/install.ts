// `recap install qwen` and `recap uninstall qwen`: recap's hooks in Qwen Code's settings,
// merged with what is there, written atomically.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { RECAP_HOOK_BIN } from '../../common/bins.js';
import { hookEnvironment } from '../hookEnvironment.js';
import { jsonText, writeAtomically } from '../kit/files.js';
import { InstallError } from '../kit/installError.js';
import { JSONC, readSettingsFile } from '../kit/jsonFile.js';
import { homeOf, type Scope } from '../kit/scopes.js';
import { commandHook, withoutRecap, withRecap, type Settings } from './settings.js';

/** Qwen Code's own folder: QWEN_HOME (which replaces ~/.qwen whole), else ~/.qwen. */
export function qwenHome(env: NodeJS.ProcessEnv): string {
  const home = homeOf(env);
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
  return readSettingsFile(file, JSONC);
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
  writeAtomically(file, jsonText(after));
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
