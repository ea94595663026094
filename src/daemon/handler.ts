// The one place requests are answered, for the socket and the HTTP endpoint alike: validate,
// ask the kernel who calls for the user's commands, run the op, and say what went wrong in
// words. Each op is a function of the table below, kept by area in ops/; every command runs
// through the command service (commandService.ts).
import type { SessionIndex } from './sessionIndex.js';
import { existsSync } from 'node:fs';
import type { Logger } from 'pino';
import { CommandRefused } from '../events/commands.js';
import { confirmQuestion, unknownCaller, userCommandRefusal, whenCallerUnknown, type Caller, type CallerVerdict } from '../events/caller.js';
import { Confirmations } from './confirmations.js';
import { platform } from '../platform/choose.js';
import type { AgentName } from '../agents/known.js';
import type { Config } from '../events/config.js';
import type { TokenCounter } from '../events/tokens.js';
import { parseRequest, ProtocolError, userCommand, type Op, type Response, type ResponseOf } from '../protocol/protocol.js';
import { CommandService, type ServiceDeps } from './commandService.js';
import { StorageFailed } from './eventStore.js';
import type { Projection } from './projection.js';
import { SearchIndex } from './searchIndex.js';
import type { SpooledOutcome } from './hookService.js';
import { auditOps } from './ops/audit.js';
import type { QualityIndex } from './qualityIndex.js';
import { configOps } from './ops/config.js';
import { daemonOps, type DaemonDeps } from './ops/daemon.js';
import { DecisionLogs } from './decisionLogs.js';
import { decisionOps } from './ops/decisions.js';
import { gateOps } from './ops/gate.js';
import { Hooks, type HookAnswered } from './ops/hook.js';
import { chainEntries, jobOps, Windows } from './ops/job.js';
import { memoryEditOps } from './ops/memoryEdits.js';
import { searchOps } from './ops/search.js';
import { syncOps } from './ops/sync.js';
import { SyncService } from './sync/syncService.js';
import { repositoryOf } from '../common/repository.js';
import type { OpTable } from './ops/table.js';

export { VERSION, type Lifecycle } from './ops/daemon.js';
export { pastStatus } from './ops/audit.js';

export type HandlerDeps = ServiceDeps &
  DaemonDeps & {
    /** The daemon's environment: where its data is, and what git runs with. */
    env: NodeJS.ProcessEnv;
    /** Told of every hook answered, with how long the daemon took: telemetry's latency figure. */
    hookAnswered?: HookAnswered;
    log: Logger;
  };

export class Handler {
  private readonly service: CommandService;
  private readonly hooks: Hooks;
  private readonly searchIndex: SearchIndex;
  private readonly syncs: SyncService;
  private readonly confirmations = new Confirmations();
  /** Every op, one function each: the compiler checks each answers as protocol.ts says. */
  private readonly ops: OpTable;

  constructor(private readonly deps: HandlerDeps) {
    const service = new CommandService(deps);
    const windows = new Windows();
    this.service = service;
    // One decision log per job, for the op and the hook's way out alike.
    const decisionLogs = new DecisionLogs(deps.store);
    const decisions = decisionOps(service, decisionLogs);
    this.searchIndex = new SearchIndex(deps.store, deps.projection, (error) => deps.log.error({ err: error }, 'the search index failed to follow the log; it is built again'));
    const reads = searchOps(service, this.searchIndex);
    this.syncs = new SyncService({
      service,
      env: deps.env,
      log: deps.log,
      // A folder the log knows is not asked of git again.
      identify: (project) => deps.projection().repositories.folders.get(project)?.repo ?? repositoryOf(project),
      jobOf: (key) => deps.projection().repositories.byKey.get(key),
      projectOf: (job) => projectOf(deps.projection(), job),
    });
    this.hooks = new Hooks(service, windows, { ...reads, ...decisions }, deps.log, deps.hookAnswered, this.syncs);
    this.ops = {
      ...daemonOps(deps),
      ...gateOps(service),
      ...jobOps(service, windows),
      ...decisions,
      ...auditOps(service),
      ...configOps(service),
      ...reads,
      ...memoryEditOps(service, decisionLogs),
      ...syncOps(service, this.syncs),
      hook: this.hooks.hook,
    };
  }

  /** Every session's report, which the audit page reads too. */
  get sessions(): SessionIndex {
    return this.service.sessions;
  }

  /**
   * Answers one request. `caller` tells who sent it, asked only for the user's commands
   * (it costs a look at the kernel's socket table): without it they are refused.
   */
  async handle(request: unknown, progress?: (done: number) => void, caller?: () => Promise<CallerVerdict>): Promise<Response> {
    return this.answer(request, progress, caller);
  }

  /**
   * handle, with an answer decided in this turn given as it is (a check on an open gate): no
   * async function, await or promise made for it, and so none of their garbage (the socket
   * server asks here; every check comes here).
   */
  answer(request: unknown, progress?: (done: number) => void, caller?: () => Promise<CallerVerdict>): Response | Promise<Response> {
    // A throw here is a rejected answer, as from an async function: never out into the socket server's turn.
    try {
      return this.decide(request, progress, caller);
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  private decide(request: unknown, progress?: (done: number) => void, caller?: () => Promise<CallerVerdict>): Response | Promise<Response> {
    const parsed = parseRequest(request);
    if (!parsed.ok) return failure(parsed.id, parsed.code, parsed.message);
    const { id, op } = parsed;
    const command = userCommand(op, parsed.request);
    if (command !== undefined) return this.userCommandAnswer(id, op, command, parsed.request, request, progress, caller);
    const run = this.ops[op] as (r: unknown, progress?: (done: number) => void, by?: Caller) => unknown;
    let result: unknown;
    try {
      result = run(parsed.request, progress);
    } catch (error) {
      return this.failed(id, op, error);
    }
    if (!(result instanceof Promise)) return { id, result } as Response;
    return result.then(
      (value: unknown) => ({ id, result: value }) as Response,
      (error: unknown) => this.failed(id, op, error),
    );
  }

  /** A user's command: run for the caller the kernel shows to be the user's (callerOf), else refused. */
  private async userCommandAnswer(
    id: string | number,
    op: Op,
    command: string,
    fields: unknown,
    request: unknown,
    progress?: (done: number) => void,
    caller?: () => Promise<CallerVerdict>,
  ): Promise<Response> {
    try {
      const verdict: CallerVerdict = caller ? await caller() : { user: false, why: "it did not come over recap's socket" };
      const judged = await this.callerOf(command, verdict, (request as { confirm?: unknown }).confirm);
      if ('code' in judged) {
        this.deps.log.warn({ op, why: verdict.user ? undefined : verdict.why, code: judged.code }, "a user command from a caller that is not shown to be the user's");
        return failure(id, judged.code, judged.message);
      }
      const { by } = judged;
      this.deps.log.info({ op, by }, 'a user command');
      const run = this.ops[op] as (r: unknown, progress?: (done: number) => void, by?: Caller) => Promise<unknown>;
      return { id, result: await run(fields, progress, by) } as Response;
    } catch (error) {
      return this.failed(id, op, error);
    }
  }

  /** A request whose op threw or rejected, said in words. */
  private failed(id: string | number, op: Op, error: unknown): Response {
    if (error instanceof CommandRefused) return failure(id, 'refused', error.message);
    if (error instanceof ProtocolError) return failure(id, error.code, error.message);
    this.deps.log.error({ err: error, op }, 'request failed');
    return unexpected(id, op, error);
  }

  /**
   * Who runs a user's command: the caller the kernel showed to be the user's; else, where the
   * system cannot tell (unknowable), run for a command that only makes recap stricter, and
   * confirmed at the user's terminal for any other; refused when it showed an agent's.
   */
  private async callerOf(command: string, verdict: CallerVerdict, confirm: unknown): Promise<{ by: Caller } | { code: 'refused' | 'unconfirmed'; message: string }> {
    if (verdict.user) return { by: verdict.caller };
    if (verdict.unknowable !== true) return { code: 'refused', message: userCommandRefusal(command, verdict.why) };
    if (whenCallerUnknown(command) === 'run') return { by: unknownCaller(verdict.why, false) };
    if (this.confirmations.take(command, confirm)) return { by: unknownCaller(verdict.why, true) };
    const word = this.confirmations.ask(command);
    // Shown out of an agent's sight where the system can; else in the answer, for the terminal.
    const shown = await platform().tellUser(`recap ${command}: type ${word} at your terminal to confirm it`);
    return { code: 'unconfirmed', message: confirmQuestion(command, verdict.why, shown ? undefined : word) };
  }

  /** Hooks wait until `taking` (the spool being taken) settles, so a trip it causes reaches the next tool call. */
  holdHooks(taking: Promise<unknown>): void {
    this.hooks.hold(taking);
  }

  /** A prompt taken from recap-hook's spool, recorded as its hook would have been: what became of it. */
  recordSpooled(entry: { agent: AgentName; id: string; at: number; payload: Record<string, unknown> }): Promise<SpooledOutcome> {
    return this.hooks.recordSpooled(entry);
  }

  /** Records the user-wide configuration when it differs from the last on record. */
  recordUserConfig(): Promise<void> {
    return this.service.recordUserConfig();
  }

  /** Every tripped job, and the sessions bound to them, to the verdict file at start: the file may be older than the log. */
  seedVerdicts(): Promise<void> {
    return this.service.verdicts.seed(this.deps.projection(), this.deps.config.user().config);
  }

  /** The counter for a configuration's encoding, loaded once and shared. */
  counter(config: Config): Promise<TokenCounter> {
    return this.service.prepared.counter(config);
  }

  /** The job's accepted summaries as the log holds them, oldest first; with `last`, the newest `last` only. */
  chainEntries(job: string, last?: number): Promise<ResponseOf<'chain'>['entries']> {
    return chainEntries(this.service, job, last);
  }

  /** The memory quality signals, which telemetry exports. */
  get quality(): QualityIndex {
    return this.service.quality;
  }

  /** Lets the requests that wait for events answer now: the daemon is stopping. */
  close(): void {
    this.service.close();
    this.service.quality.stop();
    this.searchIndex.stop();
    this.syncs.stop();
  }
}

/** A job's project folder that is still there: one the log identified as its repository's, else one a session bound to it said. */
function projectOf(projection: Projection, job: string): string | undefined {
  for (const [project, known] of projection.repositories.folders) if (known.job === job && existsSync(project)) return project;
  for (const binding of projection.sessions.values()) if (binding.job === job && existsSync(binding.project)) return binding.project;
  return undefined;
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
