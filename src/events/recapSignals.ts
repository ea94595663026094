// Signals aimed at recap's own processes, in the spellings a command line shows: a stopped
// daemon keeps its socket and answers nobody; a killed one takes its hook answers with it.
// - any stop signal (kill -STOP, pkill -19, killall -s TSTP), whatever the target;
// - kill of the daemon's pid (or its group, or -1: every process of the user), in any signal;
// - pkill, killall, skill with a name or pattern recap's processes answer to (`pkill -f
//   recapd`, `killall node`), or none (`pkill -u me`: all of them);
// - kill with a signal or target the shell computes, in a line that names recap's processes
//   (`kill $(pgrep node)`, `kill -s $(echo STOP) <daemon pid>`); with the daemon's pid unknown,
//   any computed signal;
// - an interpreter's code (python -c, perl -e, node -e, ...) that sends a signal, in a line that
//   names recap's processes or a stop signal.
// Where reading ends: a pid the agent saved in a file earlier (`kill $(cat /tmp/p)`), a script
// file written earlier, names put together at run time, a program that walks the process list
// itself. A stopped daemon is answered by the hook from its verdict file instead.
// `timeout -s SIG` is not here: it signals only the command it starts, which is judged itself.
import { effectiveProgram, INTERPRETERS, programName } from './runsRecap.js';
import { commandsWithin, type Within } from './shellCommands.js';
import type { SimpleCommand, WordToken } from './shellTokens.js';

/** recap's own processes as `ps` shows them: the daemon's pids, and the names and command lines they answer to. */
export type RecapProcesses = { pids: readonly number[]; names: readonly string[] };

/** What recap's processes are called whatever the machine: node runs them all. */
const NAMES = ['node', 'recap', 'recapd', 'recap-hook', 'node bin/recap.js daemon', 'node bin/recap-hook.cjs'];
/** Programs whose code selects lines with /regex/: awk '/node/ {print $2}', sed -n '/node/p'. */
const AWKS = new Set(['awk', 'gawk', 'mawk', 'nawk', 'sed']);
const STOP = /^(?:SIG)?(?:STOP|TSTP|TTIN|TTOU)$|^(?:19|20|21|22)$/i;
const KILLERS = new Set(['kill', 'pkill', 'killall', 'skill', 'snice']);
/** Programs whose first argument is a pattern or name of processes, or of lines of `ps`. */
const FINDERS = new Set(['pgrep', 'pkill', 'pidof', 'killall', 'skill', 'snice', 'grep', 'egrep', 'fgrep', 'rg']);
/** Options of pkill, killall, pgrep and skill that take a value (which is no pattern). */
const VALUED = new Set([
  '-d',
  '--delimiter',
  '-g',
  '--pgroup',
  '-G',
  '--group',
  '-P',
  '--parent',
  '-s',
  '--session',
  '--signal',
  '-t',
  '--terminal',
  '-u',
  '--euid',
  '--user',
  '-U',
  '--uid',
  '-F',
  '--pidfile',
  '--ns',
  '--nslist',
  '--older-than',
  '--younger-than',
  '-Z',
  '--context',
  '-O',
  '--older',
  '-r',
  '--runstates',
]);
/** killall's own: its -o, -y and -n take a value, where pkill's -o and -n (oldest, newest) are switches; its -g (the process group) is one. */
const KILLALL_VALUED = new Set([...[...VALUED].filter((o) => o !== '-g'), '-o', '-y', '-n']);
/** grep's options that take a value; -e and --regexp give the pattern itself. */
const GREP_VALUED = new Set(['-f', '--file', '-m', '--max-count', '-A', '-B', '-C', '--context', '-d', '-D', '--include', '--exclude', '-g', '--glob', '-t', '--type']);
const GREPS = new Set(['grep', 'egrep', 'fgrep', 'rg']);
/** Code that sends a signal: os.kill, process.kill, Process.kill, perl's kill, psutil's suspend. */
const SIGNALLING = /\b(?:kill(?:pg)?|pkill|killall|send_signal|suspend|raise_signal|signal\.(?:SIGSTOP|SIGTSTP))\b/;
const STOP_IN_TEXT = /\b(?:SIG)?(?:STOP|TSTP|TTIN|TTOU)\b|\bsuspend\(|\bkill\w*\W+(?:[^;\n]*?\W)?(?:19|20|21|22)\b/;

const REFUSE = 'only the user may do that, outside the agent';

/** Why the command would signal (stop or kill) one of recap's processes, or could. */
export function signalRefusal(command: string, recap: RecapProcesses = { pids: [], names: [] }, within: Within = commandsWithin(command)): string | undefined {
  const { commands, unread } = within;
  const names = [...NAMES, ...recap.names];
  const named = () => namesRecap(commands, unread, recap.pids, names);
  for (const simple of commands) {
    const { program, args } = effectiveProgram(simple.words);
    if (program === undefined) continue;
    const name = programName(program.value);
    if (KILLERS.has(name)) {
      const why = name === 'kill' ? killRefusal(args, recap.pids, named) : byNameRefusal(name, args, names);
      if (why) return why;
    } else if (INTERPRETERS.has(name)) {
      const code = [command, ...simple.heredocs.map((h) => h.body)].join('\n');
      if (SIGNALLING.test(code) && (STOP_IN_TEXT.test(code) || quotesName(code, names) || named() !== undefined))
        return `the command runs code that sends a signal, and names recap's processes or a stop signal: it could stop or kill recap's daemon; ${REFUSE}`;
    }
  }
  for (const text of unread) {
    if (/\bkill/.test(text) && (STOP_IN_TEXT.test(text) || /recap/i.test(text))) return `the command could not be read, and it signals processes that may be recap's; ${REFUSE}`;
  }
  return undefined;
}

/** Signal names as kill -l lists them (SIG prefix optional), and numbers. */
const SIGNAL =
  /^(?:SIG)?(?:HUP|INT|QUIT|ILL|TRAP|ABRT|IOT|BUS|FPE|KILL|USR1|SEGV|USR2|PIPE|ALRM|TERM|STKFLT|CHLD|CONT|STOP|TSTP|TTIN|TTOU|URG|XCPU|XFSZ|VTALRM|PROF|WINCH|IO|POLL|PWR|SYS|RTMIN(?:\+\d+)?|RTMAX(?:-\d+)?)$|^\d+$/i;
/** Each killer's options that name the signal (pkill's -s is a session, its -n the newest process). */
const SIGNAL_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  kill: ['-s', '-n', '--signal'],
  killall: ['-s', '--signal'],
  pkill: ['--signal'],
  skill: ['--signal'],
  snice: [],
};

/**
 * The signal a kill-like command sends (its word, or undefined for the default) and the
 * rest of its words. `-9`, `-STOP`, `-sSTOP` name it too: for kill only before the first
 * target (`kill -9 -1`: -1 is a target), for the others anywhere.
 */
function signalOf(program: string, args: WordToken[]): { signal: WordToken | undefined; rest: WordToken[] } {
  const rest: WordToken[] = [];
  let signal: WordToken | undefined;
  const options = SIGNAL_OPTIONS[program] ?? [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!;
    const value = arg.value;
    const named = /^-[^-]/.test(value) ? [value.slice(1), value.slice(2)].find((v, at) => SIGNAL.test(v) && (at === 0 || /^s/i.test(value.slice(1)))) : undefined;
    const mayName = program !== 'kill' || (signal === undefined && rest.length === 0);
    // getopt takes any unambiguous start of a long option: --sig=STOP is --signal=STOP.
    const long = /^--si(?:g(?:n(?:al?)?)?)?(?:=(.*))?$/.exec(value);
    if ((options.includes(value) || (long && long[1] === undefined && options.includes('--signal'))) && args[i + 1] !== undefined) signal = stronger(signal, args[(i += 1)]!);
    else if (long?.[1] !== undefined) signal = stronger(signal, { ...arg, value: long[1] });
    else if (mayName && named !== undefined) signal = stronger(signal, { ...arg, value: named });
    else rest.push(arg);
  }
  return { signal, rest };
}

/** Of two signals given, the one to judge: a computed or a stopping one wins. */
function stronger(current: WordToken | undefined, next: WordToken): WordToken {
  if (current === undefined) return next;
  if (!current.literal || STOP.test(current.value)) return current;
  return next;
}

function killRefusal(args: WordToken[], pids: readonly number[], named: () => string | undefined): string | undefined {
  if (args.some((a) => ['-l', '-L', '--list', '--table'].includes(a.value))) return undefined;
  const { signal, rest } = signalOf('kill', args);
  if (signal?.literal && STOP.test(signal.value)) return stopping();
  const targets = rest.filter((t) => t.value !== '--');
  for (const target of targets.filter((t) => t.literal)) {
    if (target.value === '-1') return `kill -1 signals every process of the user, recap's daemon among them; ${REFUSE}`;
    // As kill reads a number: `07590`, `+7590` and ` 7590 ` are pid 7590; `-7590` is its group.
    const pid = /^\s*[-+]?\s*0*(\d+)\s*$/.exec(target.value)?.[1];
    if (pid !== undefined && pids.includes(Number(pid))) return `the command signals recap's daemon (pid ${pid}), which would then answer no hook; ${REFUSE}`;
  }
  const computedSignal = signal !== undefined && !signal.literal;
  // No target at all: they come from the input (xargs kill).
  const computedTarget = targets.length === 0 || targets.some((t) => !t.literal);
  if (computedSignal && pids.length === 0) return `the command signals with a signal the shell computes, which could stop recap's daemon; ${REFUSE}`;
  if (computedSignal || computedTarget) {
    const recap = named();
    if (recap) return `the command signals processes the shell computes, in a line that names recap's (${recap}); ${REFUSE}`;
  }
  return undefined;
}

/** pkill, killall, skill: by name or pattern, which recap's processes may answer to. */
function byNameRefusal(program: string, args: WordToken[], names: readonly string[]): string | undefined {
  const { signal, rest } = signalOf(program, args);
  if (signal?.literal && STOP.test(signal.value)) return stopping();
  const patterns = patternsOf(rest, program);
  // No name or pattern: the processes are chosen by options alone (owner, group, age, state, in any spelling), recap's among them.
  if (patterns.length === 0 && rest.length > 0) return `the command signals processes by owner, group or other options, recap's among them; ${REFUSE}`;
  for (const pattern of patterns) {
    if (!pattern.literal) return `the command signals processes by a name the shell computes, which could be recap's; ${REFUSE}`;
    const hit = names.find((n) => matches(pattern.value, n));
    if (hit !== undefined) return `the command signals processes named like recap's own (${pattern.value} matches ${hit}), which would then answer no hook; ${REFUSE}`;
  }
  return undefined;
}

/** A name of recap's processes as a string in code: `'node' in p.name()`, `pgrep node`. */
function quotesName(code: string, names: readonly string[]): boolean {
  return names.some((n) => !/\s/.test(n) && new RegExp(`['"\\s]${n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}['"\\s]`).test(code));
}

const stopping = () => `stopping a process could stop recap's daemon, which would then answer no hook; ${REFUSE}`;

/** The words of a finder that are patterns or names, past its options and their values. */
function patternsOf(args: WordToken[], program = 'pkill'): WordToken[] {
  const grep = GREPS.has(program);
  const valued = grep ? GREP_VALUED : program === 'killall' ? KILLALL_VALUED : VALUED;
  const patterns: WordToken[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const value = args[i]!.value;
    if (value === '--') return [...patterns, ...args.slice(i + 1)];
    if (grep && ['-e', '--regexp'].includes(value) && args[i + 1] !== undefined) patterns.push(args[(i += 1)]!);
    else if (valued.has(value)) i += 1;
    else if (!value.startsWith('-') || value === '-') patterns.push(args[i]!);
  }
  return patterns;
}

/** As pkill or grep would match (an extended regex, case ignored to be safe); a pattern JavaScript cannot read counts as a match. */
function matches(pattern: string, name: string): boolean {
  // POSIX's word edges and classes (\<node, [[:alpha:]]ode) mean nothing to JavaScript.
  if (/\\[<>]|\[\[[:=.]/.test(pattern)) return true;
  try {
    return new RegExp(pattern, 'i').test(name);
  } catch {
    return true;
  }
}

/**
 * How the line names recap's processes, if it does: the daemon's pid, recap in a word (not a
 * folder it cds into), or a finder's pattern (pgrep, pidof, grep of ps) that matches them.
 */
function namesRecap(commands: SimpleCommand[], unread: string[], pids: readonly number[], names: readonly string[]): string | undefined {
  const pid = pids.length > 0 ? new RegExp(`(?<![0-9])(?:${pids.join('|')})(?![0-9])`) : undefined;
  for (const simple of commands) {
    const { program, args } = effectiveProgram(simple.words);
    const name = programName(program?.value ?? '');
    if (name === 'cd') continue;
    const texts = [...simple.words.map((w) => w.value), ...simple.heredocs.map((h) => h.body)];
    const hit = texts.find((t) => pid?.test(t) || /recap/i.test(t) || pids.includes(arithmeticValue(t) ?? -1));
    if (hit !== undefined) return hit;
    if (AWKS.has(name)) {
      // Each /regex/ of its program is a pattern of ps lines.
      const pattern = args.flatMap((a) => [...a.value.matchAll(/(?:^|[\s!(~])\/((?:\\.|[^/\n])+)\//g)].map((m) => m[1]!)).find((p) => names.some((n) => matches(p, n)));
      if (pattern !== undefined) return `${name} /${pattern}/`;
    }
    if (FINDERS.has(name)) {
      const pattern = patternsOf(args, name)[0];
      if (pattern !== undefined && (!pattern.literal || names.some((n) => matches(pattern.value, n)))) return `${name} ${pattern.value}`;
    }
  }
  return unread.find((t) => pid?.test(t) || /recap/i.test(t));
}

/** A number as shell arithmetic reads it (`0x1f2`, `0755`, `16#1f2`, `498`), or undefined. */
function arithmeticValue(text: string): number | undefined {
  const t = text.trim();
  if (/^0[xX][0-9a-fA-F]+$/.test(t)) return parseInt(t.slice(2), 16);
  if (/^0[0-7]+$/.test(t)) return parseInt(t, 8);
  if (/^\d+$/.test(t)) return Number(t);
  const based = /^(\d+)#([0-9a-zA-Z]+)$/.exec(t);
  return based && Number(based[1]) >= 2 && Number(based[1]) <= 36 ? parseInt(based[2]!, Number(based[1])) : undefined;
}
