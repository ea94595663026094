// An agent may start another agent from its shell (`claude -p ...`, `codex exec ...`): that
// session runs recap's hooks like any other. It may not start one with those hooks switched
// off (`claude --bare`, `codex --disable hooks`, `gemini -e none`, `opencode --pure`, another
// home or config folder), open gate or tripped: nothing that session did would reach the gate.
// Each agent's folder says how it is started and what switches its hooks off (AgentLaunch);
// this module finds those in a command line, past wrappers, package runners and Node.
import { ASSIGNMENT, effectiveProgram, INTERPRETERS, isInert, programName } from './runsRecap.js';
import { commandsWithin, type Within } from './shellCommands.js';
import type { SimpleCommand, WordToken } from './shellTokens.js';

/** A command-line option that switches recap's hooks off for the session it starts. */
export type LaunchSwitch = {
  /** Its spellings: `--bare`, `-e`, `--extensions`. */
  options: readonly string[];
  /** Whether it takes a value (`-e none`, `--settings=FILE`); a flag when absent. */
  takesValue?: boolean;
  /** For an option with a value: whether this value still runs recap's hooks. Absent: no value does. */
  keeps?: (value: string) => boolean;
  /** What it does, said in the refusal. */
  does: string;
};

/** How an agent is started, and what starts it without recap's hooks. */
export type AgentLaunch = {
  title: string;
  /** Its program names: `claude`, `codex`. */
  programs: readonly string[];
  /** Its npm packages, as npx takes them or as a path to their files (`node .../@google/gemini-cli/...`). */
  packages: readonly string[];
  switches: readonly LaunchSwitch[];
  /** Variables that, changed for the session, point it away from recap's hooks (its home, config folder, off switches). */
  variables: RegExp;
};

/** Runtimes that run a script file given as their first argument. */
const RUNTIMES = new Set(['node', 'nodejs', 'bun', 'deno', 'tsx', 'ts-node']);
/** Package managers' subcommands that run a package's program: `npm exec`, `pnpm dlx`, `yarn dlx`, `bun x`. */
const PACKAGE_RUNS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['npm', new Set(['exec', 'x'])],
  ['pnpm', new Set(['dlx', 'exec', 'x'])],
  ['pnpx', new Set([''])],
  ['yarn', new Set(['dlx', 'exec'])],
  ['bun', new Set(['x'])],
  ['deno', new Set(['run'])],
]);
/** Builtins whose words set, export or unset variables for the rest of the line. */
const DECLARING = new Set(['export', 'declare', 'typeset', 'readonly', 'local', 'unset']);
const INLINE = new Set(['-e', '--eval', '-p', '--print', '-c']);

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Why the command starts a known agent without recap's hooks, or undefined when it does not. */
export function nestedAgentRefusal(command: string, launches: readonly AgentLaunch[], within: Within = commandsWithin(command)): string | undefined {
  if (launches.length === 0) return undefined;
  const { commands, unread } = within;
  // Variables set (`X=1;`), exported or unset earlier in the line reach every agent after them.
  let changed: Changed = new Set();
  for (const simple of commands) {
    const started = agentStarted(simple, launches) ?? agentAnywhere(simple, launches);
    if (started) {
      const why = switchedOff(started, changed);
      if (why) return refusal(started.launch, why);
    } else if (INTERPRETERS.has(programName(effectiveProgram(simple.words).program?.value ?? ''))) {
      // Code that starts the agent itself (python -c "subprocess.run(['claude', '--bare'])").
      const text = [...simple.words.map((w) => w.value), ...simple.heredocs.map((h) => h.body)].join('\n');
      const hit = mentionedLaunch(text, launches);
      if (hit) return refusal(hit.launch, hit.why);
    }
    changed = union(changed, lasting(simple));
  }
  for (const text of unread) {
    const hit = mentionedLaunch(text, launches);
    if (hit) return refusal(hit.launch, hit.why);
  }
  return undefined;
}

const refusal = (launch: AgentLaunch, why: string) =>
  `the command starts ${launch.title} without recap's hooks (${why}), so that session would answer to no gate; start it without that, or leave it to the user`;

type Started = { launch: AgentLaunch; args: WordToken[]; prefix: Changed };
/** Variable names changed, or `all` when the environment is emptied (env -i). */
type Changed = Set<string> | 'all';

const union = (a: Changed, b: Changed): Changed => (a === 'all' || b === 'all' ? 'all' : new Set([...a, ...b]));

/** The agent a simple command starts, past wrappers, package runners and Node, with its arguments. */
function agentStarted(simple: SimpleCommand, launches: readonly AgentLaunch[]): Started | undefined {
  const { program, args } = effectiveProgram(simple.words);
  if (program === undefined) return undefined;
  let word = program;
  let rest = args;
  const name = programName(program.value);
  const runs = PACKAGE_RUNS.get(name);
  if (RUNTIMES.has(name) || runs !== undefined) {
    // Inline code is the interpreters' business (nestedAgentRefusal reads it as text).
    if (RUNTIMES.has(name) && rest.some((a) => INLINE.has(a.value))) return undefined;
    // `node [options] SCRIPT`, `npm exec [options] [--] PACKAGE`: the first word that is no option.
    let at = runs !== undefined && runs.has(rest[0]?.value ?? '') ? 1 : 0;
    while (at < rest.length && rest[at]!.value.startsWith('-'))
      at += rest[at]!.value === '--' ? 1 : ['-p', '--package', '-r', '--require', '--import'].includes(rest[at]!.value) ? 2 : 1;
    if (at >= rest.length) return undefined;
    word = rest[at]!;
    rest = rest.slice(at + 1);
  }
  const launch = launches.find((l) => names(l, word.value));
  if (launch === undefined) return undefined;
  return { launch, args: rest, prefix: prefixChanges(simple.words, program) };
}

/**
 * An agent named by a word past the program, as a wrapper recap does not know would start it
 * (`taskset 1 claude --bare`, `coproc claude --bare`, `strace -o x claude --bare`): the words
 * after it read as its arguments. A list of wrappers always misses one; an agent's name
 * followed by a switch that turns its hooks off is refused whatever comes before it.
 */
function agentAnywhere(simple: SimpleCommand, launches: readonly AgentLaunch[]): Started | undefined {
  // A program that runs nothing (echo, grep, git log) only names it.
  if (isInert(simple)) return undefined;
  const words = simple.words;
  for (let i = 1; i < words.length; i += 1) {
    const word = words[i]!;
    const launch = word.literal ? launches.find((l) => names(l, word.value)) : undefined;
    if (launch !== undefined) return { launch, args: words.slice(i + 1), prefix: prefixChanges(words, word) };
  }
  return undefined;
}

/** Whether a program word or package spec is the agent: `claude`, `/x/bin/codex`, `@openai/codex@latest`, `.../@google/gemini-cli/bundle/gemini.js`. */
function names(launch: AgentLaunch, value: string): boolean {
  if (launch.programs.includes(bareName(value))) return true;
  return launch.packages.some((p) => new RegExp(`(?:^|[/:])${escapeRegex(p)}(?:$|[@/])`).test(value));
}

/** A program's name without its folder, version or script suffix: `codex@latest`, `claude.exe`, `gemini.js` are codex, claude, gemini. */
const bareName = (value: string) =>
  programName(value)
    .replace(/(?<=.)@[^/]*$/, '')
    .replace(/\.(?:[cm]?js|exe)$/, '');

/** What switches the agent's hooks off, if anything does: a switch, a variable, or an argument the shell computes. */
function switchedOff({ launch, args, prefix }: Started, before: Changed): string | undefined {
  const changed = union(before, prefix);
  if (changed === 'all') return 'its environment emptied, or a variable the shell names at run time';
  const variable = [...changed].find((v) => launch.variables.test(v));
  if (variable !== undefined) return `${variable} changed`;
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!;
    if (arg.value === '--') break;
    // `"$FLAGS"`, `*`, `{--bare,}`: a word the shell computes could be any switch.
    if (!arg.literal && /^[-$`{*?[\\]/.test(arg.value)) return `an argument the shell computes, ${JSON.stringify(arg.value)}, which could be a switch`;
    const hit = switchAt(launch, args, i);
    if (hit) return hit;
  }
  return undefined;
}

/** The switch argument `i` is, with its value, if it turns the hooks off. */
function switchAt(launch: AgentLaunch, args: WordToken[], i: number): string | undefined {
  const arg = args[i]!.value;
  for (const option of launch.switches) {
    for (const spelling of option.options) {
      let value: WordToken | undefined;
      let given = false;
      if (arg === spelling) {
        given = true;
        if (option.takesValue) value = args[i + 1];
      } else if (arg.startsWith(`${spelling}=`)) {
        given = true;
        value = { ...args[i]!, value: arg.slice(spelling.length + 1) };
      } else if (/^-[a-zA-Z]$/.test(spelling) && /^-[a-zA-Z]{2,}/.test(arg) && !arg.startsWith('--')) {
        // Short options run together: `-ye none`, `-enone`, `-c key=value` written `-ckey=value`.
        const at = arg.indexOf(spelling[1]!, 1);
        if (at < 0 || !/^-[a-zA-Z]*$/.test(arg.slice(0, at + 1))) continue;
        given = true;
        if (option.takesValue) value = at === arg.length - 1 ? args[i + 1] : { ...args[i]!, value: arg.slice(at + 1) };
      }
      if (!given) continue;
      if (!option.takesValue) {
        if (value === undefined || !/^(?:false|0)$/i.test(value.value)) return `${spelling}: ${option.does}`;
        continue;
      }
      if (value === undefined) continue;
      if (!value.literal) return `${spelling} with a value the shell computes: ${option.does}`;
      if (!option.keeps?.(value.value)) return `${spelling} ${value.value}: ${option.does}`;
    }
  }
  return undefined;
}

/** The variables a command's own prefix changes for it: `X=1 claude`, `env X=1 claude`, `env -u X claude`, `env -i claude`. */
function prefixChanges(words: WordToken[], program: WordToken): Changed {
  const changed = new Set<string>();
  for (let i = 0; i < words.length && words[i] !== program; i += 1) {
    const value = words[i]!.value;
    if (ASSIGNMENT.test(value)) changed.add(value.slice(0, value.search(/[[+=]/)));
    else if (['-u', '--unset'].includes(value) && words[i + 1] !== undefined) changed.add(words[i + 1]!.value);
    else if (value.startsWith('--unset=')) changed.add(value.slice(8));
    else if (['-i', '--ignore-environment', '-'].includes(value)) return 'all';
  }
  return changed;
}

/**
 * The variables a command changes for the rest of the line: a bare assignment, export,
 * declare, unset; a name reference (`declare -n r=HOME`) changes what it names; builtins that
 * store into a variable (`printf -v HOME`, `read HOME`, `mapfile`, `getopts`) change theirs.
 * A variable the agent's shell already exports (HOME) reaches the agent changed without export.
 */
function lasting(simple: SimpleCommand): Changed {
  const words = simple.words;
  if (words.length > 0 && words.every((w) => ASSIGNMENT.test(w.value))) return new Set(words.map((w) => w.value.slice(0, w.value.search(/[[+=]/))));
  const { program, args } = effectiveProgram(words);
  if (program === undefined) return new Set();
  const name = programName(program.value);
  const names = args.filter((a) => !a.value.startsWith('-'));
  if (DECLARING.has(name)) {
    const changed = names.map((a) => a.value.split(/[[+=]/)[0]!);
    // `declare -n r=HOME` (or -n given with other letters): r names HOME, so r=... changes HOME.
    if (args.some((a) => /^-[a-zA-Z]*n/.test(a.value))) changed.push(...names.map((a) => a.value.split('=')[1] ?? '').filter(Boolean));
    return new Set(changed);
  }
  const stored = STORING.get(name)?.(args);
  if (stored === undefined) return new Set();
  // A name the shell computes could be any variable.
  return stored.some((a) => !a.literal) ? 'all' : new Set(stored.map((a) => a.value));
}

type Store = (args: WordToken[]) => WordToken[];
/** Builtins that store into the variables their words name: which words those are. */
const STORING: ReadonlyMap<string, Store> = new Map<string, Store>([
  ['printf', (args) => (args[0]?.value === '-v' ? args.slice(1, 2) : /^-v./.test(args[0]?.value ?? '') ? [{ ...args[0]!, value: args[0]!.value.slice(2) }] : [])],
  ['read', (args) => namesAfterOptions(args, READ_VALUED)],
  ['mapfile', (args) => namesAfterOptions(args, MAPFILE_VALUED).slice(0, 1)],
  ['readarray', (args) => namesAfterOptions(args, MAPFILE_VALUED).slice(0, 1)],
  ['getopts', (args) => args.slice(1, 2)],
]);
const READ_VALUED = new Set(['-a', '-d', '-i', '-n', '-N', '-p', '-t', '-u']);
const MAPFILE_VALUED = new Set(['-d', '-n', '-O', '-s', '-u', '-C', '-c']);

/** The words after a builtin's options (those in `valued` take the next word); `read -a NAME` stores into NAME. */
function namesAfterOptions(args: WordToken[], valued: ReadonlySet<string>): WordToken[] {
  const names: WordToken[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!.value;
    if (!arg.startsWith('-')) names.push(args[i]!);
    else if (arg === '-a' && args[i + 1] !== undefined) names.push(args[++i]!);
    else if (valued.has(arg)) i += 1;
  }
  return names;
}

/**
 * An agent and one of its switches or variables named in text no shell reads (an
 * interpreter's code, a line that could not be read): the agent's name as a word, and the
 * switch or variable anywhere in the text.
 */
function mentionedLaunch(text: string, launches: readonly AgentLaunch[]): { launch: AgentLaunch; why: string } | undefined {
  for (const launch of launches) {
    const programs = [...launch.programs, ...launch.packages].map(escapeRegex).join('|');
    if (!new RegExp(`(?<![\\w.-])(?:${programs})(?![\\w-])`).test(text)) continue;
    const option = launch.switches.flatMap((s) => s.options.filter((o) => new RegExp(`(?<![\\w-])${escapeRegex(o)}(?![\\w-])`).test(text)).map((o) => `${o}: ${s.does}`))[0];
    if (option) return { launch, why: option };
    const variable = (text.match(/\b[A-Z_][A-Z0-9_]*\b/g) ?? []).find((v) => launch.variables.test(v));
    if (variable) return { launch, why: `${variable} changed` };
  }
  return undefined;
}
