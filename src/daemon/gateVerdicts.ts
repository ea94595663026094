// The verdict file kept in step with the log: hooks that get no answer from the daemon read
// it, so a tripped job stays denied (with its exact way out) while the daemon is down.
import type { Config } from '../events/config.js';
import { summaryTemplate } from '../events/gateMessages.js';
import type { JobState } from '../events/jobState.js';
import type { TrippedVerdict, VerdictFile } from '../common/verdicts.js';
import type { Projection } from './projection.js';

export class GateVerdicts {
  constructor(
    private readonly file: VerdictFile | undefined,
    /** How the way out names recap: the launcher's path. */
    private readonly recapCommand: string,
    /** The project folders the log knows as a job's repository's (JobIdentified). */
    private readonly foldersOf: (job: string) => string[] = () => [],
  ) {}

  /** Tells the verdict file whether the job's gate is tripped now. */
  noteGate(state: JobState, config: Config): Promise<void> {
    if (!this.file) return Promise.resolve();
    const verdict = this.verdictFor(state, config);
    return verdict === undefined ? this.file.clear(state.job) : this.file.trip(state.job, verdict);
  }

  /** A session was bound to the job: a tripped job's sessions stay denied through the file. */
  sessionBound(job: string): Promise<void> {
    return this.file?.sessionBound(job) ?? Promise.resolve();
  }

  /**
   * Every tripped job, and the sessions bound to them, to the verdict file at start: the file
   * may be older than the log. Each job's sections are those last recorded for it.
   */
  seed(projection: Projection, user: Config): Promise<void> {
    if (!this.file) return Promise.resolve();
    for (const state of projection.jobs.values()) {
      const recorded = projection.appliedConfig.get(state.job) as Pick<Config, 'REQUIRED_SECTIONS'> | undefined;
      const verdict = this.verdictFor(state, recorded ?? user);
      if (verdict !== undefined) void this.file.trip(state.job, verdict);
    }
    return this.file.bindSessions(projection.sessions);
  }

  /** A tripped job as the verdict file keeps it: why, since when, and its exact command out. */
  private verdictFor(state: JobState, config: Pick<Config, 'REQUIRED_SECTIONS'>): TrippedVerdict | undefined {
    const { gate } = state;
    if (!gate.tripped) return undefined;
    const folders = this.foldersOf(state.job);
    return { reason: gate.reason, since: gate.since, submit: summaryTemplate(config, this.recapCommand, gate.topic), ...(folders.length > 0 ? { folders } : {}) };
  }
}
