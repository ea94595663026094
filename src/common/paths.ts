// Where recap keeps its socket, log and config. Node built-ins only: the hook client uses it.
// Linux and the other Unixes follow XDG; macOS keeps recap's files in ~/Library/Application
// Support and its socket under the per-user $TMPDIR, unless the user set the XDG variables.
// The platform is an argument (process.platform by default) so the macOS answers are tested anywhere.
import { homedir, userInfo } from 'node:os';
import { isAbsolute, join } from 'node:path';

type Env = NodeJS.ProcessEnv;
type Platform = NodeJS.Platform;

function uid(): number {
  return process.getuid?.() ?? userInfo().uid;
}

/**
 * An XDG base folder: the variable's value when it is an absolute path, else undefined. The
 * XDG spec says a relative (or empty) value is invalid and must be ignored: an empty
 * XDG_CONFIG_HOME must not put files under the current folder. Every XDG_* read goes here.
 */
export function xdgDir(env: Env, name: 'XDG_RUNTIME_DIR' | 'XDG_DATA_HOME' | 'XDG_CONFIG_HOME'): string | undefined {
  const value = env[name];
  return value !== undefined && isAbsolute(value) ? value : undefined;
}

/** The user's config folder (where systemd looks for user units too): $XDG_CONFIG_HOME, else ~/.config. */
export function xdgConfigHome(env: Env = process.env): string {
  return xdgDir(env, 'XDG_CONFIG_HOME') ?? join(env.HOME ?? homedir(), '.config');
}

/**
 * macOS's folder for recap's data and config, when XDG does not name one: where the platform
 * keeps an application's own files (there is no ~/.local/share or ~/.config convention).
 */
function macSupportDir(env: Env): string {
  return join(env.HOME ?? homedir(), 'Library', 'Application Support', 'recap');
}

/**
 * The daemon's socket. Its folder (`recap-<uid>`, made 0700 by the daemon) sits in
 * $XDG_RUNTIME_DIR, else in a temporary folder: /tmp, or on macOS the per-user $TMPDIR
 * (/var/folders/…/T/, 0700 and the user's alone), since macOS has no runtime folder. The uid in
 * the name keeps users apart when that folder is a shared one.
 */
export function socketPath(env: Env = process.env, platform: Platform = process.platform): string {
  if (env.RECAP_SOCKET) return env.RECAP_SOCKET;
  const runtime = xdgDir(env, 'XDG_RUNTIME_DIR');
  if (runtime !== undefined) return join(runtime, 'recap', 'recapd.sock');
  const temporary = platform === 'darwin' && env.TMPDIR !== undefined && isAbsolute(env.TMPDIR) ? env.TMPDIR : '/tmp';
  return join(temporary, `recap-${uid()}`, 'recapd.sock');
}

/**
 * The socket where the daemon speaks HTTP to recap's hook launcher (bin/recap-hook.sh), beside
 * the main one: `recapd.sock` gives `recapd.http.sock`. A socket of its own, not the main one
 * told apart by its first bytes: a daemon of an older recap then simply has none, and the
 * launcher hands every call to recap-hook instead of meeting a protocol it does not speak.
 */
export function launcherSocketPath(socket: string): string {
  return `${socket.replace(/\.sock$/, '')}.http.sock`;
}

/** recap's data folder: the event log lives in `log/` inside it, the daemon's log file beside it. */
export function dataDir(env: Env = process.env, platform: Platform = process.platform): string {
  if (env.RECAP_DATA_DIR) return env.RECAP_DATA_DIR;
  const xdg = xdgDir(env, 'XDG_DATA_HOME');
  if (xdg === undefined && platform === 'darwin') return macSupportDir(env);
  return join(xdg ?? join(homedir(), '.local', 'share'), 'recap');
}

export function eventLogDir(env: Env = process.env): string {
  return join(dataDir(env), 'log');
}

/**
 * The manifest of recap's installed code that `recap install` writes and the daemon checks at
 * start: in the data folder, which the agent's tools may not touch (daemon/recapPaths.ts).
 */
export function codeManifestPath(env: Env = process.env): string {
  return join(dataDir(env), 'code-manifest.json');
}

export function daemonLogFile(env: Env = process.env): string {
  return join(dataDir(env), 'recapd.log');
}

/** The user's config file; on macOS without XDG_CONFIG_HOME, beside recap's data in Application Support. */
export function userConfigPath(env: Env = process.env, platform: Platform = process.platform): string {
  if (env.RECAP_CONFIG) return env.RECAP_CONFIG;
  const xdg = xdgDir(env, 'XDG_CONFIG_HOME');
  if (xdg === undefined && platform === 'darwin') return join(macSupportDir(env), 'config.conf');
  return join(xdg ?? join(homedir(), '.config'), 'recap', 'config.conf');
}

export function projectConfigPath(projectDir: string): string {
  return join(projectDir, '.recap', 'config.conf');
}

/** The bearer token of the HTTP hook endpoint (0600). */
export function httpTokenFile(env: Env = process.env): string {
  return join(dataDir(env), 'http-token');
}

/** The audit page's token (`recap ui`): kept, so a browser's cookie outlives a daemon restart. */
export function uiTokenFile(env: Env = process.env): string {
  return join(dataDir(env), 'ui-token');
}

/**
 * The launcher the daemon keeps in its protected data folder: the one name of recap a
 * whitelisted command may use, since no file the agent can write shadows it.
 */
export function launcherPath(env: Env = process.env): string {
  return join(dataDir(env), 'bin', 'recap');
}
