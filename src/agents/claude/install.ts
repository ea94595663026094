// `recap install claude` and `recap uninstall claude`: recap's hooks in Claude Code's
// settings, merged with what is there, written atomically.
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { RECAP_HOOK_BIN } from '../../common/bins.js';
import { agentVersion, compareVersions } from '../kit/agentVersion.js';
import { jsonText, writeAtomically } from '../kit/files.js';
import { readSettingsFile } from '../kit/jsonFile.js';
import { homeOf, type Scope } from '../kit/scopes.js';
import { commandHook, httpHook, portableCommandHook, withoutRecap, withRecap, type Settings } from './settings.js';

/**
 * Where recap's hooks go. A token must stay out of files a project commits, so with HTTP
 * hooks the project scope writes to settings.local.json.
 */
export function settingsFiles(scope: Scope, project: string, env: NodeJS.ProcessEnv): { shared: string; local: string } {
  if (scope === 'user') {
    const file = join(env.CLAUDE_CONFIG_DIR ?? join(homeOf(env), '.claude'), 'settings.json');
    return { shared: file, local: file };
  }
  return { shared: join(project, '.claude', 'settings.json'), local: join(project, '.claude', 'settings.local.json') };
}

/** A settings file as Claude Code reads it (plain JSON); {} when there is none. */
export const readSettings = (file: string): Settings => readSettingsFile(file).settings;

type Change = { file: string; change: (s: Settings) => Settings; mode?: number };

/**
 * Applies each change to its file. Every file is read (and so checked) before any is
 * written, so a broken file leaves all of them as they were.
 */
function updateAll(changes: Change[]): boolean[] {
  const planned = changes.map(({ file, change, mode }) => {
    const before = readSettings(file);
    const after = change(before);
    const sameMode = mode === undefined || !existsSync(file) || (statSync(file).mode & 0o777) === mode;
    return { file, after, mode, write: JSON.stringify(after) !== JSON.stringify(before) || !sameMode };
  });
  for (const p of planned) if (p.write) writeAtomically(p.file, jsonText(p.after), p.mode === undefined ? {} : { mode: p.mode, exact: true });
  return planned.map((p) => p.write);
}

/** Changes one settings file, written only when it changed; whether it did. */
export const editSettings = (file: string, change: (s: Settings) => Settings): boolean => updateAll([{ file, change }])[0] ?? false;

export type Installed = { file: string; mode: 'command' | 'http'; changed: boolean };

/**
 * `failClosed`: whether to write `onFailure: "block"` on the gate's hook, which only a
 * Claude Code of FAIL_CLOSED_SINCE or newer honours.
 */
export function installCommandHooks(scope: Scope, project: string, env: NodeJS.ProcessEnv, failClosed = true): Installed {
  const { shared, local } = settingsFiles(scope, project, env);
  // A project's settings.json is committed: it takes the bin's name, which works on a teammate's machine too.
  const hook = scope === 'project' ? portableCommandHook() : commandHook(RECAP_HOOK_BIN);
  const changes: Change[] = [{ file: shared, change: (s) => withRecap(s, () => hook, failClosed) }];
  if (local !== shared && existsSync(local)) changes.push({ file: local, change: withoutRecap });
  const [changed = false] = updateAll(changes);
  return { file: shared, mode: 'command', changed };
}

/**
 * Events whose hook stays a command: Claude Code skips HTTP hooks on SessionStart; PreCompact
 * steers the summary with a command's plain stdout (verified for command hooks only); and
 * neither compaction hook, nor SessionEnd (verified as a command hook), is on any gate's path.
 */
const COMMAND_ONLY = new Set(['SessionStart', 'PreCompact', 'PostCompact', 'SessionEnd']);

/** HTTP hooks, but for the events in COMMAND_ONLY. */
export function installHttpHooks(scope: Scope, project: string, env: NodeJS.ProcessEnv, url: string, token: string, failClosed = true): Installed {
  const { shared, local } = settingsFiles(scope, project, env);
  const entryFor = (event: string) => (COMMAND_ONLY.has(event) ? commandHook(RECAP_HOOK_BIN) : httpHook(url, token));
  const changes: Change[] = [{ file: local, change: (s) => withRecap(s, entryFor, failClosed), mode: 0o600 }];
  if (local !== shared && existsSync(shared)) changes.push({ file: shared, change: withoutRecap });
  const [changed = false] = updateAll(changes);
  return { file: local, mode: 'http', changed };
}

export function uninstallHooks(scope: Scope, project: string, env: NodeJS.ProcessEnv): string[] {
  const { shared, local } = settingsFiles(scope, project, env);
  const files = [...new Set([shared, local])].filter((file) => existsSync(file));
  const changed = updateAll(files.map((file) => ({ file, change: withoutRecap })));
  return files.filter((_, i) => changed[i]);
}

/** The first Claude Code that honours `onFailure: "block"`; older ones ignore it silently. */
export const FAIL_CLOSED_SINCE = '2.1.295';

/** The installed Claude Code's version (`claude --version`), or undefined when there is no `claude`. */
export const claudeVersion = (env: NodeJS.ProcessEnv): string | undefined => agentVersion('claude', env, 10_000);

/** Whether a Claude Code version denies a call when its PreToolUse hook fails. */
export const failsClosed = (version: string): boolean => compareVersions(version, FAIL_CLOSED_SINCE) >= 0;

/** What the user should know about the installed Claude Code, if anything. */
export function claudeVersionWarning(version: string | undefined): string | undefined {
  if (version === undefined) return undefined;
  if (failsClosed(version)) return undefined;
  return (
    `Claude Code ${version} ignores onFailure: "block", so a failing recap hook lets the tool run (the gate fails open); ` +
    `update Claude Code to ${FAIL_CLOSED_SINCE} or newer (claude update)`
  );
}
