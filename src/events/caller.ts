// Who may run the user's commands (pause, resume, trip, config allow, reload, stop): the
// user, from their own terminal. A process does not speak for the user because it runs as
// the user, so the caller is judged by where it comes from, as the kernel tells it, never by
// what its request says: it must not be, or descend from, an agent (an agent's program, or
// an agent's marker variables in its environment at start), and it must not be a background
// process cut loose from whoever started it (left to init or a user manager, detached from
// its session, a daemon with no terminal: a watcher an agent started, cron, atd).
// A same-user program can still build a clean-looking process (a terminal of its own under a
// setsid'd parent); that is past what ancestry can tell, and the README says so.

/** The caller as it is recorded with the command: its process and a short view of its ancestry. */
export type Caller = { pid: number; program: string; ancestry: string };

/** Not the user's: `unknowable` when the system could not tell (not when it told of an agent). */
export type CallerVerdict = { user: true; caller: Caller } | { user: false; why: string; unknowable?: true };

/** What marks an agent: its shell tool's variables, and how its own process is recognised. */
export type AgentMarks = {
  variables: readonly string[];
  /** The agent a process is, if it is one (its program's name or package). */
  agentOf: (proc: Proc) => string | undefined;
};

/** The processes under init that take in orphans: a user's service manager. */
const SUBREAPERS = new Set(['systemd']);
const ANCESTRY_SHOWN = 5;

/**
 * Whether the processes holding the caller's end of the connection (each with its
 * ancestors, it first, up to init) are the user's. Every holder must be: a socket handed to
 * a clean process does not clean the one that opened it.
 */
export function judgeCaller(holders: readonly (readonly Proc[])[], marks: AgentMarks): CallerVerdict {
  const first = holders[0];
  if (first === undefined || first.length === 0) return { user: false, why: 'recap could not tell which process sent it' };
  let unknowable: string | undefined;
  for (const chain of holders) {
    const why = notTheUsers(chain, marks);
    if (typeof why === 'string') return { user: false, why: `it came from ${describe(chain)}, which ${why}` };
    if (why !== undefined) unknowable ??= `it came from ${describe(chain)}, which ${why.unknowable}`;
  }
  return unknowable === undefined ? { user: true, caller: callerOf(first) } : { user: false, why: unknowable, unknowable: true };
}

/** Why a chain is not the user's; `unknowable` when this system does not tell what the rule needs. */
function notTheUsers(chain: readonly Proc[], marks: AgentMarks): string | { unknowable: string } | undefined {
  if (chain.length === 0) return 'recap could not read';
  for (const proc of chain) {
    const marker = marks.variables.find((name) => proc.env.has(name));
    if (marker !== undefined) return `is an agent's (${marker} is set for ${name(proc)})`;
    const agent = marks.agentOf(proc);
    if (agent !== undefined) return `descends from ${agent} (${name(proc)})`;
  }
  const init = chain[chain.length - 1]!;
  // A chain that ends anywhere but init lost a process while it was read: it cannot be told.
  if (init.pid !== 1) return `could not be traced to init (${name(init)} is the last recap could read)`;
  const below = chain.findIndex((p, i) => i + 1 < chain.length && (chain[i + 1]!.pid === 1 || SUBREAPERS.has(chain[i + 1]!.comm)));
  const origin = chain[below];
  if (origin === undefined) return undefined;
  if (origin.sid === undefined) {
    // macOS tells whether a process leads a session, not which one it is in.
    return { unknowable: `this system does not tell which session ${name(origin)} is in, so recap cannot tell it was not cut loose from the one that started it` };
  }
  // Started by init in its own session (a service, the machine's console): not cut loose.
  if (origin.sid === init.sid) return undefined;
  const startedFromTerminal = chain.slice(0, below + 1).some((p) => p.tty !== 0);
  if (origin.sid === origin.pid) {
    // A session of its own (a terminal emulator, tmux, sshd's; or a daemon): a terminal below it is the user's.
    if (startedFromTerminal) return undefined;
    return `runs in the background with no terminal (${name(origin)} leads a session of its own under ${name(chain[below + 1]!)}: a program started with setsid, cron or atd)`;
  }
  return `was cut loose from the session that started it (${name(origin)} was left to ${name(chain[below + 1]!)})`;
}

/**
 * What a user's command does for a caller this system cannot tell: `run` for those that only
 * make recap stricter (resume ends a pause, trip asks for a summary), `ask` (confirmation on
 * the user's terminal) for those that open or weaken the gate or stop recap. Never refused
 * outright, so the user is never locked out; never run unasked, so no gate opens on its own.
 */
export function whenCallerUnknown(command: string): 'run' | 'ask' {
  return command === 'resume' || command === 'trip' ? 'run' : 'ask';
}

/** Who ran a user's command whose caller this system cannot tell: what is known of it, and whether it was confirmed at a terminal. */
export function unknownCaller(why: string, confirmed: boolean): Caller {
  return { pid: 0, program: '(not known)', ancestry: `${confirmed ? 'confirmed at a terminal; ' : ''}${why}`.slice(0, 4000) };
}

/**
 * What the daemon answers for a command it needs confirmed: why, and where the word that
 * confirms it is (`word` undefined: in a notification, out of an agent's sight; else here).
 * The client asks for it on its own terminal (src/client/terminalConfirm.ts).
 */
export function confirmQuestion(command: string, why: string, word: string | undefined): string {
  const where = word === undefined ? 'type the word recap just showed you in a notification' : `type ${word}`;
  return `recap ${command} is the user's to run, and this system cannot tell who sent it (${why}): to confirm it, ${where} at your own terminal`;
}

/** What a refused user's command says: the command, why its caller is not the user, what to do. */
export function userCommandRefusal(command: string, why: string): string {
  return `recap ${command} is the user's to run, from their own terminal, and ${why}: run it in your own terminal`;
}

const name = (proc: Proc) => `${proc.comm} ${proc.pid}`;

function describe(chain: readonly Proc[]): string {
  const shown = chain.slice(0, ANCESTRY_SHOWN).map(name);
  return `process ${shown.join(' ← ')}${chain.length > ANCESTRY_SHOWN ? ' ← …' : ''}`;
}

function callerOf(chain: readonly Proc[]): Caller {
  const proc = chain[0]!;
  const program = proc.argv[0] ?? proc.comm;
  return { pid: proc.pid, program, ancestry: chain.slice(0, ANCESTRY_SHOWN).map(name).join(' ← ') };
}

/**
 * An agent's own process by its launch facts (the programs and npm packages that start it):
 * the program, or the script Node runs, as its command line names them.
 */
export function agentOfBy(agents: readonly { title: string; programs: readonly string[]; packages: readonly string[] }[]) {
  return (proc: Proc): string | undefined => {
    const files = [proc.comm, ...proc.argv.slice(0, 2).map((arg) => arg.slice(arg.lastIndexOf('/') + 1).replace(/\.[cm]?js$/, ''))];
    for (const agent of agents) {
      if (agent.programs.some((name) => files.includes(name))) return agent.title;
      if (proc.argv.slice(0, 3).some((arg) => agent.packages.some((p) => arg.includes(`/${p}`)))) return agent.title;
    }
    return undefined;
  };
}

/** A process as the operating system tells it (src/platform reads it). */
export type Proc = {
  pid: number;
  ppid: number;
  /** The kernel's name for it: its program's file name, cut to 15 characters. */
  comm: string;
  /** R running, S sleeping, T stopped (SIGSTOP), Z a zombie, and so on. */
  state: string;
  /** Its session: a process that called setsid() leads its own (sid === pid). Undefined where the system does not tell (macOS tells only whether it leads one). */
  sid: number | undefined;
  /** Its controlling terminal's device number; 0 when it has none. */
  tty: number;
  /** Its first arguments (the program and what it runs), each cut short. */
  argv: readonly string[];
  /**
   * The environment it started with; empty when it cannot be read (another user's process).
   * Where the system shows it only as words run together (macOS's ps -E), a value that spells
   * ` NAME=` adds a name that is not set, never hides one that is.
   */
  env: ReadonlyMap<string, string>;
};
