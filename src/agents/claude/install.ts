// `recap install claude` and `recap uninstall claude`: recap's hooks in Claude Code's
// settings, merged with what is there, written atomically.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { RECAP_HOOK_BIN } from '../../common/bins.js';
import { UserError } from '../../common/errors.js';
import { commandHook, httpHook, portableCommandHook, withoutRecap, withRecap, type Settings } from './settings.js';

export type Scope = 'user' | 'project';

/** A mistake in the user's files that recap will not write over. */
export class InstallError extends UserError {}

/**
 * Where recap's hooks go. A token must stay out of files a project commits, so with HTTP
 * hooks the project scope writes to settings.local.json.
 */
export function settingsFiles(scope: Scope, project: string, env: NodeJS.ProcessEnv): { shared: string; local: string } {
  if (scope === 'user') {
    const file = join(env.CLAUDE_CONFIG_DIR ?? join(env.HOME ?? homedir(), '.claude'), 'settings.json');
    return { shared: file, local: file };
  }
  return { shared: join(project, '.claude', 'settings.json'), local: join(project, '.claude', 'settings.local.json') };
}

export function readSettings(file: string): Settings {
  if (!existsSync(file)) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
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
  return parsed as Settings;
}

/** Writes through a temporary file and a rename, so a crash never leaves half a file. */
function writeSettings(file: string, settings: Settings, mode?: number): void {
  mkdirSync(dirname(file), { recursive: true });
  const keep = existsSync(file) ? statSync(file).mode & 0o777 : 0o644;
  const temporary = `${file}.recap-${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(settings, null, 2)}\n`, { mode: mode ?? keep });
  if (mode !== undefined) chmodSync(temporary, mode);
  renameSync(temporary, file);
}

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
  for (const p of planned) if (p.write) writeSettings(p.file, p.after, p.mode);
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
 * Events whose hook stays a command: Claude Code skips HTTP hooks on SessionStart, and
 * PostCompact's is not on any gate's path.
 */
const COMMAND_ONLY = new Set(['SessionStart', 'PostCompact']);

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
export function claudeVersion(env: NodeJS.ProcessEnv): string | undefined {
  try {
    const out = execFileSync('claude', ['--version'], { env, encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'] });
    return /\d+\.\d+\.\d+/.exec(out)?.[0];
  } catch {
    // Not installed, not on PATH, or not answering: recap's hooks are written all the same.
    return undefined;
  }
}

/** Whether a Claude Code version denies a call when its PreToolUse hook fails. */
export function failsClosed(version: string): boolean {
  const [a = 0, b = 0, c = 0] = version.split('.').map(Number);
  const [x, y, z] = FAIL_CLOSED_SINCE.split('.').map(Number) as [number, number, number];
  return a !== x ? a > x : b !== y ? b > y : c >= z;
}

/** What the user should know about the installed Claude Code, if anything. */
export function claudeVersionWarning(version: string | undefined): string | undefined {
  if (version === undefined) return undefined;
  if (failsClosed(version)) return undefined;
  return (
    `Claude Code ${version} ignores onFailure: "block", so a failing recap hook lets the tool run (the gate fails open); ` +
    `update Claude Code to ${FAIL_CLOSED_SINCE} or newer (claude update)`
  );
}
