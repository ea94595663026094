// The one way a command is run, in the manner of Emmett's CommandHandler and EquinoxJS's
// transact: find what it is decided with, load the summary texts it shows (in two phases,
// see withTexts), decide on the job's state, and append the events in the same turn (with
// what reads found that the log does not hold yet: a session's binding, the config files'
// facts, the configuration in force), folding them into the projection with a snapshot now
// and then, and answer once they are durable. Reads go through `read`, which appends nothing.
import { SessionIndex } from './sessionIndex.js';
import { QualityIndex } from './qualityIndex.js';
import type { Logger } from 'pino';
import type { Command } from '../events/commands.js';
import type { Config } from '../events/config.js';
import { decide, decideConfig, type AnswerOf } from '../events/decide.js';
import type { DecideContext } from '../events/decision.js';
import type { RecapEvent, StoredEvent, Time } from '../events/events.js';
import { entryText } from '../events/entryText.js';
import { jobEntry, NO_TEXTS, type JobState, type SummaryTexts } from '../events/jobState.js';
import { recapWord } from '../events/whitelist.js';
import type { VerdictFile } from '../common/verdicts.js';
import type { ConfigService, Effective } from './configService.js';
import type { EventStore } from './eventStore.js';
import { GateVerdicts } from './gateVerdicts.js';
import type { JobFields, Where } from './jobResolver.js';
import { JobResolver } from './jobResolver.js';
import { Preparer, type Prepared, type Protected } from './prepare.js';
import { USER_SCOPE, type Projection } from './projection.js';
import { encodeSnapshot } from './snapshot.js';
import { SummaryTextCache } from './summaryTexts.js';

/** How many times withTexts reads summary texts for a state that keeps moving on. */
const TEXT_ATTEMPTS = 5;

export type ServiceDeps = Protected & {
  store: EventStore;
  projection: () => Projection;
  config: ConfigService;
  /** A projection snapshot is written every this many events. */
  snapshotEvery: number;
  log: Logger;
  now?: () => number;
  /** The file hooks fall back on when the daemon cannot answer: told of every trip and clear. */
  verdicts?: VerdictFile;
};

/** The events a commit stored, by type and number. */
export type Stored = { type: string; seq: number }[];

/** What a render is handed besides the answer: the job's state the events made, and what it was decided under. */
export type Done = { state: JobState; config: Config; now: Time; stored: Stored };

/** How a transaction runs, beyond its command. */
export type How<C extends Command, R> = {
  /** The answer as the op gives it, made in the turn the events are folded in. */
  render?: (answer: AnswerOf<C>, done: Done) => R;
  /** The summary texts the decision shows (see withTexts); none when left out. */
  texts?: (state: JobState) => number[];
  /** What it is decided with, when the op has it already (a check's, kept). */
  prepared?: Prepared;
  /** The command's events alone: no session binding or config facts go with them. */
  alone?: boolean;
  /** Events already in the log to write again in their place, in the same batch (a redaction's copies). */
  rewrites?: (events: RecapEvent[]) => StoredEvent[];
};

type Committed<T> = { events: Stored; after: T | undefined };
/** What commit returns when there is nothing to store: compared by identity. */
const NOTHING_TO_COMMIT: Promise<Committed<never>> = Promise.resolve({ events: [], after: undefined });

export class CommandService {
  readonly now: () => number;
  /** How messages to the agent name recap: the launcher's path, the only name the gate accepts. */
  readonly recapCommand: string;
  readonly prepared: Preparer;
  readonly verdicts: GateVerdicts;
  /** Every session's report, and the tool calls each made (sessionIndex.ts). */
  readonly sessions: SessionIndex;
  /** The memory quality signals, folded when first asked for. */
  readonly quality: QualityIndex;
  private readonly texts: SummaryTextCache;
  private readonly jobs: JobResolver;
  /** Resolves the waiting `recap log -f` pages (on new events, or at shutdown). */
  private appendWaiters: (() => void)[] = [];
  /** Appends made durable so far: a page that raced one is read again rather than waiting. */
  appends = 0;
  closing = false;

  constructor(readonly deps: ServiceDeps) {
    this.now = deps.now ?? Date.now;
    this.recapCommand = recapWord(deps.recapPaths);
    this.texts = new SummaryTextCache(deps.store);
    this.jobs = new JobResolver(deps.projection, deps.config);
    this.prepared = new Preparer(deps.config, deps);
    this.verdicts = new GateVerdicts(deps.verdicts, this.recapCommand, (job) => foldersOf(deps.projection(), job));
    this.sessions = new SessionIndex(deps.store);
    this.quality = new QualityIndex(deps.store);
  }

  /** The job a request is about (see JobResolver): the hook and every command ask here. */
  where(r: JobFields): Where {
    return this.jobs.resolve(r, this.now());
  }

  state(job: string): JobState {
    return this.deps.projection().view(job);
  }

  prepare(project: string | undefined): Promise<Prepared> {
    return this.prepared.prepare(project);
  }

  /**
   * Runs one command on the job `where` names: prepare, load the texts it shows, decide on
   * the state after the load, append its events in the same turn, render, and resolve once
   * they are durable (and the verdict file knows of a trip or a clear).
   */
  async transact<C extends Command, R = AnswerOf<C>>(where: Where, command: C | ((job: string, now: Time) => C), how: How<C, R> = {}): Promise<R> {
    const ctx = how.prepared ?? (await this.prepare(where.project));
    const made = typeof command === 'function' ? command(where.job, this.now()) : command;
    if (how.texts === undefined) return this.decideAndCommit(where, ctx, made, this.state(where.job), NO_TEXTS, how);
    return this.withTexts(where.job, how.texts, (state, texts) => this.decideAndCommit(where, ctx, made, state, texts, how));
  }

  /**
   * transact for a command decided on a prepared context with no texts read: in this turn,
   * its answer given as it is when nothing is stored (every check on an open gate is here).
   */
  decideNow<C extends Command>(where: Where, command: C, prepared: Prepared): AnswerOf<C> | Promise<AnswerOf<C>> {
    return this.decideAndCommit(where, prepared, command, this.state(where.job), NO_TEXTS, { prepared });
  }

  private decideAndCommit<C extends Command, R>(where: Where, ctx: Prepared, command: C, state: JobState, texts: SummaryTexts, how: How<C, R>): R | Promise<R> {
    // Object.assign, not `{ ...ctx.decide, texts }`: every check on a tripped gate is here (see checkTool).
    const { answer, events } = decide(command, state, texts === NO_TEXTS ? ctx.decide : Object.assign({}, ctx.decide, { texts }));
    const { render } = how;
    const done = render && ((stored: Stored): R => render(answer, { state: this.state(where.job), config: ctx.decide.config, now: command.now, stored }));
    const committed = this.commit(where, ctx, events, done, how.alone === true, how.rewrites?.(events));
    // Nothing stored (an open gate, a known session): no write is waited for, no turn taken.
    if (committed === NOTHING_TO_COMMIT) return done ? done([]) : (answer as R);
    return committed.then((c) => (done ? (c.after as R) : (answer as R)));
  }

  /**
   * Waits for the writes in flight, so a read never shows what is not yet durable, and gives
   * what the job is decided with. It appends nothing: what a read finds that the log does
   * not hold (a new session's binding, a config file's facts, the configuration in force)
   * goes with the next command that writes.
   */
  async read(where: Where): Promise<DecideContext> {
    const ctx = await this.prepare(where.project);
    await this.deps.store.flushed();
    return ctx.decide;
  }

  /** Records what a read found and the log does not hold yet (see read), then waits for the writes in flight. */
  async recordPending(where: Where): Promise<void> {
    const ctx = await this.prepare(where.project);
    await this.commit(where, ctx, []);
    await this.deps.store.flushed();
  }

  /**
   * Hands `use` the job's state with the summary texts a message about it will show
   * (`needed`), in the same turn: the state may move on while the texts are read, so they
   * are read again (a few times at most) until they match it.
   */
  async withTexts<T>(job: string, needed: (state: JobState) => number[], use: (state: JobState, texts: SummaryTexts) => T | Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      const seqs = needed(this.state(job));
      // What the log is asked for must be in it: the writes in flight land first.
      if (seqs.length > 0) await this.deps.store.flushed();
      const texts = seqs.length > 0 ? await this.texts.load(seqs, (seq) => this.textSource(job, seq)) : NO_TEXTS;
      const state = this.state(job);
      const missing = needed(state).filter((seq) => !texts.has(seq));
      if (missing.length === 0) return use(state, texts);
      if (attempt === TEXT_ATTEMPTS) throw new Error(`the texts of summaries ${missing.map((s) => `#${s}`).join(', ')} are not in the log`);
    }
  }

  /** Where summary #`seq` of the job has its text in force (entryText.ts). */
  private textSource(job: string, seq: number) {
    const entry = jobEntry(this.state(job), seq);
    return entry && entryText(entry);
  }

  /**
   * After a redaction: the log's snapshots replaced by one of the projection now, and the log
   * compacted, so the removed texts leave its files (EventStore.purge).
   */
  async purgeLog(): Promise<void> {
    await this.deps.store.flushed();
    const projection = this.deps.projection();
    await this.deps.store.purge(projection.lastSeq, encodeSnapshot(projection));
  }

  /**
   * Appends the events, after what reads found that the log does not hold yet (unless
   * `alone`). Nothing awaits before the append, so the events go on top of the state they
   * were decided on.
   */
  private commit<T>(where: Where, ctx: Prepared, events: RecapEvent[], after?: (stored: Stored) => T, alone = false, rewrites?: StoredEvent[]): Promise<Committed<T>> {
    const bound = alone ? NO_EVENTS : this.binding(where);
    // What the config files' approvals decided (configApproval.ts) goes first: it is what the rest was decided under.
    const before = alone ? NO_EVENTS : this.before(bound, this.deps.config.drain(), this.configEvents(where.job, ctx.effective));
    // The command's own array when nothing goes before it, not a copy: every check is here.
    const all = before.length === 0 ? events : [...before, ...events];
    // Nothing to store: no append, no turn (an empty append made nothing durable either).
    if (all.length === 0) return NOTHING_TO_COMMIT as Promise<Committed<T>>;
    const appended = this.append(all, after, rewrites);
    // A folder newly known as a tripped job's repository's is the verdict file's to know too.
    const gateMoved =
      events.some((e) => e.type === 'GateTripped' || e.type === 'SummaryAccepted') || (bound.some((e) => e.type === 'JobIdentified') && this.state(where.job).gate.tripped);
    // The common case (nothing for the verdict file) takes no extra turn: every check is here.
    if (!gateMoved && bound.length === 0) return appended;
    return appended.then(async (stored) => {
      // On disk before the answer: a daemon stopped right after a trip still denies through it.
      if (gateMoved) await this.verdicts.noteGate(this.state(where.job), ctx.decide.config);
      else await this.verdicts.sessionBound(where.job);
      return stored;
    });
  }

  /** The events that go before a command's: a binding, the config files' decisions, the configuration; NO_EVENTS when there are none. */
  private before(bound: RecapEvent[], decided: RecapEvent[], config: RecapEvent[]): RecapEvent[] {
    return bound.length + decided.length + config.length === 0 ? NO_EVENTS : [...bound, ...decided, ...config];
  }

  /**
   * A new project folder's job (JobIdentified) and a new session's binding, each unless a
   * call has stored it meanwhile: the folder's first, so the log names the job before a session binds to it.
   */
  private binding({ bind, identified }: Where): RecapEvent[] {
    const projection = this.deps.projection();
    const folder = identified === undefined || projection.repositories.folders.has(identified.data.project) ? NO_EVENTS : [identified];
    if (bind === undefined || projection.sessionJob(bind.data.session) !== undefined) return folder;
    return folder.length === 0 ? [bind] : [...folder, bind];
  }

  /** The job's configuration, when it is not the one on record for it. */
  private configEvents(job: string, effective: Effective): RecapEvent[] {
    const applied = this.deps.projection().appliedConfig;
    const recorded = applied.get(job);
    const userValues = recorded === undefined ? this.deps.config.user().config : undefined;
    const command = {
      type: 'ApplyConfig' as const,
      job,
      values: effective.config,
      sources: effective.sources,
      recorded,
      userRecorded: applied.get(USER_SCOPE),
      userValues,
      now: this.now(),
    };
    return decideConfig(command).events;
  }

  /** Records the user-wide configuration when it differs from the last on record, with what the config files' approvals decided. */
  async recordUserConfig(): Promise<void> {
    const user = this.deps.config.user();
    const decided = this.deps.config.drain();
    const userRecorded = this.deps.projection().appliedConfig.get(USER_SCOPE);
    const { events } = decideConfig({ type: 'ApplyConfig', values: user.config, sources: user.sources, userRecorded, now: this.now() });
    if (decided.length + events.length > 0) await this.append([...decided, ...events]);
  }

  /** Records what the config files' approvals decided (ConfigService.drain), if anything. */
  async recordDecided(): Promise<void> {
    const decided = this.deps.config.drain();
    if (decided.length > 0) await this.append(decided);
  }

  /**
   * Appends, folds the events in at once (with a snapshot of the projection in the same
   * batch every `snapshotEvery` events), and resolves when they are durable.
   */
  private async append<T>(events: RecapEvent[], after?: (stored: Stored) => T, rewrites?: StoredEvent[]): Promise<Committed<T>> {
    const projection = this.deps.projection();
    const every = this.deps.snapshotEvery;
    const { stored, durable } = this.deps.store.append(
      events,
      (numbered) => {
        const before = projection.lastSeq;
        for (const event of numbered) {
          projection.apply(event);
          if (event.type === 'SummaryAccepted') this.texts.remember(event.seq, event.data.text);
          if (event.type === 'SummaryAmended') this.texts.remember(event.data.entry, event.data.text);
          if (event.type === 'EntryRedacted') this.texts.forget(event.data.seq);
        }
        return Math.floor(before / every) !== Math.floor(projection.lastSeq / every) ? encodeSnapshot(projection) : undefined;
      },
      rewrites,
    );
    const rendered = after?.(stored);
    await durable;
    this.appends += 1;
    if (this.appendWaiters.length > 0) this.wakeWaiters();
    return { events: stored, after: rendered };
  }

  /** Resolves after the next append made durable, or at `close`, or after `ms`. */
  nextAppend(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.appendWaiters.push(done);
    });
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
}

const NO_EVENTS: RecapEvent[] = [];

/** The project folders the log identified as the job's repository's. */
function foldersOf(projection: Projection, job: string): string[] {
  const folders: string[] = [];
  for (const [project, known] of projection.repositories.folders) if (known.job === job) folders.push(project);
  return folders;
}
