// The answer to a hook call when the daemon does not give one: from the verdict file the
// daemon keeps beside its socket (a job it last knew as tripped stays denied, its way out still
// passes), else as ON_DAEMON_DOWN says; when the daemon is there but failed or was too slow, a
// tool call is denied. An agent about to compact gets nothing: a compaction is never held
// back. recap-hook bundles it apart from its usual path (with starting the daemon, in
// client/hookFallback.ts: dist/client/hookFallback.cjs), loaded only on this rare path; the
// launcher's endpoint answers with it when the daemon is too slow.
import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync, constants as fs } from 'node:fs';
import { parseConfigFile } from '../common/configFile.js';
import { jobIdFor, projectRoot } from '../common/jobs.js';
import { eventLogDir, projectConfigPath, socketPath, userConfigPath } from '../common/paths.js';
import { protectedPaths, protectionFor, readOnlyPaths, recapPaths, recapProcesses, shadowDirs } from '../agents/recapPaths.js';
import { protectionRefusal } from '../events/protection.js';
import { VERDICT_FILE_VERSION, verdictPath, type TrippedVerdict, type Verdicts } from '../common/verdicts.js';
import { classifyBash, recapWord } from '../events/whitelist.js';
import { NOTHING, type AgentFacts, type HookAnswer as Answer } from '../agents/facts.js';
import { codeChanged } from '../common/codeManifest.js';
import { isAlive, lockHolder, readPidFile } from '../common/daemonRecord.js';
import { readProc } from '../platform/choose.js';
import { keepPrompt, SPOOL_VERSION, type PromptMark } from '../common/promptSpool.js';

/**
 * ON_DAEMON_DOWN from the user's config, made stricter by the project's: the agent can
 * write the project's file and no daemon is here to hold back what it opens, so only the
 * user's file can say `open`; the project's can only say `closed`.
 */
function onDaemonDown(payload: unknown): 'open' | 'closed' {
  const cwd = (payload as { cwd?: unknown } | null)?.cwd;
  const files = [userConfigPath(), ...(typeof cwd === 'string' && cwd.startsWith('/') ? [projectConfigPath(projectRoot(cwd))] : [])];
  let mode: 'open' | 'closed' = 'open';
  for (const [index, file] of files.entries()) {
    try {
      if (!existsSync(file)) continue;
      const value = parseConfigFile(readFileSync(file, 'utf8'), process.env).assignments.get('ON_DAEMON_DOWN')?.value;
      const isUsers = index === 0;
      if (value === 'closed' || (value === 'open' && isUsers)) mode = value;
    } catch {
      // An unreadable file leaves the mode as it was.
    }
  }
  return mode;
}

/** The verdict file is a few KiB; anything far larger is not recap's and is not read. */
const VERDICT_MAX_BYTES = 4 * 1024 * 1024;

/** A verdict file that is there but cannot be trusted: damaged, replaced, not the user's. */
const UNREADABLE = Symbol('unreadable');

/**
 * The daemon's last verdicts; undefined when it has written none (no file); UNREADABLE when
 * one is there but cannot be trusted. Opened without following a link and without blocking
 * (a FIFO put in its place), read only if it is a regular file of the user's.
 */
function readVerdicts(): Verdicts | undefined | typeof UNREADABLE {
  let fd: number | undefined;
  try {
    fd = openSync(verdictPath(socketPath()), fs.O_RDONLY | fs.O_NOFOLLOW | fs.O_NONBLOCK);
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > VERDICT_MAX_BYTES || stat.uid !== process.getuid?.()) return UNREADABLE;
    const bytes = Buffer.alloc(stat.size);
    let read = 0;
    while (read < bytes.length) {
      const n = readSync(fd, bytes, read, bytes.length - read, read);
      if (n === 0) break;
      read += n;
    }
    const verdicts = JSON.parse(bytes.subarray(0, read).toString('utf8')) as Verdicts;
    const usable = verdicts?.version === VERDICT_FILE_VERSION && typeof verdicts.tripped === 'object' && typeof verdicts.sessions === 'object';
    return usable ? verdicts : UNREADABLE;
  } catch (error) {
    // No file where the daemon would write one (no such file, or its folder is no folder).
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? undefined : UNREADABLE;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * The tripped verdict of the payload's job (its session's bound job, else its folder's
 * project), or UNREADABLE when the daemon's last word cannot be known.
 */
function trippedJob(payload: Record<string, unknown>): { job: string; verdict: TrippedVerdict } | undefined | typeof UNREADABLE {
  const verdicts = readVerdicts();
  if (verdicts === undefined || verdicts === UNREADABLE) return verdicts;
  const session = typeof payload.session_id === 'string' ? payload.session_id : undefined;
  const bound = session !== undefined && Object.hasOwn(verdicts.sessions, session) ? verdicts.sessions[session] : undefined;
  const cwd = typeof payload.cwd === 'string' && payload.cwd.startsWith('/') ? payload.cwd : undefined;
  const job = bound ?? (cwd !== undefined ? folderJob(projectRoot(cwd), verdicts.tripped) : undefined);
  if (job === undefined || !Object.hasOwn(verdicts.tripped, job)) return undefined;
  return { job, verdict: verdicts.tripped[job]! };
}

/** A project folder's job: the tripped job whose repository it is known to be, else the job named after its path. */
function folderJob(project: string, tripped: Verdicts['tripped']): string {
  for (const [job, verdict] of Object.entries(tripped)) if (Array.isArray(verdict.folders) && verdict.folders.includes(project)) return job;
  return jobIdFor(project);
}

/** The payload's tool call in recap's terms. */
function toolCallOf(facts: AgentFacts, payload: Record<string, unknown>) {
  return facts.toolCall(typeof payload.tool_name === 'string' ? payload.tool_name : '', payload.tool_input);
}

/**
 * A shell call that is the way out (a whitelisted recap command): never denied by a fallback,
 * unless the protection rules refuse it (a summary read with --file from recap's own files).
 */
function isWayOut(facts: AgentFacts, payload: Record<string, unknown>): boolean {
  const call = toolCallOf(facts, payload);
  const whitelisted = call.kind === 'shell' && typeof call.command === 'string' && classifyBash(call.command, recapPaths(process.env)).allowed;
  // A rule that fails on recap's own command does not block the way out.
  return whitelisted && protectedFileRefusal(facts, payload, undefined) === undefined;
}

/** What the daemon would refuse as touching recap's files: the same pure check, on this process's paths. */
function protectedFileRefusal(facts: AgentFacts, payload: Record<string, unknown>, onFailure: string | undefined): string | undefined {
  const cwd = typeof payload.cwd === 'string' && payload.cwd.startsWith('/') ? payload.cwd : undefined;
  const env = process.env;
  const base = {
    paths: protectedPaths(env),
    readOnly: readOnlyPaths(env),
    shadowDirs: shadowDirs(env),
    home: env.HOME ?? '/',
    recapProcesses: recapProcesses(readPidFile(env)?.pid),
  };
  const state = protectionFor(base, cwd !== undefined ? projectRoot(cwd) : undefined);
  try {
    return protectionRefusal(toolCallOf(facts, payload), cwd, state, recapPaths(env));
  } catch {
    return onFailure;
  }
}

const isToolCall = (facts: AgentFacts, payload: Record<string, unknown>) => typeof payload.hook_event_name === 'string' && facts.events[payload.hook_event_name] === 'tool';

/**
 * The agent is about to compact, or its session ended: answered with nothing, whatever
 * ON_DAEMON_DOWN or the verdict file say. A compaction is never held back (an auto-compaction
 * blocked comes again on every step until the turn fails), and what recap adds to it needs the
 * daemon; a session's end blocks nothing, and without the daemon only its report is lost.
 */
export const answeredWithNothing = (facts: AgentFacts, payload: Record<string, unknown>) => {
  const kind = typeof payload.hook_event_name === 'string' ? facts.events[payload.hook_event_name] : undefined;
  return kind === 'compacting' || kind === 'sessionEnd';
};

/**
 * The daemon answered with an error, or the call could not be sent to it: answered as when
 * it is down (the verdict file, protection), except that a tool call ON_DAEMON_DOWN=open
 * would let through is denied: the daemon is there, it did not say yes. The way out passes.
 */
export function daemonFailed(facts: AgentFacts, payload: Record<string, unknown>, why: string, prompt?: PromptMark): Answer {
  if (answeredWithNothing(facts, payload)) return NOTHING;
  const kept = keptPrompt(facts, payload, why, prompt);
  if (kept !== undefined) return kept;
  const { answer, denied } = whenDown(facts, payload, why);
  if (!isToolCall(facts, payload) || isWayOut(facts, payload) || denied) return answer;
  return facts.deny(`recap: this call could not be checked (${why}), so it is denied. Try again; if it keeps failing, ask the user to run: recap doctor`);
}

/**
 * The daemon is there (it holds the log's lock) but did not answer: stopped with SIGSTOP, its
 * disk full, its storage failing, or its socket taken. ON_DAEMON_DOWN=open is for a daemon
 * that is not running, never for one that is silent: the agent could stop it to walk past the
 * gate. With `wake` (a call of recap's own), a stopped daemon is continued (SIGCONT: the
 * user's own processes may), so the way out reaches it.
 */
function silentDaemon(wake: boolean): { pid: number; stopped: boolean } | undefined {
  // Where the system does not say who holds the lock (src/platform), the pid file's process is
  // taken for the holder: a daemon that may be silent is not taken for one that is gone.
  const held = lockHolder(eventLogDir(process.env));
  const pid = held === undefined ? readPidFile(process.env)?.pid : held;
  if (typeof pid !== 'number' || !isAlive(pid)) return undefined;
  const stopped = readProc(pid)?.state === 'T';
  // A running daemon that listens elsewhere than this shell looks (another RECAP_SOCKET) is
  // not reachable, not silent. A stopped one is silent whatever its pid file says.
  const record = readPidFile(process.env);
  if (!stopped && record?.pid === pid && record.socket !== socketPath()) return undefined;
  if (stopped && wake) {
    try {
      process.kill(pid, 'SIGCONT');
    } catch {
      // Gone meanwhile: the next call starts a new one.
    }
  }
  return { pid, stopped };
}

function silentDaemonReason(silent: { pid: number; stopped: boolean }, why: string, status: string): string {
  if (silent.stopped) {
    return (
      `recap: the daemon (PID ${silent.pid}) is stopped (SIGSTOP), so this tool call was denied: a stopped daemon does not open the gate. ` +
      `Run ${status} to have recap continue it, then try the call again.`
    );
  }
  return (
    `recap: the daemon (PID ${silent.pid}) is running but not answering (${why}), so every tool but recap's own commands is denied: ` +
    'a silent daemon does not open the gate. Ask the user to run, in their own terminal: recap doctor (or recap restart; if its disk is full, make room first).'
  );
}

const RESTART_ADVICE =
  'If the daemon stays silent, ask the user to restart it: stop the old daemon (kill -CONT, then kill, its pid), then any recap command starts a new one; or systemctl --user restart recap.service.';

/**
 * The answer when the daemon cannot answer. A tool call of a job the daemon last knew as
 * tripped is denied (its way out passes); with no verdict known, ON_DAEMON_DOWN decides:
 * deny tool calls if closed, else warn.
 */
export function daemonDown(facts: AgentFacts, payload: Record<string, unknown>, why: string, prompt?: PromptMark): Answer {
  if (answeredWithNothing(facts, payload)) return NOTHING;
  return keptPrompt(facts, payload, why, prompt) ?? whenDown(facts, payload, why).answer;
}

/**
 * A prompt the daemon did not take (`prompt`: recap-hook's mark of it) is kept in the spool
 * (src/common/promptSpool.ts), and counted when the daemon answers again; the notice says so,
 * or that it could not be kept. Undefined for anything else.
 */
function keptPrompt(facts: AgentFacts, payload: Record<string, unknown>, why: string, prompt: PromptMark | undefined): Answer | undefined {
  if (prompt === undefined || typeof payload.hook_event_name !== 'string' || facts.events[payload.hook_event_name] !== 'prompt') return undefined;
  const kept = keepPrompt({ version: SPOOL_VERSION, id: prompt.id, agent: facts.name, at: prompt.at, payload });
  if (kept.kept) {
    return facts.notice(
      `recap: the daemon is not answering (${why}); this prompt was kept and will be counted when the daemon answers again. If it is not running, start it with: recap daemon`,
    );
  }
  return facts.notice(
    `recap: the daemon is not answering (${why}), and this prompt could not be kept to be counted later (${kept.why}), so it was not counted. ` +
      'Start the daemon with: recap daemon; if that fails, ask the user to run: recap doctor',
  );
}

function whenDown(facts: AgentFacts, payload: Record<string, unknown>, why: string): { answer: Answer; denied: boolean } {
  const deny = (reason: string) => ({ answer: facts.deny(reason), denied: true });
  const toolCall = isToolCall(facts, payload);
  const wayOut = toolCall && isWayOut(facts, payload);
  // A stopped daemon is continued for recap's own commands, so the way out can reach it.
  const silent = toolCall ? silentDaemon(wayOut) : undefined;
  // A daemon that holds the log started on code it checked: only a start that may be refused
  // (none running) needs the package looked at, thousands of lstats.
  const changed = toolCall && !wayOut && silent === undefined ? codeChanged(process.env) : undefined;
  if (changed !== undefined) return deny(changed);
  if (toolCall) {
    const tripped = trippedJob(payload);
    if (tripped !== undefined && wayOut) {
      // Whatever ON_DAEMON_DOWN says: a blocked way out would lock the user out.
      const message = `recap: the daemon is not answering (${why}); the recap command was let through. If it stays silent, ask the user to restart it (stop the old daemon, then any recap command starts a new one; or systemctl --user restart recap.service)`;
      return { answer: facts.notice(message), denied: false };
    }
    if (tripped === UNREADABLE) {
      return deny(
        `recap: the daemon is not answering (${why}), and its verdict file (${verdictPath(socketPath())}) cannot be read, so it is not known ` +
          'whether this job is tripped: every tool but the way out (recap status, context, chain and submit, by the path recap names) is denied. ' +
          RESTART_ADVICE,
      );
    }
    if (tripped !== undefined) {
      return deny(
        `recap: the daemon is not answering (${why}), and it last knew job ${tripped.job} as tripped (${tripped.verdict.reason}), ` +
          'so every tool but the way out is denied. Write a summary of the work since the last one and submit it with exactly ' +
          `this ${facts.shellTool} command, filling in every section:\n${tripped.verdict.submit}\n` +
          RESTART_ADVICE,
      );
    }
  }
  if (toolCall) {
    // A rule that fails is a refusal: an unjudged call must not go through on ON_DAEMON_DOWN=open.
    const refusal = protectedFileRefusal(facts, payload, 'recap could not judge the paths this call names');
    if (refusal !== undefined) return deny(`recap: this call was refused: ${refusal}. The daemon is not answering (${why}); recap's own files stay off limits all the same.`);
  }
  if (toolCall && !wayOut && silent !== undefined) return deny(silentDaemonReason(silent, why, `${recapWord(recapPaths(process.env))} status`));
  if (toolCall && onDaemonDown(payload) === 'closed') {
    const reason =
      `recap: the daemon is not reachable (${why}) and ON_DAEMON_DOWN=closed, so every tool is denied. ` +
      'Ask the user to start it with: recap daemon (or systemctl --user start recap.socket).';
    return deny(reason);
  }
  return { answer: facts.notice(`recap: the daemon is not reachable (${why}); this call was not checked. Start it with: recap daemon`), denied: false };
}
