// Which files are recap's, seen from the daemon: the launcher that names the real recap,
// the state the agent may not touch at all, and the setup the agent may read but never change.
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, delimiter, dirname, join } from 'node:path';
import { dataDir, launcherPath, launcherSocketPath, socketPath, userConfigPath, xdgConfigHome } from '../common/paths.js';
import { PACKAGE_ROOT, RECAP_BIN } from '../common/bins.js';
import type { ProtectedState } from '../events/protection.js';
import type { RecapProcesses } from '../events/recapSignals.js';
import { AGENT_FACTS, AGENT_SHELL_VARIABLES } from './known.js';
import { linkFollower } from '../common/linkFollower.js';
import { writeWhole } from '../common/wholeFile.js';
import { realOr } from './kit/files.js';
import { launchdPlistPath } from '../common/launchdAgentPath.js';
import { daemonCommand } from '../common/daemonStart.js';

const shellQuote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/** The launcher's text: this Node and this recap, both by absolute path, so PATH plays no part. */
export function launcherScript(node = process.execPath, bin = realOr(RECAP_BIN)): string {
  return `#!/bin/sh\n# Written by the recap daemon at start-up; the way out of a tripped gate runs this.\nexec ${shellQuote(node)} ${shellQuote(bin)} "$@"\n`;
}

/**
 * Writes the launcher when it is missing or differs (a new Node, a moved package), through
 * a temporary file and a rename so a hook never runs half a script. Returns its path.
 */
export function writeLauncher(env: NodeJS.ProcessEnv): string {
  const path = launcherPath(env);
  const text = launcherScript();
  if (existsSync(path) && readFileSync(path, 'utf8') === text && (statSync(path).mode & 0o777) === 0o700) return path;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeWhole(path, text, { mode: 0o700 });
  return path;
}

/**
 * The names a whitelisted command may give recap: the launcher only. Not `recap` on PATH, nor
 * the package's bin: a PATH entry or a Node on PATH is a file the agent may have written.
 * The first entry is the one the messages name.
 */
export function recapPaths(env: NodeJS.ProcessEnv): Set<string> {
  return new Set([launcherPath(env)]);
}

const withReal = (paths: string[]) => [...new Set(paths.flatMap((p) => [p, realOr(p)]))];

/**
 * recap's own files, off limits to the agent: the data folder, the sockets (the hook
 * launcher's beside the daemon's) and the user config, with their folders when those are
 * recap's own (not, say, a shared /tmp).
 */
export function protectedPaths(env: NodeJS.ProcessEnv): string[] {
  const withOwnFolder = (file: string) => (isRecapFolder(dirname(file)) ? [file, dirname(file)] : [file]);
  return [dataDir(env), ...withOwnFolder(socketPath(env)), launcherSocketPath(socketPath(env)), ...withOwnFolder(userConfigPath(env))];
}

/**
 * What wires recap in and what runs it, which the agent may read but not change: every
 * agent's user settings, recap's whole package (its code, package.json, node_modules: code
 * added to a dependency runs inside recap), its systemd units and launchd agent, and the Node that
 * the hook and the launcher name. A project's own settings files are added per project (projectReadOnlyPaths).
 */
export function readOnlyPaths(env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME ?? homedir();
  const units = join(xdgConfigHome({ ...env, HOME: home }), 'systemd', 'user');
  return withReal([
    ...Object.values(AGENT_FACTS).flatMap((agent) => agent.settingsFiles(env, home)),
    // The shell's start-up files: an agent's shell tool runs their functions (Claude Code
    // copies them into every Bash call), and bash lets a function take the launcher's very path.
    ...SHELL_STARTUP.map((file) => join(home, file)),
    ...packagePaths(),
    join(units, 'recap.service'),
    join(units, 'recap.socket'),
    // launchd's agent on macOS: a changed ProgramArguments would start another daemon at login.
    launchdPlistPath({ ...env, HOME: home }),
    process.execPath,
  ]);
}

/**
 * recap's package: its folder, its node_modules (a link, in a clone that shares one), and its
 * dependencies wherever Node finds them (hoisted beside it when installed in a project).
 */
function packagePaths(): string[] {
  return [PACKAGE_ROOT, join(PACKAGE_ROOT, 'node_modules'), ...dependencyFolders()];
}

/** The folders of the package's own dependencies found outside it, as Node's lookup finds them. */
function dependencyFolders(): string[] {
  let names: string[];
  try {
    const manifest = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    names = Object.keys(manifest.dependencies ?? {});
  } catch {
    return [];
  }
  const found: string[] = [];
  for (const name of names) {
    if (existsSync(join(PACKAGE_ROOT, 'node_modules', name))) continue;
    for (let dir = dirname(PACKAGE_ROOT); ; dir = dirname(dir)) {
      const folder = join(dir, 'node_modules', name);
      if (existsSync(folder)) {
        found.push(folder);
        break;
      }
      if (dirname(dir) === dir) break;
    }
  }
  return found;
}

/**
 * The package's code while recap runs from a clone that the project lies in (the user works
 * on recap itself): its source, tests and package.json are the work, so only the code that
 * runs (bin/, dist/, claude-plugin/, node_modules/) stays read-only there. An installed
 * package has no .git: its whole folder stays read-only whatever the agent's folder.
 */
function cloneCode(project: string | undefined): { whole: string[]; running: string[] } | undefined {
  if (project === undefined || !existsSync(join(PACKAGE_ROOT, '.git'))) return undefined;
  const whole = withReal([PACKAGE_ROOT]);
  if (!whole.some((root) => project === root || project.startsWith(`${root}/`))) return undefined;
  return { whole, running: withReal(['bin', 'dist', 'claude-plugin', 'node_modules'].map((d) => join(PACKAGE_ROOT, d))) };
}

/**
 * recap's files as an agent's OS sandbox is told them (`recap install <agent> --sandbox`): the
 * ones off limits (protectedPaths) denied to read and write, the setup (readOnlyPaths)
 * denied to write, and, for a project's install, the project's .recap folder and the agents'
 * settings in it. In a clone of recap, only the code that runs is denied, as protectionFor
 * does: the rest is the user's work.
 */
export function sandboxPaths(env: NodeJS.ProcessEnv, project?: string): { secret: string[]; readOnly: string[] } {
  const clone = existsSync(join(PACKAGE_ROOT, '.git')) ? withReal([PACKAGE_ROOT]) : [];
  const running = clone.length > 0 ? withReal(['bin', 'dist', 'claude-plugin', 'node_modules'].map((d) => join(PACKAGE_ROOT, d))) : [];
  const secret = withReal([...protectedPaths(env), ...(project !== undefined ? [join(project, '.recap')] : [])]);
  const readOnly = [...readOnlyPaths(env).filter((p) => !clone.includes(p)), ...running, ...(project !== undefined ? withReal(projectReadOnlyPaths(project)) : [])];
  return { secret, readOnly: [...new Set(readOnly)].filter((p) => !secret.includes(p)) };
}

/** Files a shell reads at start-up (and Claude Code's shell snapshot copies from). */
const SHELL_STARTUP = [
  ...['.bashrc', '.bash_profile', '.bash_login', '.bash_logout', '.bash_aliases', '.profile', '.zshrc', '.zshenv', '.zprofile', '.zlogin', '.zlogout', '.kshrc', '.mkshrc'],
  // fish's, and zsh's where ZDOTDIR points at ~/.config/zsh.
  ...['.config/fish/config.fish', '.config/fish/conf.d', '.config/fish/functions', '.config/zsh'],
];

/**
 * recap's files as a project's tool calls see them: the user-wide ones (`base`), with the
 * project's .recap folder (off limits) and the agents' project settings (read-only).
 */
export function protectionFor(base: ProtectedState, project: string | undefined): ProtectedState {
  const agents = { settingsNames: SETTINGS_NAMES, shellVariables: AGENT_SHELL_VARIABLES, links: linkFollower, agentLaunches: AGENT_LAUNCHES };
  if (project === undefined) return { ...agents, ...base };
  const clone = cloneCode(project);
  const readOnly = clone === undefined ? (base.readOnly ?? []) : [...(base.readOnly ?? []).filter((p) => !clone.whole.includes(p)), ...clone.running];
  return { ...agents, ...base, paths: [...base.paths, join(project, '.recap')], readOnly: [...readOnly, ...projectReadOnlyPaths(project)] };
}

const SETTINGS_NAMES = Object.values(AGENT_FACTS).flatMap((agent) => agent.settingsNames);
const AGENT_LAUNCHES = Object.values(AGENT_FACTS).map((agent) => agent.launch);

/**
 * recap's daemon as `ps` and pkill see it: its pid, its program's name and its command line.
 * The daemon passes its own; recap-hook, answering for a daemon that does not, the pid file's
 * and the command line recap starts a daemon with; `threads`, where the caller is the daemon, its threads' ids.
 */
export function recapProcesses(pid: number | undefined, argv: readonly string[] = daemonCommand(), threads?: () => number[]): RecapProcesses {
  const own = pid === undefined ? [] : [pid];
  const names = [basename(process.execPath), argv.join(' ')];
  if (threads === undefined) return { pids: own, names };
  // Its threads' ids beside its pid (`kill -9 <tid>` ends the whole process), read again at
  // most every THREADS_MS: a worker thread may start at any time.
  let read = 0;
  let pids = own;
  return {
    names,
    get pids() {
      if (Date.now() - read > THREADS_MS) {
        read = Date.now();
        pids = [...own, ...threads()];
      }
      return pids;
    },
  };
}

const THREADS_MS = 2000;

/** The agents' settings in a project, where a project-scoped install puts the hooks. */
export function projectReadOnlyPaths(project: string): string[] {
  return Object.values(AGENT_FACTS).flatMap((agent) => agent.projectSettingsFiles(project));
}

/**
 * Folders where a file named recap, recap-hook or node would shadow the real one for a
 * PATH lookup: every absolute folder on the daemon's PATH, and ~/.local/bin and ~/bin, which
 * login shells add to PATH once they exist.
 */
export function shadowDirs(env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME ?? homedir();
  const onPath = (env.PATH ?? '').split(delimiter).filter((dir) => dir.startsWith('/'));
  return [...new Set([...onPath, join(home, '.local', 'bin'), join(home, 'bin')].map((d) => d.replace(/\/+$/, '') || '/'))];
}

/** A folder recap makes for itself: `recap`, or `/tmp/recap-$UID` for the socket. */
export function isRecapFolder(dir: string): boolean {
  return /^recap(-\d+)?$/.test(basename(dir));
}
