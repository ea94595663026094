// Every session's report (sessionReport.ts), folded from the whole log the first time one is
// asked for, then kept up to date from the appends; and the tool calls recap's hooks judged
// per session, which no event records, counted in memory while this daemon runs.
import type { StoredEvent } from '../events/events.js';
import { emptyReport, figuresOf, foldSession, sessionOf, type SessionReport } from '../events/sessionReport.js';
import type { EventStore } from './eventStore.js';
import { LogFold } from './logFold.js';

/** Sessions whose tool calls are counted at once; past this the oldest counter goes. */
const MAX_COUNTED_SESSIONS = 10_000;

export class SessionIndex {
  private readonly reports = new Map<string, SessionReport>();
  private readonly toolCalls = new Map<string, number>();
  private readonly log: LogFold;

  constructor(store: EventStore) {
    this.log = new LogFold(store, (event) => this.apply(event));
  }

  /** A tool call of the session was judged. */
  toolCalled(session: string): void {
    const calls = this.toolCalls.get(session) ?? 0;
    if (calls === 0 && this.toolCalls.size >= MAX_COUNTED_SESSIONS) this.toolCalls.delete(this.toolCalls.keys().next().value!);
    this.toolCalls.set(session, calls + 1);
  }

  /** The tool calls of the session this daemon judged. */
  toolCallsOf(session: string): number {
    return this.toolCalls.get(session) ?? 0;
  }

  /** The session's report from the log so far, its tool calls this daemon counted in. */
  async report(session: string): Promise<SessionReport | undefined> {
    await this.log.ready();
    const report = this.reports.get(session);
    if (report === undefined) return undefined;
    return this.shown(report);
  }

  /** The job's sessions, the newest (by last activity) first. */
  async sessionsOf(job: string): Promise<SessionReport[]> {
    await this.log.ready();
    return [...this.reports.values()]
      .filter((r) => r.job === job)
      .sort((a, b) => b.last - a.last || b.started - a.started)
      .map((r) => this.shown(r));
  }

  /** A report as answers show it: a copy, its rows in a stable order, its tool calls counted in. */
  private shown(report: SessionReport): SessionReport {
    return { ...report, ...figuresOf(report, this.toolCallsOf(report.session)) };
  }

  stop(): void {
    this.log.stop();
  }

  private apply(event: StoredEvent): void {
    const session = sessionOf(event);
    if (session === undefined) return;
    let report = this.reports.get(session);
    if (report === undefined) this.reports.set(session, (report = emptyReport(session, (event.data as { job: string }).job, event.data.time)));
    foldSession(report, event);
  }
}
