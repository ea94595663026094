// Any agent's hook, answered the same way once its adapter has read it: a prompt is
// recorded, a question and its answer are recorded, every tool call is checked, a new
// session is handed the job's memory, a compaction is steered (never blocked). A tool call
// of an unexpected shape is judged as an unknown tool (denied while the gate is tripped);
// anything else unreadable gets a harmless answer and a warning.
import type { Logger } from 'pino';
import type { Adapter, Caller, HookCall } from '../agents/adapter.js';
import { NOTHING, withNotice, type HookAnswer } from '../agents/facts.js';
import { CommandRefused } from '../events/commands.js';
import type { HookOps, PromptSent } from './hookOps.js';
import type { Where } from './jobResolver.js';
import { TranscriptReader, type MachineTurn } from './transcript.js';
import { wayOutInHook } from './wayOutInHook.js';

const readers = new Map<Adapter, TranscriptReader>();

/**
 * `off`: the hook found RECAP_DISABLE=1 set by the user (src/client/disableSwitch.ts): the
 * call goes through unrecorded, and the session's first call says so.
 */
export async function answerHook(adapter: Adapter, payload: unknown, ops: HookOps, log: Logger, off = false, prompt?: PromptSent): Promise<HookAnswer> {
  const { facts } = adapter;
  const parsed = adapter.parse(payload);
  if (off) {
    if (!parsed.ok || parsed.call === undefined || parsed.call.kind === 'sessionEnd') return NOTHING;
    const where = ops.where({ session: parsed.caller.session, cwd: parsed.caller.cwd });
    const first = await ops.switchedOff(where, parsed.caller.session, facts.name);
    return first ? facts.notice(`recap is off in this shell (RECAP_DISABLE=1): nothing is counted or gated until ${facts.title} starts without it`) : NOTHING;
  }
  if (!parsed.ok) {
    // Silence is an allow: a tool call recap cannot read is judged as an unknown tool.
    const { event, problems } = parsed;
    if (parsed.toolCall) {
      log.warn({ agent: facts.name, event, problems }, `judging a ${facts.title} tool call of an unexpected shape as an unknown tool`);
      return unreadableToolCall(adapter, parsed, ops);
    }
    log.warn({ agent: facts.name, event, problems }, `ignoring a ${facts.title} hook payload of an unexpected shape`);
    return NOTHING;
  }
  if (parsed.call === undefined) {
    // An event of the agent's own that its adapter chose to pass over (Qwen Code's
    // UserPromptSubmit before each request after a tool round) is routine, not a surprise.
    const routine = typeof parsed.event === 'string' && Object.hasOwn(facts.events, parsed.event);
    const fields = { agent: facts.name, event: parsed.event };
    if (routine) log.debug(fields, `passing over a ${facts.title} ${String(parsed.event)} event its adapter does not act on`);
    else log.warn(fields, `ignoring a ${facts.title} hook event recap does not handle`);
    return NOTHING;
  }
  const { call, caller } = parsed;
  // A job out of scope has no summary to steer a compaction by: it gets none.
  if (call.kind === 'compacting') return steerCompaction(adapter, caller, ops, log);
  // Not `{ ...(session ? { session } : {}), cwd }`: see whoOf.
  const where = ops.where({ session: caller.session, cwd: caller.cwd });
  // Out of scope (SCOPE=marked, a project not marked): answered at once, nothing counted or recorded.
  if (!ops.inScope(where)) return NOTHING;
  const { machine, ...seen } = await observe(adapter, caller, where, ops, log);
  if (call.kind === 'sessionEnd') return endSession(adapter, call.reason, caller, where, ops, log);
  let answer: HookAnswer;
  try {
    answer = await answerCall(adapter, asMachine(call, machine), caller, where, ops, seen, prompt);
  } catch (error) {
    if (!(error instanceof CommandRefused)) throw error;
    // A refusal is never an allow for a tool call; a prompt or a session start goes on.
    return call.kind === 'tool' ? facts.deny(`recap: ${error.message}`) : NOTHING;
  }
  return withOwedNotice(adapter, answer, where, caller, ops);
}

/**
 * The gate's last move (a trip, an accepted summary) told to the user in one line, on the
 * first answer that has room for it, and recorded as shown.
 */
async function withOwedNotice(adapter: Adapter, answer: HookAnswer, where: Where, caller: Caller, ops: HookOps): Promise<HookAnswer> {
  const notice = ops.owedNotice(where);
  if (notice === undefined) return answer;
  const told = withNotice(adapter.facts, answer, notice.text);
  if (told === answer) return answer;
  await ops.noticeShown(where, notice, { ...(caller.session !== undefined ? { session: caller.session } : {}), agent: adapter.facts.name });
  return told;
}

/**
 * The agent is about to compact its conversation: its summary is asked to keep what the
 * job's newest summary records. Never a block, whatever happens: a compaction held back
 * would only come again, the context still full; with nothing to say or no way to say it,
 * the answer is nothing. Not a turn of the session's: no transcript read, no notice owed.
 */
async function steerCompaction(adapter: Adapter, caller: Caller, ops: HookOps, log: Logger): Promise<HookAnswer> {
  const { facts } = adapter;
  if (facts.steer === undefined) return NOTHING;
  try {
    const where = ops.where({ session: caller.session, cwd: caller.cwd });
    const instructions = await ops.compactSteer(where);
    return instructions === undefined ? NOTHING : facts.steer(instructions);
  } catch (error) {
    log.warn({ err: error, agent: facts.name }, `${facts.title}'s compaction goes on without recap's instructions: they could not be made`);
    return NOTHING;
  }
}

/**
 * The session ended: its figures go on record, its transcript read one last time just before
 * (observe). Never a block and nothing to say: the agent is leaving, and whatever goes wrong
 * here is the daemon's log's to tell.
 */
async function endSession(adapter: Adapter, reason: string | undefined, caller: Caller, where: Where, ops: HookOps, log: Logger): Promise<HookAnswer> {
  const session = caller.session;
  if (session === undefined) return NOTHING;
  try {
    await ops.sessionEnded(where, { session, from: adapter.facts.name, ...(reason !== undefined ? { reason } : {}) });
  } catch (error) {
    log.warn({ err: error, agent: adapter.facts.name, session }, `${adapter.facts.title} session ${session} ended; its report could not be recorded`);
  }
  return NOTHING;
}

/** Every call but a compaction's, which steerCompaction answers, and a session's end, which endSession does. */
type AnsweredCall = Exclude<HookCall, { kind: 'compacting' } | { kind: 'sessionEnd' }>;

async function answerCall(
  adapter: Adapter,
  call: AnsweredCall,
  caller: Caller,
  where: Where,
  ops: HookOps,
  seen: { contextTokens?: number; contextWindow?: number },
  prompt: PromptSent | undefined,
): Promise<HookAnswer> {
  const { facts } = adapter;
  const who = whoOf(caller);
  switch (call.kind) {
    case 'prompt': {
      const result = await ops.record({ kind: 'prompt', text: call.text, ...who, ...seen }, where, prompt);
      if (!result.gate?.tripped) return NOTHING;
      return facts.context(
        'prompt',
        `recap: job ${where.job} needs a summary before any other tool can run ` +
          `(${result.gate.unsummarizedTokens} unsummarized tokens, threshold ${result.gate.threshold}${result.gate.reason !== undefined && result.gate.reason !== 'threshold' ? `; tripped: ${result.gate.reason}` : ''}). ` +
          `Run ${ops.recapCommand} context in your ${facts.shellTool} tool to see what to summarize and the command to submit it with.`,
      );
    }
    case 'tool': {
      if (caller.session !== undefined) ops.toolCalled(caller.session, call.call, where, caller.cwd, facts.name);
      const inHook = adapter.wayOutInHook;
      if (inHook !== undefined && inHook !== false) {
        const ran = await wayOutInHook(call.call, where, ops, facts.shellTool, () => inHook === true || inHook(caller));
        if (ran !== undefined) return facts.deny(ran);
      }
      const answer = await ops.check({ call: call.call, cwd: caller.cwd, shellTool: facts.shellTool, ...who, ...seen }, where);
      return answer.allow ? NOTHING : facts.deny(answer.reason);
    }
    case 'toolUsed':
      if (call.qa !== undefined && call.qa !== '') await ops.record({ kind: 'qa', text: call.qa, ...who }, where);
      return NOTHING;
    case 'machine':
      // A prompt event the transcript shows as the harness's turn keeps its mark: kept too, it is still recorded once.
      if (call.text.trim() !== '') await ops.record({ kind: call.as, text: call.text, ...who }, where, prompt);
      return NOTHING;
    case 'sessionStart': {
      // A session's start is a write: its binding and the config facts read for it go to the log before its memory is read.
      await ops.recordPending(where);
      // Other machines' summaries of the repository, if sync is on: fetched, or given up on after a short wait.
      await ops.beforeMemory(where);
      const { text: memory, tripped, summaries } = await ops.context({}, where, facts.shellTool, facts.contextLimit);
      if (!tripped && summaries === 0) return NOTHING;
      return facts.context('sessionStart', memory);
    }
  }
}

/** What became of a prompt taken from recap-hook's spool. */
export type SpooledOutcome = { recorded: true; job: string; tripped: boolean } | { recorded: false; why: string };

/**
 * A prompt recap-hook kept in its spool while the daemon did not answer, recorded as its hook
 * would have been (the transcript read, a turn of the harness recorded as its kind), at the
 * time it came. Anything but a prompt is not recorded: the spool holds prompts only.
 */
export async function recordSpooledPrompt(adapter: Adapter, payload: unknown, ops: HookOps, log: Logger, prompt: { id: string; at: number }): Promise<SpooledOutcome> {
  const parsed = adapter.parse(payload);
  if (!parsed.ok) return { recorded: false, why: `its payload has an unexpected shape (${parsed.problems})` };
  const notPrompt = { recorded: false as const, why: `it is not a prompt of ${adapter.facts.title}'s` };
  if (parsed.call === undefined) return notPrompt;
  const { call, caller } = parsed;
  if (call.kind !== 'prompt') return notPrompt;
  const where = ops.where({ session: caller.session, cwd: caller.cwd });
  if (!ops.inScope(where)) return { recorded: false, why: 'its project is out of scope (SCOPE=marked, no .recap/ folder)' };
  const { machine, ...seen } = await observe(adapter, caller, where, ops, log);
  const turn = asMachine(call, machine);
  const interaction = turn.kind === 'machine' ? { kind: turn.as, text: turn.text } : { kind: 'prompt', text: call.text, ...seen };
  try {
    const result = await ops.record({ ...interaction, ...whoOf(caller) }, where, prompt);
    if (result.already) return { recorded: false, why: 'it was recorded already (its prompt id is in the log)' };
    return { recorded: true, job: where.job, tripped: result.gate?.tripped === true };
  } catch (error) {
    // The domain's refusal (an empty text): nothing to record.
    if (error instanceof CommandRefused) return { recorded: false, why: error.message };
    throw error;
  }
}

/** A prompt the transcript already shows as a turn the agent's harness made is recorded as that turn's kind. */
function asMachine(call: AnsweredCall, machine: MachineTurn[]): AnsweredCall {
  if (call.kind !== 'prompt') return call;
  const turn = machine.find((m) => m.text.trim() === call.text.trim());
  return turn === undefined ? call : { kind: 'machine', as: turn.kind, text: call.text };
}

/**
 * The transcript's news: the model's usage is recorded, the context use and the turns the
 * agent's harness made are handed on. It is secondary to the hook's answer: whatever goes
 * wrong here, the answer is the same.
 */
async function observe(
  adapter: Adapter,
  caller: Caller,
  where: Where,
  ops: HookOps,
  log: Logger,
): Promise<{ contextTokens?: number; contextWindow?: number; machine: MachineTurn[] }> {
  const path = caller.transcript;
  if (path === undefined || !path.endsWith('.jsonl') || adapter.transcriptUsage === undefined) return { machine: [] };
  let reader = readers.get(adapter);
  if (reader === undefined) {
    reader = new TranscriptReader(adapter.transcriptUsage);
    readers.set(adapter, reader);
  }
  try {
    const news = await reader.read(path);
    await ops.usage(where, caller.session ?? 'unknown', news.usage);
    if (news.contextTokens === undefined) return { machine: news.machine };
    // The window the session's status line told, else the one the agent reports for the model.
    const window = ops.windowOf(caller.session) ?? (news.model !== undefined ? adapter.facts.contextWindow?.(news.model) : undefined);
    return { machine: news.machine, contextTokens: news.contextTokens, ...(window !== undefined ? { contextWindow: window } : {}) };
  } catch (error) {
    log.warn({ err: error, transcript: path }, 'the transcript could not be used; the call is judged without it');
    return { machine: [] };
  }
}

/**
 * The call's session and agent, those it has. Made field by field: on Node 20's V8 an object
 * that begins with a spread and gets more properties survives two scavenges (checkTool
 * in ops/gate.ts says more), and every hook call makes this one.
 */
function whoOf(caller: Caller): { session?: string; agent?: string } {
  const who: { session?: string; agent?: string } = {};
  if (caller.session !== undefined) who.session = caller.session;
  if (caller.agent !== undefined) who.agent = caller.agent;
  return who;
}

/** The name an unreadable tool call is checked under: no whitelist or rule knows it. */
const UNREADABLE_TOOL = '(unreadable tool call)';

/**
 * A tool call recap cannot read: its job (the session's, else the folder's) judges it as an
 * unknown tool, so a tripped gate denies it; with no job to ask, it is denied.
 */
async function unreadableToolCall(adapter: Adapter, parsed: { problems: string; session?: string; cwd?: string }, ops: HookOps): Promise<HookAnswer> {
  const { facts } = adapter;
  const { session, cwd, problems } = parsed;
  let where: Where;
  try {
    where = ops.where({ ...(session !== undefined ? { session } : {}), ...(cwd !== undefined ? { cwd } : {}) });
  } catch {
    return facts.deny(
      `recap: this tool call's hook input has an unexpected shape (${problems}) and names no folder or known session, ` +
        `so recap cannot tell which job it belongs to and denies it. Tell the user: recap's hook may not match this ${facts.title} version (recap doctor).`,
    );
  }
  const call = { name: UNREADABLE_TOOL, kind: 'other' as const, paths: [] };
  const answer = await ops.check({ call, shellTool: facts.shellTool, ...(session !== undefined ? { session } : {}), ...(cwd !== undefined ? { cwd } : {}) }, where);
  if (answer.allow) return NOTHING;
  return facts.deny(`recap could not read this tool call (${problems}); it is judged as an unknown tool.\n${answer.reason}`);
}
