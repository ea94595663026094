// recap's own state is off limits to the agent, whether the gate is tripped or not: the
// event log, the socket and the config files cannot be read or changed through its tools,
// and the recap commands that change the setup cannot run through its Bash.
import { isAbsolute, join, normalize } from 'node:path/posix';
import { tokenize } from './shellTokens.js';

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
    return typeof command === 'string' ? bashRefusal(command, state, recapPaths) : undefined;
  }
  const candidates = PATH_FIELDS.map((k) => field(input, k)).filter((v): v is string => typeof v === 'string');
  const pattern = field(input, 'pattern');
  // A glob names files too: a pattern joined to its search root.
  if (tool === 'Glob' && typeof pattern === 'string') candidates.push(join(candidates[0] ?? cwd ?? '/', pattern));
  for (const candidate of candidates) {
    const path = absolute(candidate, cwd, state.home);
    const hit = state.paths.find((p) => inside(path, p) || inside(path.replace(/\*.*$/, ''), p));
    if (hit) return `${tool} on ${candidate} touches recap's own files (${hit})`;
  }
  return undefined;
}

function bashRefusal(command: string, state: ProtectedState, recapPaths: ReadonlySet<string>): string | undefined {
  for (const path of state.paths) {
    const spellings = [path];
    // The home-relative spellings only for paths below home: `~` alone names far more.
    if (path !== state.home && inside(path, state.home)) {
      const rest = path.slice(state.home.length);
      spellings.push(`~${rest}`, `$HOME${rest}`, `\${HOME}${rest}`);
    }
    const hit = spellings.find((s) => command.includes(s));
    if (hit) return `the command touches recap's own files (${hit})`;
  }
  const setup = setupSubcommand(command, recapPaths);
  if (setup) return `recap ${setup} changes recap's setup; only the user may run it`;
  return undefined;
}

function setupSubcommand(command: string, recapPaths: ReadonlySet<string>): string | undefined {
  const tokenized = tokenize(command);
  if (!tokenized.ok) {
    // Unreadable as shell: judge the raw text, erring on the side of refusing.
    return /\brecap(?:\.js)?['"]?\s+['"]?(install|uninstall|daemon|trip|import)\b/.exec(command)?.[1];
  }
  const words = tokenized.tokens.flatMap((t) => (t.kind === 'word' ? [t.value] : t.kind === 'heredoc' ? [] : ['']));
  for (let i = 0; i + 1 < words.length; i += 1) {
    const word = words[i]!;
    const isRecap = word === 'recap' || recapPaths.has(word) || /\/recap(\.js)?$/.test(word);
    if (isRecap && SETUP_SUBCOMMANDS.has(words[i + 1]!)) return words[i + 1];
  }
  return undefined;
}
