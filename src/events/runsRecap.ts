// One strict rule instead of a list of bad spellings: a Bash command that runs recap, or
// might, is refused unless it is exactly a whitelisted form (checked before this). "Might"
// is read from the shell grammar, never from a list of tricks:
// - a simple command that names recap in any word after quote removal (its program, an
//   argument, a redirection, a here-document: see RECAP), unless that command is an inert
//   reader (see INERT) that writes nothing;
// - a command word the shell computes (`$x`, `$(...)`, `{re,}cap`, `$'\x72ecap'`), after
//   wrappers such as env, exec, nohup, timeout or xargs;
// - code handed to a shell as text: `bash -c` with computed code, a shell reading commands
//   from a pipe or a here-document, `eval` of computed words; literal code is read again
//   with the same rule.
// A command that builds the word at run time from pieces the shell cannot see (a base64
// blob piped through python) is past what reading can decide; the README says so.
import { simpleCommands, tokenize, WRITING_REDIRECTS, type SimpleCommand, type WordToken } from './shellTokens.js';

/**
 * recap named as a program or in code: `recap`, `recap.js`, `recap-hook`, `/x/bin/recap`,
 * `'recap uninstall'`, or its socket (`recapd.sock`, `$RECAP_SOCKET`), which a script could
 * talk to as recap's CLI does. Not a folder called recap (`~/src/recap/`, `.recap/`), which is where
 * people keep projects, nor a longer name (`recap-demo`, `recaps`): words a program never is.
 */
const RECAP = /(?<![\p{L}\p{N}_])(?:recap(?:-hook)?(?:\.[cm]?js)?(?![\p{L}\p{N}_/-])|recapd\.sock|RECAP_SOCKET)/iu;

/**
 * Programs that neither run their arguments nor write files, so a command of theirs that
 * mentions recap is harmless: `git commit -m "fix recap docs"`, `grep -rn recap src`,
 * `cd ~/src/recap`. Strictness wins where in doubt, so the list is short; git only with the
 * subcommands that run no configured program named on the command line.
 */
const INERT = new Set([
  'cd',
  'pwd',
  'ls',
  'echo',
  'printf',
  'cat',
  'head',
  'tail',
  'wc',
  'grep',
  'egrep',
  'fgrep',
  'rg',
  'test',
  '[',
  'true',
  'false',
  'stat',
  'file',
  'diff',
  'jq',
]);
const INERT_GIT = new Set(['commit', 'log', 'show', 'diff', 'status', 'grep', 'add', 'blame']);

/** Shells: they run the text given with -c, or what they read from stdin. */
export const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'fish']);
const SH: WordToken = { kind: 'word', value: 'sh', literal: true };
const DASH_C: WordToken = { kind: 'word', value: '-c', literal: true };
/** Interpreters whose inline code (-c, -e, ...) or script could start recap. */
export const INTERPRETERS = new Set(['node', 'nodejs', 'python', 'python3', 'perl', 'ruby', 'php', 'deno', 'bun', 'tsx', 'ts-node', 'awk', 'gawk', 'lua']);
const INLINE_CODE = new Set(['-c', '-e', '-E', '--eval', '-p', '--print', '-r']);

/**
 * Programs that run the command given in their arguments, with the options of each that
 * take a value (so the value is not mistaken for the command).
 */
const WRAPPERS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['env', new Set(['-u', '--unset', '-C', '--chdir'])],
  ['command', new Set()],
  ['builtin', new Set()],
  ['exec', new Set(['-a'])],
  ['nohup', new Set()],
  ['time', new Set(['-f', '-o'])],
  ['setsid', new Set()],
  ['nice', new Set(['-n', '--adjustment'])],
  ['ionice', new Set(['-c', '-n', '-p'])],
  ['stdbuf', new Set(['-i', '-o', '-e'])],
  ['timeout', new Set(['-s', '--signal', '-k', '--kill-after'])],
  ['sudo', new Set(['-u', '-g', '-C', '-h', '-p', '-U'])],
  ['doas', new Set(['-u', '-C'])],
  ['xargs', new Set(['-I', '-i', '-n', '-P', '-L', '-l', '-s', '-d', '-E', '-e', '-a', '--arg-file', '--delimiter', '--max-args', '--max-procs', '--replace'])],
  ['flock', new Set(['-w', '--timeout', '-E', '-c'])],
  ['npx', new Set(['-p', '--package', '-c', '--call'])],
  ['bunx', new Set(['-p', '--package'])],
  ['unbuffer', new Set()],
  ['busybox', new Set()],
]);
/** Shell words that may open a simple command without being its program. */
const RESERVED = new Set(['!', '{', '}', 'if', 'then', 'elif', 'else', 'fi', 'do', 'done', 'while', 'until', 'for', 'case', 'esac', 'select', 'in']);
/** A program's name as a command word gives it: the last part of its path. */
export const programName = (word: string): string => word.slice(word.lastIndexOf('/') + 1);

/** A shell's option that takes its code as the next word (`-c`, `-lc`, `-ec`). */
export const SHELL_CODE_OPTION = /^-[a-zA-Z]*c[a-zA-Z]*$/;

/** find's options that run a command made of the words after them. */
export const FIND_EXEC = /^-(?:exec|execdir|ok|okdir)$/;

export const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=/;
const DEPTH_LIMIT = 8;

/** recap's commands for the agent (read the state and the summaries, submit one): by the launcher, never a risk. */
const READING = new Set(['status', 'context', 'chain', 'show', 'decisions', 'search', 'timeline', 'submit']);

/**
 * Why the command might run recap outside the whitelist, or undefined when it cannot.
 * @param recapPaths the launcher: a plain `<launcher> status` (or context, chain, show, search, timeline, submit)
 * chained to something else is left to the gate, whose message says what to fix.
 */
export function mightRunRecap(command: string, recapPaths: ReadonlySet<string> = new Set(), depth = 0): string | undefined {
  if (depth > DEPTH_LIMIT) return 'the command nests shells too deeply to be read';
  const tokenized = tokenize(command);
  if (!tokenized.ok) return RECAP.test(command) ? `it mentions recap and could not be read (${tokenized.error})` : undefined;
  for (const simple of simpleCommands(tokenized.tokens)) {
    const why = simpleRisk(simple, recapPaths, depth);
    if (why) return why;
  }
  return undefined;
}

/** `<launcher> status` and the like, all words literal, any here-document unable to expand. */
function isOwnReading(simple: SimpleCommand, recapPaths: ReadonlySet<string>): boolean {
  const [program, ...rest] = simple.words;
  if (program === undefined || !recapPaths.has(program.value) || !simple.words.every((w) => w.literal)) return false;
  // The subcommand comes first, or after --job and its value (`--job status log` runs log); any
  // other option before it could take the next word as its value (`--since status log` runs log).
  const skip = rest[0]?.value === '--job' ? 2 : rest[0]?.value.startsWith('--job=') ? 1 : 0;
  const sub = rest[skip];
  if (sub === undefined || !READING.has(sub.value)) return false;
  return simple.heredocs.every((h) => h.quoted || !/[$`\\]/.test(h.body)) && simple.redirects.every((r) => r.target === undefined || !RECAP.test(r.target.value));
}

function simpleRisk(simple: SimpleCommand, recapPaths: ReadonlySet<string>, depth: number): string | undefined {
  const words = simple.words.filter((w, i) => !(i === 0 && RESERVED.has(w.value)));
  if (isOwnReading(simple, recapPaths)) return undefined;
  if (mentionsRecap(simple) && !isInert(simple)) return 'it runs recap, or could, in a form the gate does not accept';
  const { program, args } = effectiveProgram(words);
  if (program === undefined) return undefined;
  if (!plainWord(program)) return `its command word ${JSON.stringify(program.value)} is computed by the shell, so it could name recap`;
  const name = programName(program.value);
  if (name === 'eval') {
    if (args.some((a) => !a.literal)) return 'it evals words the shell computes';
    return mightRunRecap(args.map((a) => a.value).join(' '), recapPaths, depth + 1);
  }
  if (SHELLS.has(name)) return shellRisk(args, simple, recapPaths, depth);
  if (INTERPRETERS.has(name)) {
    const codeAt = args.findIndex((a) => INLINE_CODE.has(a.value));
    const code = codeAt >= 0 ? args[codeAt + 1] : args.find((a) => !a.value.startsWith('-'));
    if (code !== undefined && !code.literal) return `${name} is given code or a script the shell computes`;
  }
  if (name === 'find') {
    const at = args.findIndex((a) => FIND_EXEC.test(a.value));
    if (at >= 0) return simpleRisk({ words: args.slice(at + 1), redirects: [], heredocs: [] }, recapPaths, depth + 1);
  }
  return undefined;
}

/** A shell runs its -c text, a script file, or what it reads on stdin. */
function shellRisk(args: WordToken[], simple: SimpleCommand, recapPaths: ReadonlySet<string>, depth: number): string | undefined {
  const options = args.filter((a) => a.value.startsWith('-') || a.value.startsWith('+'));
  const cAt = args.findIndex((a) => SHELL_CODE_OPTION.test(a.value));
  if (cAt >= 0) {
    const code = args[cAt + 1];
    if (code === undefined) return 'it starts a shell with -c and no literal code';
    if (!code.literal) return 'it hands a shell code the shell computes';
    return mightRunRecap(code.value, recapPaths, depth + 1);
  }
  const script = args.find((a) => !options.includes(a));
  if (script === undefined || options.some((o) => /^-[a-zA-Z]*s/.test(o.value))) {
    // No script: the shell reads its commands from stdin (a pipe, a file, a here-document).
    return 'it starts a shell that reads its commands from its input';
  }
  if (!script.literal) return 'it runs a shell script whose name the shell computes';
  if (simple.heredocs.length > 0) return 'it starts a shell with a here-document';
  return undefined;
}

function mentionsRecap(simple: SimpleCommand): boolean {
  return (
    simple.words.some((w) => RECAP.test(w.value)) ||
    simple.redirects.some((r) => r.target !== undefined && RECAP.test(r.target.value)) ||
    simple.heredocs.some((h) => RECAP.test(h.body) || RECAP.test(h.delimiter))
  );
}

/** A command of an inert program, every word of it literal, writing nothing. */
export function isInert(simple: SimpleCommand): boolean {
  const [program, sub] = simple.words;
  if (program === undefined || !simple.words.every(plainWord)) return false;
  if (simple.redirects.some((r) => WRITING_REDIRECTS.has(r.op))) return false;
  // git log/show/diff --output=FILE writes its output to a file.
  if (program.value === 'git') return sub !== undefined && INERT_GIT.has(sub.value) && !simple.words.some((w) => /^--output(?:=|$)/.test(w.value));
  // rg --pre runs a program on every file it searches.
  if (program.value === 'rg' && simple.words.some((w) => w.value.startsWith('--pre'))) return false;
  return INERT.has(program.value);
}

/** `~/bin/tool` is computed only in its home part: the rest is as written. */
function plainWord(word: WordToken): boolean {
  return word.literal || /^~\/[\w./+-]*$/.test(word.value);
}

/** The program a simple command really runs, past assignments and wrappers (env, exec, xargs...). */
export function effectiveProgram(words: WordToken[]): { program: WordToken | undefined; args: WordToken[] } {
  let i = 0;
  for (;;) {
    while (i < words.length && (ASSIGNMENT.test(words[i]!.value) || RESERVED.has(words[i]!.value))) i += 1;
    const word = words[i];
    if (word === undefined) return { program: undefined, args: [] };
    const name = programName(word.value);
    const valued = word.literal ? WRAPPERS.get(name) : undefined;
    if (!valued) return { program: word, args: words.slice(i + 1) };
    i += 1;
    // The wrapper's own options, then (timeout) its duration.
    while (i < words.length && words[i]!.value.startsWith('-') && words[i]!.value !== '--') {
      const option = words[i]!.value;
      // env -S splits its text into a command line: read it as a shell would.
      if (option === '-S' || option === '--split-string') return { program: SH, args: [DASH_C, ...words.slice(i + 1, i + 2)] };
      i += valued.has(option) ? 2 : 1;
    }
    if (words[i]?.value === '--') i += 1;
    if (name === 'timeout' && i < words.length) i += 1;
    if (name === 'xargs' && i >= words.length) return { program: undefined, args: [] };
  }
}
