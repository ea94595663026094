// Claude Code's sandbox on disk: written into the settings file recap's hooks are in, with a
// record of what recap added (sandboxRecord.ts); checked by `recap doctor`; and seen by the
// daemon, which then answers the way out in the hook, since a sandboxed Bash cannot reach it.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Check } from '../../common/check.js';
import { sandboxPaths } from '../recapPaths.js';
import type { Caller } from '../adapter.js';
import { recordSandbox, sandboxAdded, type SandboxAdded } from '../sandboxRecord.js';
import { InstallError } from '../kit/installError.js';
import { scopeFlag, SCOPES, type Scope } from '../kit/scopes.js';
import { editSettings, readSettings, settingsFiles } from './install.js';
import { sandboxConflicts, sandboxEnabled, sandboxGaps, sandboxWarnings, withoutRecapSandbox, withRecapSandbox, type SandboxPaths } from './sandbox.js';

/**
 * recap's paths for Claude Code's sandbox, from recap's own list of its files. The setup files
 * that do not exist are left out: for a missing path the sandbox puts an unreadable stand-in
 * there, and bash, say, then fails on a missing ~/.bashrc in every command (Claude Code keeps
 * shell start-up files from writes itself; recap's hook judges writes of the rest). recap's
 * own files stay listed whether they exist or not, so no program makes them first.
 */
export function claudeSandboxPaths(scope: Scope, project: string, env: NodeJS.ProcessEnv): SandboxPaths {
  const { secret, readOnly } = sandboxPaths(env, scope === 'project' ? project : undefined);
  // The settings files recap writes, its sandbox among them, whether there yet or not.
  const ours = new Set(Object.values(settingsFiles(scope, project, env)));
  return { denyRead: secret, denyWrite: [...secret, ...readOnly.filter((path) => ours.has(path) || existsSync(path))] };
}

/**
 * Refuses, before anything is written, when a settings file Claude Code merges for this scope
 * holds sandbox settings of the user's that would open the sandbox recap configures.
 */
export function refuseOpenSandbox(scope: Scope, project: string, env: NodeJS.ProcessEnv): void {
  const files = [...new Set([...Object.values(settingsFiles(scope, project, env)), settingsFiles('user', project, env).shared])];
  const { denyRead } = claudeSandboxPaths(scope, project, env);
  const conflicts = files.flatMap((file) => sandboxConflicts(readSettings(file), denyRead).map((c) => `${c} (${file})`));
  if (conflicts.length === 0) return;
  throw new InstallError(
    `Claude Code's settings would let the agent's shell reach recap's files or socket: ${conflicts.join('; ')}. ` +
      'Then run recap install claude --sandbox again (recap changed nothing)',
  );
}

/** Adds recap's sandbox to `file` (recap's hooks' settings file); the warnings for the user. */
export function installSandbox(scope: Scope, project: string, env: NodeJS.ProcessEnv, file: string): { changed: boolean; warnings: string[] } {
  const current = readSettings(file);
  const previous = sandboxAdded(env, file);
  const paths = claudeSandboxPaths(scope, project, env);
  let added: SandboxAdded = { keys: [], paths: {} };
  const changed = editSettings(file, (settings) => {
    const result = withRecapSandbox(previous ? withoutRecapSandbox(settings, previous) : settings, paths);
    added = result.added;
    return result.settings;
  });
  recordSandbox(env, file, added.keys.length > 0 || Object.keys(added.paths).length > 0 ? added : undefined);
  return { changed, warnings: sandboxWarnings(current) };
}

/** Takes recap's sandbox out of the scope's settings files, where recap recorded it; the files changed. */
export function uninstallSandbox(scope: Scope, project: string, env: NodeJS.ProcessEnv): string[] {
  const { shared, local } = settingsFiles(scope, project, env);
  const changed: string[] = [];
  for (const file of new Set([shared, local])) {
    const added = sandboxAdded(env, file);
    if (added === undefined) continue;
    if (existsSync(file) && editSettings(file, (settings) => withoutRecapSandbox(settings, added))) changed.push(file);
    recordSandbox(env, file, undefined);
  }
  return changed;
}

/** `recap doctor`: the sandbox recap configured, where it did, still whole. */
export function sandboxChecks(project: string, env: NodeJS.ProcessEnv): Check[] {
  const checks: Check[] = [];
  for (const scope of SCOPES) {
    const { shared, local } = settingsFiles(scope, project, env);
    for (const file of new Set([shared, local])) {
      if (sandboxAdded(env, file) === undefined) continue;
      let gaps: string[];
      try {
        gaps = sandboxGaps(readSettings(file), claudeSandboxPaths(scope, project, env));
      } catch (error) {
        gaps = [(error as Error).message];
      }
      const fix = `recap install claude --sandbox${scopeFlag(scope)}`;
      checks.push(
        gaps.length === 0
          ? { name: 'claude sandbox', ok: true, detail: `Claude Code's sandbox keeps its Bash tool out of recap's files and socket (${file})` }
          : { name: 'claude sandbox', ok: false, detail: `the sandbox recap configured in ${file} is not whole: ${gaps.join('; ')}`, fix },
      );
    }
  }
  return checks;
}

/** Settings files by path, read again only when they change: the daemon asks on every way out. */
const seen = new Map<string, { mtimeMs: number; size: number; on: boolean }>();

function enablesSandbox(file: string): boolean {
  let stat;
  try {
    stat = statSync(file);
  } catch {
    return false;
  }
  const known = seen.get(file);
  if (known !== undefined && known.mtimeMs === stat.mtimeMs && known.size === stat.size) return known.on;
  let on = false;
  try {
    on = sandboxEnabled(JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    // Unreadable: Claude Code refuses it too.
  }
  seen.set(file, { mtimeMs: stat.mtimeMs, size: stat.size, on });
  return on;
}

/** Claude Code's managed settings on Linux and macOS: they win over every other file. */
const MANAGED = ['/etc/claude-code/managed-settings.json', '/Library/Application Support/ClaudeCode/managed-settings.json'];

/**
 * Whether a Claude Code session may run its Bash tool in its sandbox: a settings file it reads
 * turns the sandbox on. The managed file, the user's (the daemon's CLAUDE_CONFIG_DIR or
 * ~/.claude, and the folder the session's transcript is in), and the project's in the
 * session's folder and every folder above it. In doubt it says yes: the way out answered by
 * the hook works in or out of a sandbox, the one run in the shell only outside.
 */
export function claudeSandboxOn(caller: Caller, env: NodeJS.ProcessEnv = process.env): boolean {
  const files = [...MANAGED, settingsFiles('user', '', env).shared];
  const transcript = caller.transcript;
  // <config dir>/projects/<project>/<session>.jsonl
  if (transcript !== undefined && basename(dirname(dirname(transcript))) === 'projects') files.push(join(dirname(dirname(dirname(transcript))), 'settings.json'));
  for (let dir = caller.cwd; ; dir = dirname(dir)) {
    files.push(join(dir, '.claude', 'settings.json'), join(dir, '.claude', 'settings.local.json'));
    if (dirname(dir) === dir) break;
  }
  return files.some(enablesSandbox);
}
