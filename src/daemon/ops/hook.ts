// The `hook` op: any agent's hook, answered by hookService.ts with the ops a hook runs
// (HookOps, made here from the command service, and the instructions for an agent's own
// compaction summary); and the prompts taken from recap-hook's spool, which hooks wait for.
import type { Logger } from 'pino';
import { ADAPTERS } from '../../agents/adapters.js';
import type { HookAnswer } from '../../agents/facts.js';
import type { AgentName } from '../../agents/known.js';
import { steerSeqs, steerText } from '../../events/compactSteer.js';
import type { RequestOf } from '../../protocol/protocol.js';
import type { CommandService } from '../commandService.js';
import type { HookOps } from '../hookOps.js';
import type { Where } from '../jobResolver.js';
import { answerHook, recordSpooledPrompt, type SpooledOutcome } from '../hookService.js';
import { check, noticeShown, owed, record, submit, switchedOff, usage } from './gate.js';
import { chain, context, known, show, status, type Windows } from './job.js';
import type { OpFunction, OpsOf } from './table.js';
import { inScope } from '../scopeCheck.js';
import { sessionEnded } from './session.js';
import { FirstCallsKeeper } from '../firstCallsKeeper.js';
import type { SyncService } from '../sync/syncService.js';

/** Told of every hook answered, with how long the daemon took: telemetry's latency figure. */
export type HookAnswered = (agent: AgentName, ms: number, answer: HookAnswer) => void;

export class Hooks {
  private readonly ops: HookOps;
  private readonly firstCalls: FirstCallsKeeper;
  /** The spool being taken (SpoolTaker): hooks wait for it, so a trip it causes reaches the next tool call. */
  private spoolTaking: Promise<unknown> | undefined;

  constructor(
    s: CommandService,
    windows: Windows,
    /** The reads that have an op file (and state) of their own, shared with the op table, which a hook may run as the way out. */
    reads: OpsOf<'search' | 'timeline' | 'decisions'>,
    private readonly log: Logger,
    private readonly answered?: HookAnswered,
    syncs?: SyncService,
  ) {
    this.firstCalls = new FirstCallsKeeper(
      (where, session, agent, calls) => s.transact(where, (job, now) => ({ type: 'RecordFirstCalls', job, session, ...(agent !== undefined ? { agent } : {}), calls, now })),
      log,
    );
    this.ops = {
      recapCommand: s.recapCommand,
      recapPaths: s.deps.recapPaths,
      where: (r) => s.where(r),
      inScope: (where) => inScope(s, where),
      record: (r, where, prompt) => record(s, r, where, prompt),
      check: (r, where) => check(s, r, where),
      submit: (r) => submit(s, r),
      usage: (where, session, entries) => usage(s, where, session, entries),
      status: (r) => status(s, r),
      context: (r, where, shellTool, limit) => context(s, r, where, shellTool, limit),
      chain: (r) => chain(s, r),
      show: (r) => known(s, r.job, () => show(s, r)),
      decisions: reads.decisions,
      search: reads.search,
      timeline: reads.timeline,
      compactSteer: (where) => compactSteer(s, where),
      recordPending: (where) => s.recordPending(where),
      beforeMemory: (where) => syncs?.beforeMemory(where) ?? Promise.resolve(),
      windowOf: (session) => windows.of(session),
      owedNotice: (where) => owed(s, where),
      noticeShown: (where, notice, who) => noticeShown(s, where, notice, who),
      switchedOff: (where, session, agent) => switchedOff(s, where, session, agent),
      toolCalled: (session, call, where, cwd, agent) => {
        // Counted for the reports only: whatever goes wrong here, the call is still checked.
        try {
          s.sessions.toolCalled(session);
          this.firstCalls.called(session, call, where, cwd, agent);
        } catch (error) {
          log.warn({ err: error, session }, 'a tool call could not be counted for its session; it is checked all the same');
        }
      },
      sessionEnded: async (where, end) => {
        await this.firstCalls.flush(end.session);
        await sessionEnded(s, where, end);
      },
    };
  }

  readonly hook: OpFunction<'hook'> = async (r) => {
    // Prompts kept while the daemon was silent are recorded before any hook is answered.
    if (this.spoolTaking !== undefined) await this.spoolTaking;
    const told = this.answered;
    if (!told) return answerHook(ADAPTERS[r.agent], r.payload, this.ops, this.log, r.off === true, promptOf(r));
    const started = performance.now();
    const answer = await answerHook(ADAPTERS[r.agent], r.payload, this.ops, this.log, r.off === true, promptOf(r));
    told(r.agent, performance.now() - started, answer);
    return answer;
  };

  /** Hooks wait until `taking` settles. */
  hold(taking: Promise<unknown>): void {
    const held = taking.then(
      () => undefined,
      () => undefined,
    );
    this.spoolTaking = held;
    void held.then(() => {
      if (this.spoolTaking === held) this.spoolTaking = undefined;
    });
  }

  /** A prompt taken from recap-hook's spool, recorded as its hook would have been: what became of it. */
  recordSpooled(entry: { agent: AgentName; id: string; at: number; payload: Record<string, unknown> }): Promise<SpooledOutcome> {
    return recordSpooledPrompt(ADAPTERS[entry.agent], entry.payload, this.ops, this.log, { id: entry.id, at: entry.at });
  }
}

/** The instructions for the agent's own compaction summary, from the job's newest summary read from the log: a read, it appends nothing. */
async function compactSteer(s: CommandService, where: Where): Promise<string | undefined> {
  const { config } = await s.read(where);
  return s.withTexts(where.job, steerSeqs, (state, texts) => steerText(state, texts, config));
}

/** The mark recap-hook gave a prompt it sends, if it gave one. */
function promptOf(r: RequestOf<'hook'>): { id: string; at?: number } | undefined {
  if (r.promptId === undefined) return undefined;
  return r.promptAt !== undefined ? { id: r.promptId, at: r.promptAt } : { id: r.promptId };
}
