// recap's own state is off limits to the agent, whether the gate is tripped or not: the
// event log, the socket and the config files cannot be read or changed through its tools,
// and the recap commands that change the setup cannot run through its Bash.
import { isAbsolute, join, normalize } from 'node:path/posix';
import { globReaches } from './glob.js';
import { tokenize } from './shellTokens.js';
import { classifyBash } from './whitelist.js';

export type ProtectedState = {
  /** Absolute files and folders the agent may not touch. */
  paths: string[];
  /** The user's home, to recognise `~/...` and `$HOME/...` spellings in commands. */
  home: string;
};

/** recap subcommands the agent may never run, tripped or not. */
const SETUP_SUBCOMMANDS = new Set(['install', 'uninstall', 'daemon', 'trip', 'import']);

/** Tool input fields that hold a path. */
const PATH_FIELDS = ['file_path', 'notebook_path', 'path'];

const field = (input: unknown, key: string): unknown =>
  input !== null && typeof input === 'object' ? (input as Record<string, unknown>)[key] : undefined;

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function absolute(path: string, cwd: string | undefined, home: string): string {
  const expanded = path === '~' ? home : path.startsWith('~/') ? join(home, path.slice(2)) : path;
  return normalize(isAbsolute(expanded) ? expanded : join(cwd ?? '/', expanded));
}

function inside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith('/') ? root : `${root}/`);
}

/** Why the call touches recap's state, or undefined when it does not. */
export function protectionRefusal(
  tool: string,
  input: unknown,
  cwd: string | undefined,
  state: ProtectedState,
  recapPaths: ReadonlySet<string>,
): string | undefined {
  if (tool === 'Bash') {
    const command = field(input, 'command');
    return typeof command === 'string' ? bashRefusal(command, cwd, state, recapPaths) : undefined;
  }
  const candidates = PATH_FIELDS.map((k) => field(input, k)).filter((v): v is string => typeof v === 'string');
  const pattern = field(input, 'pattern');
  if (tool === 'Glob' && typeof pattern === 'string') {
    const root = absolute(candidates[0] ?? '.', cwd, state.home);
    const glob = pattern.startsWith('/') || pattern.startsWith('~') ? absolute(pattern, cwd, state.home) : join(root, pattern);
    const hit = state.paths.find((p) => globReaches(glob, p));
    if (hit) return `${tool} on ${pattern} touches recap's own files (${hit})`;
  }
  for (const candidate of candidates) {
    const path = absolute(candidate, cwd, state.home);
    const hit = state.paths.find((p) => inside(path, p));
    if (hit) return `${tool} on ${candidate} touches recap's own files (${hit})`;
  }
  return undefined;
}

function bashRefusal(command: string, cwd: string | undefined, state: ProtectedState, recapPaths: ReadonlySet<string>): string | undefined {
  // The way out always passes: recap's own whitelisted commands read nothing of its files
  // for the agent, and a summary may well mention them.
  if (classifyBash(command, recapPaths).allowed) return undefined;
  for (const path of state.paths) {
    const hit = spellings(path, cwd, state.home).find(({ pattern }) => pattern.test(command));
    if (hit) return `the command touches recap's own files (${hit.text})`;
  }
  const setup = setupSubcommand(command, recapPaths);
  if (setup) return `recap ${setup} changes recap's setup; only the user may run it`;
  return undefined;
}

/** The ways a command can name a protected path: absolute, from home, relative to the cwd. */
function spellings(path: string, cwd: string | undefined, home: string): { text: string; pattern: RegExp }[] {
  // A name ends where a path component ends: recap-old or recap.bak are other files.
  const whole = (text: string, before = '') => ({ text, pattern: new RegExp(`${before}${escapeRegex(text)}(?![\\w.-])`) });
  const found = [whole(path)];
  // The home-relative spellings only for paths below home: `~` alone names far more.
  if (path !== home && inside(path, home)) {
    const rest = path.slice(home.length);
    for (const prefix of ['~', '$HOME', '${HOME}', '"$HOME"', '"${HOME}"']) found.push(whole(`${prefix}${rest}`));
  }
  if (cwd !== undefined && path !== cwd && inside(path, cwd)) {
    const relative = path.slice(cwd.length + 1);
    found.push(whole(relative, `(?:^|[\\s'"=<>|;&(:])(?:\\./)?`));
  }
  return found;
}

function setupSubcommand(command: string, recapPaths: ReadonlySet<string>): string | undefined {
  const tokenized = tokenize(command);
  if (!tokenized.ok) {
    // Unreadable as shell: judge the raw text, erring on the side of refusing.
    return /\brecap(?:\.js)?['"]?\s+(?:\S+\s+)*?['"]?(install|uninstall|daemon|trip|import)\b/.exec(command)?.[1];
  }
  // Any setup word after a recap command word, up to the end of that simple command: the
  // CLI takes its options anywhere (recap --json uninstall claude).
  let inRecap = false;
  for (const token of tokenized.tokens) {
    if (token.kind !== 'word') {
      if (token.kind !== 'heredoc') inRecap = false;
      continue;
    }
    const word = token.value;
    if (inRecap && SETUP_SUBCOMMANDS.has(word)) return word;
    if (word === 'recap' || recapPaths.has(word) || /\/recap(\.js)?$/.test(word)) inRecap = true;
  }
  return undefined;
}
