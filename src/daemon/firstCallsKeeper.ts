// Each session's first tool calls (firstCalls.ts), kept in memory as its hooks judge them and
// appended once: when the FIRST_CALLS-th call is judged, or when the session ends. The check
// path only pushes to an array: the append is not awaited by the hook that completes it.
import type { Logger } from 'pino';
import type { SampledCall } from '../events/eventParts.js';
import { FIRST_CALLS, sampledCall } from '../events/firstCalls.js';
import type { ToolCall } from '../events/toolCall.js';
import type { Where } from './jobResolver.js';

/** Sessions whose first calls are kept at once; past this the oldest is dropped unrecorded. */
const MAX_OPEN_SESSIONS = 10_000;

type Open = { where: Where; agent?: string; calls: SampledCall[] };

/** Appends a session's first calls (RecordFirstCalls). */
export type RecordCalls = (where: Where, session: string, agent: string | undefined, calls: SampledCall[]) => Promise<unknown>;

export class FirstCallsKeeper {
  private readonly open = new Map<string, Open>();
  /** Sessions already recorded by this daemon, newest last. */
  private readonly recorded = new Set<string>();

  constructor(
    private readonly record: RecordCalls,
    private readonly log: Logger,
  ) {}

  /** A tool call of the session was judged: kept if it is one of the first. */
  called(session: string, call: ToolCall, where: Where, cwd: string | undefined, agent: string | undefined): void {
    if (this.recorded.has(session)) return;
    let open = this.open.get(session);
    if (open === undefined) {
      if (this.open.size >= MAX_OPEN_SESSIONS) this.open.delete(this.open.keys().next().value!);
      this.open.set(session, (open = { where, calls: [], ...(agent !== undefined ? { agent } : {}) }));
    }
    open.calls.push(sampledCall(call, cwd));
    if (open.calls.length >= FIRST_CALLS) void this.flush(session);
  }

  /** The session's calls so far go on record (its end, or its FIRST_CALLS-th call); a failure is the daemon log's to tell. */
  async flush(session: string): Promise<void> {
    const open = this.open.get(session);
    if (open === undefined) return;
    this.open.delete(session);
    if (this.recorded.size >= MAX_OPEN_SESSIONS) this.recorded.delete(this.recorded.values().next().value!);
    this.recorded.add(session);
    try {
      await this.record(open.where, session, open.agent, open.calls);
    } catch (error) {
      this.log.warn({ err: error, session }, `the first tool calls of session ${session} could not be recorded; its quality signals lack them`);
    }
  }
}
