// The one place requests are answered, for the socket and the HTTP endpoint alike:
// validate, decide on the job's state, append the events, answer once they are durable.
import type { Logger } from 'pino';
import { recapVersion } from '../common/version.js';
import { CommandRefused, type CheckTool, type PauseGate, type ResumeGate } from '../events/commands.js';
import type { Config } from '../events/config.js';
import type { RecapEvent, SessionBound } from '../events/events.js';
import type { UsageEntry } from '../events/commands.js';
import { decide } from '../events/decide.js';
import type { DecideContext } from '../events/decision.js';
import { gateStatus, type GateStatus } from '../events/gate.js';
import { cutToFit, fits, lengthIn, type ContextLimit } from '../events/contextFit.js';
import { fittedBudget, contextSeqs, contextText, denySeqs, summaryTemplate, tripCause } from '../events/gateMessages.js';
import { NO_TEXTS, type JobState, type SummaryTexts } from '../events/jobState.js';
import type { ProtectedState } from '../events/protection.js';
import type { RecapProcesses } from '../events/recapSignals.js';
import { owedConfigNotice, owedNotice, type Notice } from '../events/notices.js';
import { submitSeqs } from '../events/summaries.js';
import { tokenCounter, type TokenCounter } from '../events/tokens.js';
import { recapWord } from '../events/whitelist.js';
import { eventsPage, projectionAt, verifyLog } from './audit.js';
import { answerHook, recordSpooledPrompt, type SpooledOutcome } from './hookService.js';
import { ADAPTERS } from '../agents/adapters.js';
import { AGENT_FACTS, type AgentName } from '../agents/known.js';
import type { HookAnswer } from '../agents/facts.js';
import type { ToolCall } from '../events/toolCall.js';
import { usageReport } from './report.js';
import type { ConfigService, Effective } from './configService.js';
import { sameValues } from './configService.js';
import { projectConfigPath } from '../common/paths.js';
import { StorageFailed, type EventStore } from './eventStore.js';
import type { Projection } from './projection.js';
import { USER_SCOPE } from './projection.js';
import { encodeSnapshot } from './snapshot.js';
import { JobResolver, type JobFields, type Where } from './jobResolver.js';
import { protectionFor } from '../agents/recapPaths.js';
import { SummaryTextCache } from './summaryTexts.js';
import { userCommandRefusal, type Caller, type CallerVerdict } from '../events/caller.js';
import { byOf } from '../events/switches.js';
import { parseRequest, ProtocolError, userCommand, type JobRow, type Op, type PastStatus, type RequestOf, type Response, type ResponseOf } from '../protocol/protocol.js';
import { nearNames } from '../common/nearNames.js';
import type { TrippedVerdict, VerdictFile } from '../common/verdicts.js';

/** This recap's version (package.json's), read once. */
export const VERSION = recapVersion();

/** How many times withTexts reads summary texts for a state that keeps moving on. */
const TEXT_ATTEMPTS = 5;
/** How many sessions' model windows are kept. */
const MAX_WINDOWS = 10_000;
/** How many times a memory is rendered again to fit an agent's limit before it is cut. */
const CONTEXT_FIT_ATTEMPTS = 4;

export type HandlerDeps = {
  store: EventStore;
  projection: () => Projection;
  config: ConfigService;
  recapPaths: ReadonlySet<string>;
  /** recap's files the agent may not touch (data folder, socket folder, user config). */
  protectedPaths: string[];
  /** What wires recap in and runs it: the agent may read these, never change them. */
  readOnlyPaths?: string[];
  /** Folders where a recap, recap-hook or node would shadow the real one on PATH. */
  shadowDirs?: string[];
  home: string;
  /** recap's daemon as a process (pid, names), which no signal from the agent may reach. */
  recapProcesses?: RecapProcesses;
  /** A projection snapshot is written every this many events. */
  snapshotEvery: number;
  /** Starts the HTTP hook endpoint (making its token) if it is not running; its URL. */
  enableHttp: () => Promise<{ url: string; tokenFile: string }>;
  /** Starts the audit page's server if it is not running; the URL to open, with its token. */
  enableUi?: () => Promise<{ url: string }>;
  /** Told of every hook answered, with how long the daemon took: telemetry's latency figure. */
  hookAnswered?: (agent: AgentName, ms: number, answer: HookAnswer) => void;
  log: Logger;
  now?: () => number;
  /** The file hooks fall back on when the daemon cannot answer: told of every trip and clear. */
  verdicts?: VerdictFile;
  lifecycle: Lifecycle;
};

/** The daemon process itself, for `recap status --daemon`, `recap stop` and `recap reload`. */
export type Lifecycle = {
  info: () => ResponseOf<'daemon'>;
  /** Re-reads the user's config (as SIGHUP does): its file and its problems. */
  reload: () => Promise<ResponseOf<'reload'>>;
  /** Shuts down once the requests in flight, this one included, are answered. */
  stop: () => void;
};

/** What a command is decided with: the job's configuration and its token counter. */
type Prepared = { decide: DecideContext; effective: Effective };

export class Handler {
  private readonly counters = new Map<string, Promise<TokenCounter>>();
  private readonly protectedStates = new Map<string | undefined, ProtectedState>();
  private readonly now: () => number;
  private readonly texts: SummaryTextCache;
  private readonly jobs: JobResolver;
  /** How messages to the agent name recap: the launcher's path, the only name the gate accepts. */
  readonly recapCommand: string;
  /** The launcher's paths, the only names of recap a whitelisted command may use. */
  readonly recapPaths: ReadonlySet<string>;

  constructor(private readonly deps: HandlerDeps) {
    this.now = deps.now ?? Date.now;
    this.recapCommand = recapWord(deps.recapPaths);
    this.recapPaths = deps.recapPaths;
    this.texts = new SummaryTextCache(deps.store);
    this.jobs = new JobResolver(deps.projection, deps.config);
  }

  /** The job a request is about (see JobResolver): the hook and every command ask here. */
  where(r: JobFields): Where {
    return this.jobs.resolve(r, this.now());
  }

  /**
   * Answers one request. `caller` tells who sent it, asked only for the user's commands
   * (it costs a look at the kernel's socket table): without it they are refused.
   */
  async handle(request: unknown, progress?: (done: number) => void, caller?: () => Promise<CallerVerdict>): Promise<Response> {
    const parsed = parseRequest(request);
    if (!parsed.ok) return failure(parsed.id, parsed.code, parsed.message);
    const { id, op } = parsed;
    try {
      const command = userCommand(op, parsed.request);
      let by: Caller | undefined;
      if (command !== undefined) {
        const verdict = caller ? await caller() : ({ user: false, why: "it did not come over recap's socket" } as const);
        if (!verdict.user) {
          this.deps.log.warn({ op, why: verdict.why }, "refused a user command from a process that is not the user's");
          return failure(id, 'refused', userCommandRefusal(command, verdict.why));
        }
        by = verdict.caller;
        this.deps.log.info({ op, by }, 'a user command');
      }
      return { id, result: await this.answer(op, parsed.request, progress, by) };
    } catch (error) {
      if (error instanceof CommandRefused) return failure(id, 'refused', error.message);
      if (error instanceof ProtocolError) return failure(id, error.code, error.message);
      this.deps.log.error({ err: error, op }, 'request failed');
      return unexpected(id, op, error);
    }
  }

  private answer(op: Op, request: unknown, progress?: (done: number) => void, by?: Caller): Promise<unknown> {
    return (this.ops[op] as (r: unknown, progress?: (done: number) => void, by?: Caller) => Promise<unknown>)(request, progress, by);
  }

  /** Every op, one function each: the compiler checks each answers as protocol.ts says. */
  private readonly ops: { [O in Op]: (r: RequestOf<O>, progress?: (done: number) => void, by?: Caller) => Promise<ResponseOf<O>> } = {
    ping: async () => ({ version: VERSION }),
    record: (r) => this.record(r),
    check: (r) => this.checkTool(r),
    submit: (r) => this.submit(r),
    // A job named that has no events is never silently a new one: the gate's reads answer
    // (scripts and agents ask about a job before its first event) and say so; the audit's fail.
    status: (r) => this.noted(r.job, () => this.status(r)),
    statusline: (r) => this.statusline(r),
    context: (r) => this.noted(r.job, () => this.context(r)),
    chain: (r) => this.noted(r.job, () => this.chain(r)),
    hook: (r) => this.hook(r),
    http: () => this.deps.enableHttp(),
    ui: () => {
      if (!this.deps.enableUi) throw new CommandRefused('this daemon serves no audit page');
      return this.deps.enableUi();
    },
    events: (r) => this.known(r.job, () => this.events(r)),
    jobs: async () => ({ jobs: [...this.deps.projection().jobs.values()].map(jobRow) }),
    replay: (r, progress) => this.known(r.job, () => this.replay(r, progress)),
    verify: (r, progress) => this.known(r.job, () => verifyLog(this.deps.store, this.deps.projection, progress, r.job)),
    trip: (r, _, by) => this.trip(r, by),
    pause: (r, _, by) => this.switchGate(r, (job, now) => ({ type: 'PauseGate', job, until: r.until, ...byOf({ by }), now })),
    resume: (r, _, by) => this.switchGate(r, (job, now) => ({ type: 'ResumeGate', job, ...byOf({ by }), now })),
    // For benchmarks and load tests: how many events, how many synced batches wrote them,
    // and the daemon's memory (process.memoryUsage, in bytes).
    stats: async () => ({ lastSeq: this.deps.store.lastSeq, syncs: this.deps.store.syncs, memory: process.memoryUsage() }),
    report: (r) => this.known(r.job, () => this.report(r)),
    config: (r, _, by) => this.configOp(r, by),
    daemon: async () => this.deps.lifecycle.info(),
    reload: () => this.deps.lifecycle.reload(),
    stop: async () => {
      this.deps.lifecycle.stop();
      return { pid: process.pid };
    },
  };

  private async hook(r: RequestOf<'hook'>): Promise<HookAnswer> {
    // Prompts kept while the daemon was silent are recorded before any hook is answered.
    if (this.spoolTaking !== undefined) await this.spoolTaking;
    const told = this.deps.hookAnswered;
    if (!told) return answerHook(ADAPTERS[r.agent], r.payload, this, this.deps.log, r.off === true, promptOf(r));
    const started = performance.now();
    const answer = await answerHook(ADAPTERS[r.agent], r.payload, this, this.deps.log, r.off === true, promptOf(r));
    told(r.agent, performance.now() - started, answer);
    return answer;
  }

  /** The spool being taken (SpoolTaker): hooks wait for it, so a trip it causes reaches the next tool call. */
  private spoolTaking: Promise<unknown> | undefined;

  /** Hooks wait until `taking` settles. */
  holdHooks(taking: Promise<unknown>): void {
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
    return recordSpooledPrompt(ADAPTERS[entry.agent], entry.payload, this, this.deps.log, { id: entry.id, at: entry.at });
  }

  /**
   * A project's configuration in force, each value's source and the changes waiting for
   * approval; with `allow`, the user's approval of the project's file (with `user`, of the
   * user's file) as it is now, recorded with its hash, and what it changed.
   */
  private async configOp(r: RequestOf<'config'>, by?: Caller): Promise<ResponseOf<'config'>> {
    const config = this.deps.config;
    if (r.allow && r.user) {
      // The user's own file: no job or project to find.
      const read = config.allow({}, r.hash, by);
      if (!read.ok) throw new CommandRefused(read.problems.join('\n'));
      await this.recordUserConfig();
      return read.allowed;
    }
    const { job, project } = this.where(r);
    if (!r.allow) {
      const { config: values, sources } = config.forProject(project);
      const pending = project !== undefined ? config.pending(project) : undefined;
      const userPending = config.userPending();
      await this.recordDecided();
      const file = project !== undefined ? projectConfigPath(project) : config.userFile;
      return { file, userFile: config.userFile, values, sources, problems: config.problems, ...(pending ? { pending } : {}), ...(userPending ? { userPending } : {}) };
    }
    if (project === undefined) throw new CommandRefused('a project configuration needs a folder: run this in the project, or give its folder');
    const read = config.allow({ job, project }, r.hash, by);
    if (!read.ok) throw new CommandRefused(read.problems.join('\n'));
    await this.recordDecided();
    await this.settled({ job, project });
    return read.allowed;
  }

  /** Runs `read` when `job` is not given or has events; else fails, saying so. */
  private async known<T>(job: string | undefined, read: () => Promise<T>): Promise<T> {
    // Its events may be on their way to the log still.
    if (job !== undefined) await this.deps.store.flushed();
    const unknown = this.unknownJob(job);
    if (unknown !== undefined) throw new ProtocolError('unknown_job', unknown);
    return read();
  }

  /** `read`'s answer, with a notice when `job` has no events. */
  private async noted<T extends object>(job: string | undefined, read: () => Promise<T>): Promise<T & { notice?: string }> {
    const answer = await read();
    const notice = this.unknownJob(job);
    return notice === undefined ? answer : { ...answer, notice };
  }

  /** What to say of a job named that has no events (the jobs of near names), if it has none. */
  private unknownJob(job: string | undefined): string | undefined {
    const jobs = this.deps.projection().jobs;
    if (job === undefined || jobs.has(job)) return undefined;
    const near = nearNames(job, jobs.keys());
    const hint = near.length > 0 ? `jobs with near names: ${near.join(', ')}` : jobs.size > 0 ? 'recap jobs lists every job' : 'no job has any event yet';
    return `job ${JSON.stringify(job)} has no events; ${hint}`;
  }

  /** Resolves the waiting `recap log -f` pages (on new events, or at shutdown). */
  private appendWaiters: (() => void)[] = [];
  /** Appends made durable so far: a page that raced one is read again rather than waiting. */
  private appends = 0;
  private closing = false;

  /** A page of events; with `wait`, a page that finds nothing new waits for new events up to that long. */
  private async events(r: RequestOf<'events'>): Promise<ResponseOf<'events'>> {
    const filter = defined({ job: r.job, types: r.types, since: r.since, until: r.until });
    const deadline = Date.now() + r.wait;
    let fromSeq = r.fromSeq;
    for (;;) {
      const appends = this.appends;
      const page = await eventsPage(this.deps.store, fromSeq, r.limit, filter, r.raw, r.wait > 0);
      const left = deadline - Date.now();
      if (page.events.length > 0 || page.next === null || left <= 0 || this.closing) return page;
      fromSeq = page.next;
      if (appends !== this.appends) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, left);
        function done() {
          clearTimeout(timer);
          resolve();
        }
        this.appendWaiters.push(done);
      });
    }
  }

  /** Lets the requests that wait for events answer now: the daemon is stopping. */
  close(): void {
    this.closing = true;
    this.wakeWaiters();
  }

  private wakeWaiters(): void {
    const waiters = this.appendWaiters;
    this.appendWaiters = [];
    for (const wake of waiters) wake();
  }

  private async report(r: RequestOf<'report'>) {
    await this.deps.store.flushed();
    return { jobs: await usageReport(this.deps.store, defined({ job: r.job, since: r.since })) };
  }

  async trip(r: RequestOf<'trip'>, by?: Caller) {
    const where = this.where(r);
    const ctx = await this.prepare(where.project);
    const now = this.now();
    if (r.cancel) {
      const cancelled = decide({ type: 'CancelTrip', job: where.job, ...byOf({ by }), now }, this.state(where.job), ctx.decide);
      await this.commit(where, ctx, cancelled.events);
      return { tripped: false, already: !cancelled.answer.cancelled, gate: gateStatus(this.state(where.job), ctx.decide.config, now) };
    }
    const decision = decide({ type: 'TripGate', job: where.job, ...defined({ note: r.note, by }), now }, this.state(where.job), ctx.decide);
    await this.commit(where, ctx, decision.events);
    return { ...decision.answer, gate: gateStatus(this.state(where.job), ctx.decide.config, now) };
  }

  /** `recap pause` and `recap resume`: the user's switch on a job's gate. */
  private async switchGate<C extends PauseGate | ResumeGate>(r: JobFields, command: (job: string, now: number) => C) {
    const where = this.where(r);
    const ctx = await this.prepare(where.project);
    const now = this.now();
    const decision = decide(command(where.job, now), this.state(where.job), ctx.decide);
    await this.commit(where, ctx, decision.events);
    return { ...decision.answer, gate: gateStatus(this.state(where.job), ctx.decide.config, now) };
  }

  /** The notice the user is owed about the job's gate (notices.ts), if any. */
  owedNotice(where: Where): Notice | undefined {
    const state = this.state(where.job);
    return owedNotice(state) ?? owedConfigNotice(state, this.deps.config.heldFiles(where.project));
  }

  /** The user was shown the notice in the agent's UI. */
  async noticeShown(where: Where, notice: Notice, who: { session?: string; agent: string }): Promise<void> {
    const { kind, seq: about, text } = notice;
    await this.append([{ type: 'NoticeShown', data: { job: where.job, about, kind, text, ...who, time: this.now() } }]);
  }

  /** A hook of a session recap is switched off for (RECAP_DISABLE=1); whether it is the session's first. */
  async switchedOff(where: Where, session: string | undefined, agent: string): Promise<boolean> {
    if (this.state(where.job).disabledSessions.includes(session ?? '')) return false;
    await this.append([{ type: 'RecapDisabled', data: { job: where.job, ...(session !== undefined ? { session } : {}), agent, time: this.now() } }]);
    return true;
  }

  /** The model's token use read from a transcript, each message once. */
  async usage(where: Where, session: string, entries: UsageEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const ctx = await this.prepare(where.project);
    const decision = decide({ type: 'RecordUsage', job: where.job, session, entries, now: this.now() }, this.state(where.job), ctx.decide);
    await this.commit(where, ctx, decision.events);
  }

  private async replay(r: RequestOf<'replay'>, progress?: (done: number) => void) {
    await this.deps.store.flushed();
    const at = await projectionAt(this.deps.store, defined({ seq: r.atSeq, time: r.atTime }), progress);
    const jobs = r.job !== undefined ? [at.view(r.job)] : [...at.jobs.values()];
    return { seq: at.lastSeq, jobs: jobs.map(pastStatus) };
  }

  /**
   * Records an interaction. `prompt`: the id recap-hook gave a prompt (and, for one taken
   * from its spool, when it came): a prompt of an id already recorded is not recorded again,
   * and one from the spool is recorded at the time it came (never later than now).
   */
  async record(
    r: RequestOf<'record'>,
    where = this.where(r),
    prompt?: { id: string; at?: number },
  ): Promise<{ seq: number | undefined; tokens: number; gate: GateStatus | undefined; already?: true }> {
    const ctx = await this.prepare(where.project);
    const now = this.now();
    // Checked after the last await: nothing else records between this look and the append.
    if (prompt !== undefined && this.deps.projection().promptRecorded(prompt.id)) {
      return { seq: undefined, tokens: 0, gate: gateStatus(this.state(where.job), ctx.decide.config), already: true };
    }
    const command = {
      type: 'RecordInteraction' as const,
      ...defined({ kind: r.kind, text: r.text, session: r.session, agent: r.agent, contextTokens: r.contextTokens, contextWindow: r.contextWindow, promptId: prompt?.id }),
      job: where.job,
      now: prompt?.at !== undefined ? Math.min(prompt.at, now) : now,
    };
    const decision = decide(command, this.state(where.job), ctx.decide);
    const stored = await this.commit(where, ctx, decision.events, () => gateStatus(this.state(where.job), ctx.decide.config));
    const seq = stored.events.find((e) => e.type === 'InteractionRecorded')?.seq;
    return { seq, tokens: decision.answer.tokens, gate: stored.after };
  }

  /** `recap check` and the HTTP endpoint: a tool call by the agent's own name for the tool. */
  checkTool(r: RequestOf<'check'>): ReturnType<Handler['check']> {
    const facts = AGENT_FACTS[r.from];
    // Field by field, not `{ ...rest, call }`: on Node 20's V8 every object made by a spread
    // and then given more properties survives two scavenges and is promoted, so a check left
    // ~0.6 kB in the old generation, for a full mark-compact to collect. The type makes a
    // field added to the request a compile error here rather than one silently dropped.
    const check: { [K in keyof CheckFields]-?: CheckFields[K] | undefined } & Pick<ToolCheck, 'call' | 'shellTool'> = {
      job: r.job,
      session: r.session,
      agent: r.agent,
      contextTokens: r.contextTokens,
      contextWindow: r.contextWindow,
      cwd: r.cwd,
      project: r.project,
      call: facts.toolCall(r.tool, r.input),
      shellTool: facts.shellTool,
    };
    return this.check(check);
  }

  async check(r: ToolCheck, where = this.where(r)) {
    const { shellTool, ...fields } = r;
    // Every tool call asks: once the token counter is loaded, its context is made at once.
    const ctx = this.preparedNow(where.project, shellTool) ?? (await this.prepareCheck(where.project, shellTool));
    const command = { type: 'CheckTool' as const, ...defined(fields), job: where.job, now: this.now() };
    const state = this.state(where.job);
    // On an open gate nothing is read: the common case costs no extra turn.
    if (!state.gate.tripped) return this.decideCheck(command, where, state, ctx, NO_TEXTS);
    return this.withTexts(where.job, denySeqs, (current, texts) => this.decideCheck(command, where, current, ctx, texts));
  }

  private async decideCheck(command: CheckTool, where: Where, state: JobState, ctx: Prepared, texts: SummaryTexts) {
    // Object.assign, not `{ ...ctx.decide, texts }` (see checkTool): every check on a tripped gate is here.
    const decision = decide(command, state, texts === NO_TEXTS ? ctx.decide : Object.assign({}, ctx.decide, { texts }));
    // A check that stores nothing (an open gate, a known session) waits for no write at all.
    const committed = this.commit(where, ctx, decision.events);
    if (committed !== NOTHING_TO_COMMIT) await committed;
    return decision.answer;
  }

  async submit(r: RequestOf<'submit'>) {
    const where = this.where(r);
    const ctx = await this.prepare(where.project);
    const command = { type: 'SubmitSummary' as const, job: where.job, text: r.text, ...defined({ topic: r.topic }), now: this.now() };
    // The newest summaries (or those a rollup rolls up) are what the new one is checked against.
    return this.withTexts(where.job, submitSeqs, async (state, texts) => {
      const decision = decide(command, state, { ...ctx.decide, texts });
      await this.commit(where, ctx, decision.events);
      return decision.answer;
    });
  }

  /** The windows of the sessions' models, as their status lines told them; the newest sessions kept. */
  private readonly windows = new Map<string, number>();

  /** The window of the session's model in tokens, if its status line told it. */
  windowOf(session: string | undefined): number | undefined {
    return session === undefined ? undefined : this.windows.get(session);
  }

  async statusline(r: RequestOf<'statusline'>) {
    const { contextWindow, ...rest } = r;
    if (r.session !== undefined && contextWindow !== undefined) {
      this.windows.delete(r.session);
      if (this.windows.size >= MAX_WINDOWS) this.windows.delete(this.windows.keys().next().value!);
      this.windows.set(r.session, contextWindow);
    }
    return this.status(rest);
  }

  async status(r: RequestOf<'status'>) {
    const where = this.where(r);
    const { config } = await this.settled(where);
    const problems = this.deps.config.problems;
    const pending = where.project !== undefined ? this.deps.config.pending(where.project) : undefined;
    const userPending = this.deps.config.userPending();
    return {
      ...gateStatus(this.state(where.job), config, this.now()),
      ...(problems.length > 0 ? { configProblems: problems } : {}),
      ...(pending ? { configPending: pending } : {}),
      ...(userPending ? { userConfigPending: userPending } : {}),
    };
  }

  /**
   * The job's memory, or the demand for a summary; `shellTool` names the asking agent's shell
   * tool, `limit` the most text it hands its model whole: a memory over it is rendered again
   * with a smaller budget, and whatever still does not fit is cut, saying where the rest is.
   */
  async context(r: RequestOf<'context'>, where = this.where(r), shellTool?: string, limit?: ContextLimit): Promise<{ text: string; tripped: boolean; summaries: number }> {
    const { config, count } = await this.settled(where);
    const recap = this.recapCommand;
    let budget = config.CONTEXT_BUDGET;
    for (let attempt = 1; ; attempt += 1) {
      const answer = await this.withTexts(
        where.job,
        (state) => contextSeqs(state, config, count, recap, budget),
        (state, texts) => ({ text: contextText(state, config, count, texts, recap, shellTool, limit, budget), tripped: state.gate.tripped, summaries: state.chain.length }),
      );
      if (limit === undefined || fits(answer.text, limit)) return answer;
      if (answer.tripped || attempt === CONTEXT_FIT_ATTEMPTS) return { ...answer, text: cutToFit(answer.text, limit, `${recap} context prints it whole`) };
      budget = fittedBudget(budget, lengthIn(answer.text, limit.unit), limit);
    }
  }

  /** Every accepted summary of the job, oldest first, whole: read from the log. */
  async chain(r: RequestOf<'chain'>) {
    const where = this.where(r);
    await this.settled(where);
    return { entries: await this.chainEntries(where.job) };
  }

  /** The job's accepted summaries as the log holds them, oldest first; with `last`, the newest `last` only. */
  async chainEntries(job: string, last?: number): Promise<ResponseOf<'chain'>['entries']> {
    const seqs = this.state(job).chain.map((e) => e.seq);
    const accepted = await this.deps.store.get(last === undefined ? seqs : seqs.slice(Math.max(seqs.length - last, 0)));
    return accepted.flatMap((e) => (e.type === 'SummaryAccepted' ? [{ ...e.data, seq: e.seq }] : []));
  }

  private state(job: string) {
    return this.deps.projection().view(job);
  }

  /**
   * Hands `use` the job's state with the summary texts a message about it will show
   * (`needed`), in the same turn: the state may move on while the texts are read, so they
   * are read again (a few times at most) until they match it.
   */
  private async withTexts<T>(job: string, needed: (state: JobState) => number[], use: (state: JobState, texts: SummaryTexts) => T | Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      const seqs = needed(this.state(job));
      // What the log is asked for must be in it: the writes in flight land first.
      if (seqs.length > 0) await this.deps.store.flushed();
      const texts = seqs.length > 0 ? await this.texts.load(seqs) : NO_TEXTS;
      const state = this.state(job);
      const missing = needed(state).filter((seq) => !texts.has(seq));
      if (missing.length === 0) return use(state, texts);
      if (attempt === TEXT_ATTEMPTS) throw new Error(`the texts of summaries ${missing.map((s) => `#${s}`).join(', ')} are not in the log`);
    }
  }

  /**
   * Appends the events, after a ConfigApplied when the job's configuration is not yet on
   * record. Nothing awaits before the append, so the events go on top of the state they
   * were decided on.
   */
  private commit<T>(where: Where, ctx: Prepared, events: RecapEvent[], after?: () => T): Promise<Committed<T>> {
    const bound = this.binding(where.bind);
    // What the config files' approvals decided (configApproval.ts) goes first: it is what the rest was decided under.
    const all = [...bound, ...this.deps.config.drain(), ...this.configEvents(where.job, ctx.effective), ...events];
    // Nothing to store: no append, no turn (an empty append made nothing durable either).
    if (all.length === 0 && after === undefined) return NOTHING_TO_COMMIT as Promise<Committed<T>>;
    const appended = this.append(all, after);
    const gateMoved = events.some((e) => e.type === 'GateTripped' || e.type === 'SummaryAccepted');
    // The common case (nothing for the verdict file) takes no extra turn: every check is here.
    if (!gateMoved && bound.length === 0) return appended;
    return appended.then(async (stored) => {
      // On disk before the answer: a daemon stopped right after a trip still denies through it.
      if (gateMoved) await this.noteGate(where.job, ctx.decide.config);
      else await this.deps.verdicts?.sessionBound(where.job);
      return stored;
    });
  }

  /** A new session's binding, unless a call of the same session has stored it meanwhile. */
  private binding(bind: SessionBound | undefined): RecapEvent[] {
    return bind === undefined || this.deps.projection().sessionJob(bind.data.session) !== undefined ? [] : [bind];
  }

  /** Tells the verdict file whether the job's gate is tripped now. */
  private noteGate(job: string, config: Config): Promise<void> {
    const verdicts = this.deps.verdicts;
    if (!verdicts) return Promise.resolve();
    const verdict = this.verdictFor(this.state(job), config);
    return verdict === undefined ? verdicts.clear(job) : verdicts.trip(job, verdict);
  }

  /** A tripped job as the verdict file keeps it: why, since when, and its exact command out. */
  private verdictFor(state: JobState, config: Pick<Config, 'REQUIRED_SECTIONS'>): TrippedVerdict | undefined {
    const { gate } = state;
    return gate.tripped ? { reason: gate.reason, since: gate.since, submit: summaryTemplate(config, this.recapCommand, gate.topic) } : undefined;
  }

  /**
   * Every tripped job, and the sessions bound to them, to the verdict file at start: the file
   * may be older than the log. Each job's sections are those last recorded for it.
   */
  seedVerdicts(): Promise<void> {
    const verdicts = this.deps.verdicts;
    if (!verdicts) return Promise.resolve();
    const projection = this.deps.projection();
    const user = this.deps.config.user().config;
    for (const state of projection.jobs.values()) {
      const recorded = projection.appliedConfig.get(state.job) as Pick<Config, 'REQUIRED_SECTIONS'> | undefined;
      const verdict = this.verdictFor(state, recorded ?? user);
      if (verdict !== undefined) void verdicts.trip(state.job, verdict);
    }
    return verdicts.bindSessions(this.deps.projection().sessions);
  }

  /**
   * Appends, folds the events in at once (with a snapshot of the projection in the same
   * batch every `snapshotEvery` events), and resolves when they are durable.
   */
  private async append<T>(events: RecapEvent[], after?: () => T): Promise<Committed<T>> {
    const projection = this.deps.projection();
    const every = this.deps.snapshotEvery;
    const { stored, durable } = this.deps.store.append(events, (numbered) => {
      const before = projection.lastSeq;
      for (const event of numbered) {
        projection.apply(event);
        if (event.type === 'SummaryAccepted') this.texts.remember(event.seq, event.data.text);
      }
      return Math.floor(before / every) !== Math.floor(projection.lastSeq / every) ? encodeSnapshot(projection) : undefined;
    });
    const snapshot = after?.();
    await durable;
    this.appends += 1;
    if (this.appendWaiters.length > 0) this.wakeWaiters();
    return { events: stored, after: snapshot };
  }

  /** Reads wait for writes already in flight, so they never show what is not yet durable. */
  private async settled(where: Where): Promise<DecideContext> {
    const ctx = await this.prepare(where.project);
    await this.commit(where, ctx, []);
    await this.deps.store.flushed();
    return ctx.decide;
  }

  /** The configuration for a project (the user's outside any), its token counter, its protected files. */
  private async prepare(project: string | undefined): Promise<Prepared> {
    const effective = this.deps.config.forProject(project);
    const count = await this.counter(effective.config);
    return {
      decide: { config: effective.config, count, recapPaths: this.deps.recapPaths, protected: this.protectedFor(project) },
      effective,
    };
  }

  /**
   * Checks' contexts, made once per configuration (Effective objects are replaced, not
   * changed, when a file changes), project and shell tool: a check then allocates none.
   */
  private readonly checkContexts = new WeakMap<Effective, Map<string, Prepared>>();

  /** A check's context, if its token counter is loaded (else undefined: use prepareCheck). */
  private preparedNow(project: string | undefined, shellTool: string | undefined): Prepared | undefined {
    const effective = this.deps.config.forProject(project);
    return this.checkContexts.get(effective)?.get(`${project ?? ''}\0${shellTool ?? ''}`);
  }

  private async prepareCheck(project: string | undefined, shellTool: string | undefined): Promise<Prepared> {
    const ctx = await this.prepare(project);
    if (shellTool !== undefined) ctx.decide = { ...ctx.decide, shellTool };
    // Kept only if the configuration did not change meanwhile.
    if (this.deps.config.forProject(project) !== ctx.effective) return ctx;
    let byKey = this.checkContexts.get(ctx.effective);
    if (byKey === undefined) this.checkContexts.set(ctx.effective, (byKey = new Map()));
    if (byKey.size >= 10_000) byKey.clear();
    byKey.set(`${project ?? ''}\0${shellTool ?? ''}`, ctx);
    return ctx;
  }

  /** recap's files as a project's calls see them, made once per project: every check asks. */
  private protectedFor(project: string | undefined): ProtectedState {
    let state = this.protectedStates.get(project);
    if (state === undefined) {
      const base = {
        paths: this.deps.protectedPaths,
        readOnly: this.deps.readOnlyPaths ?? [],
        shadowDirs: this.deps.shadowDirs ?? [],
        home: this.deps.home,
        ...(this.deps.recapProcesses && { recapProcesses: this.deps.recapProcesses }),
      };
      state = protectionFor(base, project);
      if (this.protectedStates.size >= 10_000) this.protectedStates.clear();
      this.protectedStates.set(project, state);
    }
    return state;
  }

  private configEvents(job: string, effective: Effective): RecapEvent[] {
    const applied = this.deps.projection().appliedConfig;
    if (sameValues(applied.get(job) ?? applied.get(USER_SCOPE), effective.config)) return [];
    // Without a project file of its own, a job follows the user-wide record.
    if (!applied.has(job) && sameValues(this.deps.config.user().config, effective.config)) return [];
    return [configApplied(effective, this.now(), job)];
  }

  /** Records the user-wide configuration when it differs from the last on record. */
  async recordUserConfig(): Promise<void> {
    const user = this.deps.config.user();
    const decided = this.deps.config.drain();
    const applied = sameValues(this.deps.projection().appliedConfig.get(USER_SCOPE), user.config) ? [] : [configApplied(user, this.now())];
    if (decided.length + applied.length > 0) await this.append([...decided, ...applied]);
  }

  /** Records what the config files' approvals decided (ConfigService.drain), if anything. */
  private async recordDecided(): Promise<void> {
    const decided = this.deps.config.drain();
    if (decided.length > 0) await this.append(decided);
  }

  /** The counter for a configuration's encoding, loaded once and shared. */
  counter(config: Config): Promise<TokenCounter> {
    const key = `${config.TOKEN_ENCODING}:${config.TOKEN_WORD_RATIO}`;
    let counter = this.counters.get(key);
    if (!counter) {
      counter = tokenCounter(config);
      this.counters.set(key, counter);
    }
    return counter;
  }
}

export type HookOps = Pick<
  Handler,
  'where' | 'record' | 'check' | 'context' | 'windowOf' | 'usage' | 'submit' | 'status' | 'chain' | 'recapCommand' | 'recapPaths' | 'owedNotice' | 'noticeShown' | 'switchedOff'
>;

/** A tool call to check, in recap's terms, with the fields the job is found by. */
type Committed<T> = { events: { type: string; seq: number }[]; after: T | undefined };
/** What commit returns when there is nothing to store: compared by identity. */
const NOTHING_TO_COMMIT: Promise<Committed<never>> = Promise.resolve({ events: [], after: undefined });

/** The mark recap-hook gave a prompt it sends, if it gave one. */
function promptOf(r: RequestOf<'hook'>): { id: string; at?: number } | undefined {
  if (r.promptId === undefined) return undefined;
  return r.promptAt !== undefined ? { id: r.promptId, at: r.promptAt } : { id: r.promptId };
}

/** A check request's fields that go into the check as they are. */
type CheckFields = Omit<RequestOf<'check'>, 'tool' | 'input' | 'from'>;
export type ToolCheck = CheckFields & { call: ToolCall; shellTool?: string };

/** A job as `recap jobs` lists it. */
function jobRow(state: JobState): JobRow {
  return {
    job: state.job,
    tripped: state.gate.tripped,
    ...(state.gate.tripped ? { reason: state.gate.reason } : {}),
    unsummarizedTokens: state.unsummarizedTokens,
    unsummarizedInteractions: state.pending.length,
    summaries: state.chain.length,
    lastActivity: state.lastActivity > 0 ? state.lastActivity : null,
    agents: state.agents,
  };
}

/** A job as it was at a past moment: `recap replay`'s answer. */
export function pastStatus(state: JobState): PastStatus {
  const last = state.chain.at(-1);
  return {
    job: state.job,
    tripped: state.gate.tripped,
    ...(state.gate.tripped ? { reason: state.gate.reason, cause: tripCause(state), since: new Date(state.gate.since).toISOString() } : {}),
    unsummarizedTokens: state.unsummarizedTokens,
    unsummarizedInteractions: state.pending.length,
    summaries: state.chain.length,
    denials: state.denials,
    rejections: state.rejections,
    ...(last ? { lastSummary: { seq: last.seq, time: new Date(last.time).toISOString(), hash: last.hash } } : {}),
  };
}

function configApplied(effective: Effective, now: number, job?: string): RecapEvent {
  return {
    type: 'ConfigApplied',
    data: { ...(job !== undefined ? { job } : {}), values: { ...effective.config }, sources: effective.sources, time: now },
  };
}

function failure(id: string | number | null, code: ProtocolError['code'], message: string): Response {
  return { id, error: { code, message } };
}

/**
 * An error no rule foresaw, said as what it is: only LevelDB's failures are the event log's;
 * a system call that failed (a port taken, a file refused) names the call; anything else is
 * a bug of recap's, logged with its stack.
 */
function unexpected(id: string | number, op: Op, error: unknown): Response {
  const message = error instanceof Error ? error.message : String(error);
  if (StorageFailed.is(error)) return failure(id, 'storage', `the event log could not be written (${message}); nothing was recorded, try again`);
  const { syscall, code } = error as NodeJS.ErrnoException;
  if (typeof syscall === 'string' && typeof code === 'string') {
    return failure(id, 'system', `the recap daemon could not ${syscall} for ${op} (${code}: ${message}); see its log (recap status --daemon names it)`);
  }
  return failure(
    id,
    'internal',
    `the recap daemon failed on ${op} with an internal error (${message}); this is recap's bug, not your input: it is logged with its stack in the daemon's log (recap status --daemon names it). Try again; if it keeps failing, recap restart`,
  );
}

/** Drops the optional fields a request left out, so commands carry no `undefined`. */
function defined<T extends Record<string, unknown>>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  // A plain loop: it runs on every check.
  const kept: Record<string, unknown> = {};
  for (const key in value) if (value[key] !== undefined) kept[key] = value[key];
  return kept as never;
}
