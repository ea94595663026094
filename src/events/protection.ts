// recap's own state is off limits to the agent, whether the gate is tripped or not: the
// event log, the socket and the config files cannot be read or changed through its tools;
// what wires recap in (settings, installed code, units, Node) can be read but not changed;
// no file may shadow recap or Node on PATH; and no Bash command runs recap unless it is
// exactly a whitelisted form (runsRecap.ts).
import { basename, dirname, isAbsolute, normalize } from 'node:path/posix';
import { globReaches } from './glob.js';
import { absolute, decodings, escapeRegex, expandTilde, globTouches, inside, pathsAnywhere, pathWords, spellings, throughProc } from './pathNames.js';
import { nestedAgentRefusal, type AgentLaunch } from './nestedAgents.js';
import { signalRefusal, type RecapProcesses } from './recapSignals.js';
import { commandsWithin } from './shellCommands.js';
import { copyLandings } from './copyLandings.js';
import { removedOperands } from './removedOperands.js';
import { foldersEntered, FOLDERS_KEPT } from './shellFolders.js';
import { belowDescriptor, recapProcessPath } from './recapProcessPaths.js';
import { isInert, mightRunRecap } from './runsRecap.js';
import { simpleCommands, tokenize, type WordToken } from './shellTokens.js';
import { KNOWN_SHAPES, READING, type ToolCall } from './toolCall.js';
import { classifyBash, readWayOut } from './whitelist.js';

export type ProtectedState = {
  /** Absolute files and folders the agent may not touch. */
  paths: string[];
  /**
   * Files and folders the agent may read but never change: the settings that wire recap
   * into the agent, recap's installed code, its units, the Node it runs on.
   */
  readOnly?: string[];
  /** Folders where a file named recap, recap-hook or node would shadow the real one. */
  shadowDirs?: string[];
  /** The user's home, to recognise `~/...` and `$HOME/...` spellings in commands. */
  home: string;
  /**
   * The agents' settings files by name, wherever they seem to be: a folder reached through
   * a symlink the agent made (ln -s ~ h; then h/.claude/settings.json) has no other name.
   */
  settingsNames?: readonly SettingsName[];
  /** The variables that mark an agent's shell, which recap's setup commands look for. */
  shellVariables?: readonly string[];
  /**
   * Where paths really lead: a fresh follower per judged call, which follows symlinks on the
   * disk (the daemon's side, linkFollower.ts). Without it, paths are judged as spelled only.
   */
  links?: () => Follow;
  /** How each known agent is started, to refuse starting one without recap's hooks (nestedAgents.ts). */
  agentLaunches?: readonly AgentLaunch[];
  /** recap's own processes, which no signal may reach (recapSignals.ts). */
  recapProcesses?: RecapProcesses;
};

/** Where an absolute path really leads, symlinks followed; throws PathUnknown when that cannot be told. */
export type Follow = (path: string) => string;

/** A follower that gave up (more links than it follows, a folder it cannot list): the call is refused, never judged as spelled. */
export class PathUnknown extends Error {}

/** An agent's settings file: its path's shape, and words that together name it in a command. */
export type SettingsName = { path: RegExp; mentioned: readonly RegExp[]; what: string };

/** recap subcommands that change its setup: named in the refusal so the agent knows why. */
const SETUP_SUBCOMMANDS = new Set(['install', 'uninstall', 'daemon', 'trip', 'import', 'config', 'stop', 'restart', 'reload', 'pause', 'resume', 'amend', 'redact']);

/**
 * How a refusal for running recap outside the whitelist begins: on a tripped gate the gate's
 * own answer (which names the way out) replaces it.
 */
export const RUNS_RECAP = 'the command runs recap, or could: ';

/** Names that, written into a folder on PATH, would run instead of recap or its Node. */
const SHADOW_NAMES = new Set(['recap', 'recap-hook', 'node']);

/**
 * Where a path the call names may lead: as spelled, decoded (a file: URI, percent-escapes),
 * and, with a follower, where its links lead, its `..` read both after the links (as the
 * kernel does) and before them (as a tool that normalizes the path first does).
 */
function places(candidate: string, cwd: string | undefined, home: string, real: Follow | undefined): string[] {
  // A name with no escape and no file: URI is its only decoding: most calls' paths, and every
  // check comes here, so no list of decodings is made for it.
  if (!candidate.includes('%') && !FILE_URI.test(candidate)) return placesOf(candidate, cwd, home, real, undefined);
  let found: string[] | undefined;
  for (const spelled of decodings(candidate)) found = placesOf(spelled, cwd, home, real, found);
  return found ?? [];
}

const FILE_URI = /^file:/i;
const PROC_PID_FOLDER = /^\/+proc\/+\d+\/+(?:cwd|root)(?:\/|$)/;

/** Where one spelling leads, added to `found` (an array kept free of repeats, made with the first). */
function placesOf(spelled: string, cwd: string | undefined, home: string, real: Follow | undefined, found: string[] | undefined): string[] {
  const path = absolute(spelled, cwd, home);
  const places = withPlace(found, path);
  if (real === undefined) return places;
  withPlace(places, real(path));
  const expanded = expandTilde(spelled, home, cwd);
  const full = isAbsolute(expanded) ? expanded : `${cwd ?? '/'}/${expanded}`;
  const raw = throughProc(full, cwd);
  if (raw !== path) withPlace(places, real(raw));
  // Another process's folder or root, where it really is (the follower reads its link).
  if (PROC_PID_FOLDER.test(full)) withPlace(places, real(normalize(full)));
  return places;
}

/** `found` with `place` added unless it holds it already: a handful of places, not a Set (no closure, no copy). */
function withPlace(found: string[] | undefined, place: string): string[] {
  if (found === undefined) return [place];
  if (!found.includes(place)) found.push(place);
  return found;
}

/** The first of `roots` that one of `paths` is or lies inside: two loops, no closure per root. */
function rootHolding(roots: readonly string[], paths: readonly string[]): string | undefined {
  for (const root of roots) for (const path of paths) if (inside(path, root)) return root;
  return undefined;
}

/** Why the call touches recap's state, or undefined when it does not. */
export function protectionRefusal(call: ToolCall, cwd: string | undefined, state: ProtectedState, recapPaths: ReadonlySet<string>): string | undefined {
  try {
    return callRefusal(call, cwd, state, recapPaths, state.links?.());
  } catch (error) {
    if (error instanceof PathUnknown) return `${call.name} names a path recap cannot follow to its end (${error.message}); name the file by its own path`;
    throw error;
  }
}

function callRefusal(call: ToolCall, cwd: string | undefined, state: ProtectedState, recapPaths: ReadonlySet<string>, real: Follow | undefined): string | undefined {
  // The folder a call runs in, as spelled and where it leads: `link/..` is the link's parent
  // to the kernel, not the folder holding the link. Each is judged as the call's folder.
  let bases = call.dir !== undefined ? places(call.dir, cwd, state.home, real) : [cwd];
  if (call.kind === 'shell' && call.dir !== undefined) {
    const hit = state.paths.find((p) => bases.some((dir) => dir !== undefined && inside(dir, p)));
    if (hit) return `${call.name} in ${call.dir} runs inside recap's own files (${hit})`;
  }
  // The folders the line moves into (cd .., git -C x) are where its relative paths lead too.
  if (call.kind === 'shell' && typeof call.command === 'string') {
    const moved = foldersEntered(call.command, bases, state.home);
    if (moved === undefined) return `the command moves through more folders than recap follows in one line (${FOLDERS_KEPT}); split it into several commands`;
    bases = [...bases, ...moved];
  }
  for (const base of bases) {
    const refusal = callRefusalIn(call, base, state, recapPaths, real);
    if (refusal) return refusal;
  }
  return undefined;
}

/** Why the call is refused when it runs in `base`. */
function callRefusalIn(call: ToolCall, base: string | undefined, state: ProtectedState, recapPaths: ReadonlySet<string>, real: Follow | undefined): string | undefined {
  if (call.kind === 'shell') {
    if (typeof call.command !== 'string') return undefined;
    // Files a shell call changes outside its command line (Codex applies a patch handed to
    // apply_patch in exec_command itself) are judged as a patch's; the way out names none.
    if (call.paths.length > 0 && !classifyBash(call.command, recapPaths).allowed) {
      for (const candidate of call.paths) {
        const refusal = pathRefusal({ ...call, kind: 'patch' }, candidate, base, state, real);
        if (refusal) return refusal;
      }
    }
    return bashRefusal(call.command, base, state, recapPaths, real);
  }
  // A tool recap does not know (an MCP server's move_file, filePath, destination...) may name
  // a path in any field: every string of its input that reads as a path is judged.
  const candidates = KNOWN_SHAPES.has(call.kind) ? call.paths : [...call.paths, ...pathsAnywhere(call.input)];
  if (call.glob !== undefined) {
    const { glob: pattern } = call;
    // The pattern's `..` as the kernel takes it too: after the links before it (places).
    const globs = places(call.paths[0] ?? '.', base, state.home, real).flatMap((root) =>
      pattern.startsWith('/') || pattern.startsWith('~') ? places(pattern, base, state.home, real) : places(`${root}/${pattern}`, undefined, state.home, real),
    );
    const hit = state.paths.find((p) => globs.some((glob) => globReaches(glob, p)));
    if (hit) return `${call.name} on ${call.glob} touches recap's own files (${hit})`;
    const inProcess = recapProcessPath(globs, state.recapProcesses?.pids, base);
    if (inProcess) return `${call.name} on ${call.glob} reaches into recap's own process (${inProcess})`;
  }
  for (const candidate of candidates) {
    const refusal = pathRefusal(call, candidate, base, state, real);
    if (refusal) return refusal;
  }
  return undefined;
}

/** Why a path the call names, as spelled or where it leads, is off limits to it, if it is. */
function pathRefusal(call: ToolCall, candidate: string, cwd: string | undefined, state: ProtectedState, real: Follow | undefined): string | undefined {
  const tool = call.name;
  const paths = places(candidate, cwd, state.home, real);
  const hit = rootHolding(state.paths, paths);
  if (hit) return `${tool} on ${candidate} touches recap's own files (${hit})`;
  const inProcess = recapProcessPath([candidate, ...paths], state.recapProcesses?.pids, cwd);
  if (inProcess) return `${tool} on ${candidate} reaches into recap's own process (${inProcess})`;
  if (READING.has(call.kind)) return undefined;
  const setup = rootHolding(state.readOnly ?? [], paths);
  if (setup) return `${tool} on ${candidate} would change what wires recap in or runs it (${setup})`;
  const settings = state.settingsNames?.find((s) => paths.some((path) => s.path.test(path)));
  if (settings) return `${tool} on ${candidate} would change ${settings.what}, which wire recap in`;
  const shadow = paths.find((path) => isShadow(path, state));
  if (shadow !== undefined) return `${tool} on ${candidate} would put a ${basename(shadow)} on PATH in front of the real one`;
  return undefined;
}

/** The agent's folder, home and their parents: every command sits in them, so naming one does not count as naming what they hold. */
function broad(path: string, here: readonly string[], home: string): boolean {
  return path === home || here.some((dir) => inside(dir, path)) || inside(home, path);
}

function isShadow(path: string, state: ProtectedState): boolean {
  return SHADOW_NAMES.has(basename(path)) && (state.shadowDirs ?? []).includes(dirname(path));
}

function bashRefusal(command: string, cwd: string | undefined, state: ProtectedState, recapPaths: ReadonlySet<string>, real: Follow | undefined): string | undefined {
  // The way out always passes: recap's own whitelisted commands read nothing of its files
  // for the agent, and a summary may well mention them; but a summary read with --file must
  // not be one of them (recap's CLI would read its own log or config for the agent).
  if (classifyBash(command, recapPaths).allowed) return summaryFileRefusal(command, cwd, state, recapPaths, real);
  const tokenized = tokenize(command);
  // The launcher lives in the data folder; run as a program it is recap's own business
  // (mightRunRecap judges it), so those mentions of its path are not touching the folder.
  const launcherRuns = tokenized.ok
    ? simpleCommands(tokenized.tokens)
        .map((c) => c.words[0])
        .filter((w): w is WordToken => w !== undefined && recapPaths.has(w.value))
    : [];
  let text = command.replace(/\/proc\/[^/\s'"]+\/cwd\//g, cwd === undefined ? '/' : `${cwd}/`).replace(/\/proc\/[^/\s'"]+\/root\//g, '/');
  for (const launcher of recapPaths) {
    const runs = launcherRuns.filter((w) => w.value === launcher).length;
    if (runs > 0 && text.split(launcher).length - 1 === runs) text = text.replaceAll(launcher, '');
  }
  for (const path of state.paths) {
    const hit = spellings(path, cwd, state.home).find(({ pattern }) => pattern.test(text));
    if (hit) return `the command touches recap's own files (${hit.text})`;
  }
  // What the line runs, read once for every rule: its words in code it hands on (bash -c,
  // backticks, $(...)) name paths as its own do.
  const within = commandsWithin(command);
  const inner = within.commands.flatMap((c) => [...c.words.filter((w, at) => at > 0 || !recapPaths.has(w.value)), ...c.redirects.flatMap((r) => (r.target ? [r.target] : []))]);
  // Where its copies land (`cp -r x/.local ~` writes ~/.local) counts as named.
  const landings = copyLandings(within.commands);
  const words = [...new Set(pathWords([...(tokenized.ok ? tokenized.tokens.filter((t) => !launcherRuns.includes(t as never)) : []), ...inner, ...landings.named]))];
  const resolved = words.flatMap((w) => places(w, cwd, state.home, real));
  const stateHit = resolved.find((p) => state.paths.some((root) => inside(p, root) || globTouches(p, root)));
  if (stateHit) return `the command touches recap's own files (${stateHit})`;
  const inProcess = recapProcessPath([...words, ...resolved], state.recapProcesses?.pids, cwd, command);
  if (inProcess) return `the command reaches into recap's own process (${inProcess})`;
  const below = belowDescriptor([...words, ...resolved], cwd);
  if (below) return `the command names a path below an open file descriptor (${below}), which recap cannot follow; name the file by its own path`;
  // Reading the setup is harmless; anything but an inert reader may change it.
  const reader = tokenized.ok && simpleCommands(tokenized.tokens).every(isInert);
  const here = cwd === undefined ? [] : places(cwd, undefined, state.home, real);
  const holder = reader ? undefined : resolved.find((p) => !broad(p, here, state.home) && holdsOwn(p, state));
  if (holder) return `the command could move or remove ${holder}, which holds recap's own files`;
  const unseen = unseenLanding([...landings.unseen, ...landings.intoTree.filter((w) => homeOrAbove(w, cwd, state, real))], cwd, state, real);
  if (unseen) return unseen;
  // Home and the folders the line sits in too, when it moves, removes or locks them.
  const removed = pathWords(removedOperands(within.commands))
    .flatMap((w) => places(w, cwd, state.home, real))
    .find((p) => holdsOwn(p, state));
  if (removed) return `the command could move, remove or lock ${removed}, which holds recap's own files`;
  const signal = signalRefusal(command, state.recapProcesses, within);
  if (signal) return signal;
  const agent = nestedAgentRefusal(command, state.agentLaunches ?? [], within);
  if (agent) return agent;
  const setup = setupSubcommand(command);
  if (setup) return `recap ${setup} changes recap's setup; only the user may run it, outside the agent`;
  if (!reader) {
    const why = setupWrite(text, here, state, resolved, words);
    if (why) return why;
    if (state.shellVariables?.some((name) => new RegExp(`\\b${name}\\b`).test(command)))
      return "the command changes the variables that mark the agent's shell, which recap's setup commands look for";
    // The user's off switch is theirs: an agent that starts another agent (or anything) with it set is refused.
    if (/\bRECAP_DISABLE\b/.test(command)) return "the command sets RECAP_DISABLE, the user's own switch to turn recap off in their shell";
  }
  const risk = mightRunRecap(command, recapPaths);
  if (risk) return `${RUNS_RECAP}${risk}`;
  return undefined;
}

/** Whether a folder holds recap's own files (and is not one of them itself). */
const holdsOwn = (path: string, state: ProtectedState) => state.paths.some((root) => root !== path && inside(root, path));

/** Whether a folder the line names is home or one above it. */
const homeOrAbove = (folder: WordToken, cwd: string | undefined, state: ProtectedState, real: Follow | undefined) =>
  pathWords([folder]).some((w) => places(w, cwd, state.home, real).some((p) => inside(state.home, p)));

/** Why files the line does not name (a folder's contents, an archive's members) must not go where it puts them, if they must not. */
function unseenLanding(folders: WordToken[], cwd: string | undefined, state: ProtectedState, real: Follow | undefined): string | undefined {
  for (const folder of pathWords(folders).flatMap((w) => places(w, cwd, state.home, real))) {
    const own = state.paths.find((root) => inside(root, folder));
    const setup = own ?? (state.readOnly ?? []).find((root) => inside(root, folder));
    if (setup === undefined) continue;
    const what = own !== undefined ? "recap's own files" : 'what wires recap in';
    return `the command puts files its line does not name into ${folder}, which holds ${what} (${setup}); copy or unpack them into a folder of their own, or name each file`;
  }
  return undefined;
}

/** Why the whitelisted command's `--file` (the summary to read) is recap's own file, if it is. */
function summaryFileRefusal(command: string, cwd: string | undefined, state: ProtectedState, recapPaths: ReadonlySet<string>, real: Follow | undefined): string | undefined {
  const file = readWayOut(command, recapPaths)?.options.get('--file');
  if (typeof file !== 'string' || file === '-') return undefined;
  // Quoted, a leading `~` is a folder's name (./~/...); unquoted, home: judged both ways.
  const spelled = file.replace(/^(?:\$HOME|\$\{HOME\})(?=\/|$)/, '~');
  const paths = [...places(spelled, cwd, state.home, real), ...(spelled.startsWith('~') ? places(`./${spelled}`, cwd, state.home, real) : [])];
  const hit = rootHolding(state.paths, paths);
  return hit ? `submit --file ${file} would read recap's own files (${hit}) into a summary` : undefined;
}

/**
 * Why a command that is not a mere reader could change what wires recap in or runs it.
 * `here`: the folder it runs in, as spelled and where it leads.
 */
function setupWrite(text: string, here: string[], state: ProtectedState, resolved: string[], words: string[]): string | undefined {
  const cwd = here[0];
  // Run inside recap's package (npm install there), anything may change it.
  const within = (state.readOnly ?? []).find((root) => here.some((dir) => inside(dir, root)));
  if (within) return `the command runs inside what wires recap in or runs it (${within}) and could change it`;
  for (const path of state.readOnly ?? []) {
    const hit = spellings(path, cwd, state.home).find(({ pattern }) => pattern.test(text));
    if (hit) return `the command could change what wires recap in or runs it (${hit.text})`;
  }
  // A folder holding one counts too (rm -rf .claude), but not the agent's folder, home or
  // their parents, which every command sits in.
  const setupHit = resolved.find((p) => (state.readOnly ?? []).some((root) => inside(p, root) || ((inside(root, p) || globTouches(p, root)) && !broad(p, here, state.home))));
  if (setupHit) return `the command could change what wires recap in or runs it (${setupHit})`;
  const settings = state.settingsNames?.find((s) => resolved.some((path) => s.path.test(path)) || s.mentioned.every((word) => word.test(text)));
  if (settings) return `the command could change ${settings.what}, which wire recap in`;
  const shadow = shadowIn(resolved, words, state) ?? shadowPattern(state).exec(text)?.[0];
  if (shadow) return `the command could put ${shadow} on PATH in front of the real one`;
  return undefined;
}

const shadowPatterns = new WeakMap<readonly string[], RegExp>();

/**
 * A shadow's path anywhere in the text, inside code strings too (python -c "open('~/bin/node',
 * 'w')"): one regex over every folder, built once per list of folders.
 */
function shadowPattern(state: ProtectedState): RegExp {
  const dirs = state.shadowDirs ?? [];
  let pattern = shadowPatterns.get(dirs);
  if (!pattern) {
    const spelled = dirs.flatMap((dir) => {
      const rest = dir !== state.home && inside(dir, state.home) ? dir.slice(state.home.length) : undefined;
      return [dir, ...(rest === undefined ? [] : ['~', '$HOME', '${HOME}'].map((home) => `${home}${rest}`))];
    });
    const names = [...SHADOW_NAMES].map(escapeRegex).join('|');
    pattern = new RegExp(`(?:${spelled.map(escapeRegex).join('|') || '(?!)'})/+(?:${names})(?![\\w.-])`);
    shadowPatterns.set(dirs, pattern);
  }
  return pattern;
}

/**
 * A shadow in the making: a path to a folder on PATH ending in recap, recap-hook or node,
 * or such a folder named with one of those names elsewhere in the command (`cd ~/bin &&
 * ln -s /tmp/x node`, `cp /tmp/node ~/.local/bin/`).
 */
function shadowIn(resolved: string[], words: string[], state: ProtectedState): string | undefined {
  const direct = resolved.find((p) => isShadow(p, state));
  if (direct) return direct;
  const dirs = state.shadowDirs ?? [];
  const folder = resolved.find((p) => dirs.includes(p.replace(/\/+$/, '') || '/'));
  const name = words.map((w) => w.slice(w.lastIndexOf('/') + 1)).find((n) => SHADOW_NAMES.has(n));
  return folder !== undefined && name !== undefined ? `a ${name} in ${folder}` : undefined;
}

/** The setup subcommand a recap command line names, to say so in the refusal. */
function setupSubcommand(command: string): string | undefined {
  const tokenized = tokenize(command);
  if (!tokenized.ok) {
    // Unreadable as shell: judge the raw text, erring on the side of refusing.
    return /\brecap(?:\.js)?['"]?\s+(?:\S+\s+)*?['"]?(install|uninstall|daemon|trip|import|stop|restart|reload|pause|resume|amend|redact|doctor\s+--fix)\b/.exec(command)?.[1];
  }
  // Any setup word after a recap command word, up to the end of that simple command: the
  // CLI takes its options anywhere (recap --json uninstall claude).
  for (const simple of simpleCommands(tokenized.tokens)) {
    const words = simple.words.map((w) => w.value);
    const at = words.findIndex((w) => /(?:^|\/)recap(?:\.js)?$/.test(w));
    if (at < 0) continue;
    const rest = words.slice(at + 1);
    const setup = rest.find((w) => SETUP_SUBCOMMANDS.has(w));
    // doctor only reads; doctor --fix changes recap's files and the agents' settings.
    if (rest.includes('doctor') && rest.includes('--fix')) return 'doctor --fix';
    // config show and config check only read; config allow and the rest change the setup.
    if (setup === 'config' && ['show', 'check'].includes(rest[rest.indexOf('config') + 1] ?? '')) continue;
    if (setup) return setup === 'config' ? `config ${rest[rest.indexOf('config') + 1] ?? ''}`.trim() : setup;
  }
  return undefined;
}
