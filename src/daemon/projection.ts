// The daemon's live view of the log: every job's state, folded from the events in order,
// and the configuration last recorded for each scope.
import type { StoredEvent } from '../events/events.js';
import { evolve, initialJobState, type JobState } from '../events/jobState.js';
import { foldIdentified, newRepositoryJobs } from '../events/repositoryJobs.js';
import { bindSession, type SessionBinding } from '../events/sessions.js';
import { SPOOL_MAX_ENTRIES } from '../common/promptSpool.js';

export type ApprovedConfig = { hash: string; values: Record<string, unknown>; seq: number };

/** A config file's content held since its last approval (ConfigHeld): what waits, and the event that said so. */
export type HeldConfig = { file: string; hash: string; held: { key: string; from: unknown; to: unknown }[]; seq: number };

/** The scope of the user-wide configuration in `appliedConfig`, and of the user's file in `approvedConfig`. */
export const USER_SCOPE = '';

/**
 * How many of the newest prompt ids are remembered: more than the spool holds
 * (SPOOL_MAX_ENTRIES), so a prompt both sent and kept, or recorded by a daemon that crashed
 * before it removed its file, is found however full the spool was.
 */
export const PROMPT_IDS_KEPT = 2 * SPOOL_MAX_ENTRIES;

/** Unseen jobs' initial states kept at most (any name can be asked about). */
const UNSEEN_KEPT = 1000;

export class Projection {
  readonly jobs = new Map<string, JobState>();
  /** The values of the newest ConfigApplied per scope (a job, or USER_SCOPE). */
  readonly appliedConfig = new Map<string, Record<string, unknown>>();
  /** Each agent session's job, as its first SessionBound said. */
  readonly sessions = new Map<string, SessionBinding>();
  /** Each project folder's job and repository, and each repository's job, as JobIdentified said. */
  readonly repositories = newRepositoryJobs();
  /** The approved content of each config file, by project folder (USER_SCOPE: the user's file). */
  readonly approvedConfig = new Map<string, ApprovedConfig>();
  /** Each config file's content held since its approval, by the same scopes. */
  readonly heldConfig = new Map<string, HeldConfig>();
  /** The ids of the newest prompts recorded with one, oldest first (at most PROMPT_IDS_KEPT). */
  readonly promptIds: string[] = [];
  private readonly promptIdSet = new Set<string>();
  /** Initial states of jobs viewed and not yet seen in an event (see view). */
  private readonly unseen = new Map<string, JobState>();
  lastSeq = 0;
  /**
   * The latest time of the events folded in (a clock may go back, so not always the last
   * event's): `recap replay --at` a time may start from a snapshot only if this is not after it.
   */
  latestTime = Number.NEGATIVE_INFINITY;

  /** The job a session is bound to, if it has been seen. */
  sessionJob(session: string): SessionBinding | undefined {
    return this.sessions.get(session);
  }

  /** Whether a prompt of this id is recorded (among the newest PROMPT_IDS_KEPT). */
  promptRecorded(id: string): boolean {
    return this.promptIdSet.has(id);
  }

  /** A prompt id recorded: remembered, the oldest forgotten past PROMPT_IDS_KEPT. */
  rememberPrompt(id: string): void {
    if (this.promptIdSet.has(id)) return;
    this.promptIds.push(id);
    this.promptIdSet.add(id);
    if (this.promptIds.length > PROMPT_IDS_KEPT) this.promptIdSet.delete(this.promptIds.shift()!);
  }

  /**
   * A job's state to read: a job never seen is in its initial state, made once while it
   * stays unseen (a check reads the state twice, and a job checked before any prompt is
   * recorded would otherwise cost two new states a check); it is not among `jobs`.
   */
  view(id: string): JobState {
    const state = this.jobs.get(id);
    if (state !== undefined) return state;
    let initial = this.unseen.get(id);
    if (initial === undefined) {
      initial = initialJobState(id);
      if (this.unseen.size >= UNSEEN_KEPT) this.unseen.clear();
      this.unseen.set(id, initial);
    }
    return initial;
  }

  private job(id: string): JobState {
    let state = this.jobs.get(id);
    if (!state) {
      // A fresh state, not the one views were given: what they hold stays as it was.
      this.unseen.delete(id);
      state = initialJobState(id);
      this.jobs.set(id, state);
    }
    return state;
  }

  apply(event: StoredEvent): void {
    this.lastSeq = event.seq;
    const time = (event.data as { time?: number }).time;
    if (time !== undefined && time > this.latestTime) this.latestTime = time;
    if (event.type === 'ConfigApplied') {
      this.appliedConfig.set(event.data.job ?? USER_SCOPE, event.data.values);
      return;
    }
    if (event.type === 'SessionBound') {
      bindSession(this.sessions, event);
      return;
    }
    if (event.type === 'JobIdentified') {
      foldIdentified(this.repositories, event);
      return;
    }
    if (event.type === 'ConfigApproved') {
      const { project, hash, values } = event.data;
      this.approvedConfig.set(project ?? USER_SCOPE, { hash, values, seq: event.seq });
      this.heldConfig.delete(project ?? USER_SCOPE);
      return;
    }
    if (event.type === 'ConfigHeld') {
      const { project, file, hash, held } = event.data;
      this.heldConfig.set(project ?? USER_SCOPE, { file, hash, held, seq: event.seq });
      return;
    }
    if (event.type === 'InteractionRecorded' && event.data.promptId !== undefined) this.rememberPrompt(event.data.promptId);
    evolve(this.job(event.data.job), event);
  }

  /** Folds in batches of events, in order (EventStore.readBatches). */
  async applyBatches(batches: AsyncIterable<StoredEvent[]>): Promise<void> {
    for await (const batch of batches) {
      for (const event of batch) this.apply(event);
    }
  }
}
