// What answering a hook needs of the application layer (hookService.ts, wayOutInHook.ts):
// the few ops a hook runs, as an interface, so neither depends on the handler.
import type { UsageEntry } from '../events/commands.js';
import type { ContextLimit } from '../events/contextFit.js';
import type { GateStatus } from '../events/gate.js';
import type { Notice } from '../events/notices.js';
import type { ToolCall } from '../events/toolCall.js';
import type { RequestOf, ResponseOf } from '../protocol/protocol.js';
import type { JobFields, Where } from './jobResolver.js';

/** recap-hook's mark of a prompt it sends (and keeps, if the daemon does not answer): its id, and when it came. */
export type PromptSent = { id: string; at?: number };

/** A check request's fields that go into the check as they are. */
type CheckFields = Omit<RequestOf<'check'>, 'tool' | 'input' | 'from'>;
/** A tool call to check, in recap's terms, with the fields the job is found by. */
export type ToolCheck = CheckFields & { call: ToolCall; shellTool?: string };

/** What `record` answers a hook: the interaction's number, its tokens, the gate; `already` for a prompt recorded before. */
/** `uncounted`: why the interaction does not count toward the threshold, when it does not (a kind not in COUNT_KINDS, a pause). */
export type Recorded = { seq: number | undefined; tokens: number; gate: GateStatus | undefined; already?: true; uncounted?: string };

/** The job's memory as a session start hands it over. */
export type Memory = { text: string; tripped: boolean; summaries: number };

/** A session's end as its agent told it. */
export type SessionEnd = { session: string; from: string; reason?: string };

export type HookOps = {
  /** How messages to the agent name recap: the launcher's path. */
  readonly recapCommand: string;
  /** The launcher's paths, the only names of recap a whitelisted command may use. */
  readonly recapPaths: ReadonlySet<string>;
  where(r: JobFields): Where;
  /** Whether recap acts on this job's hooks at all (SCOPE=marked: only in a marked project, or a job it already holds). */
  inScope(where: Where): boolean;
  record(r: RequestOf<'record'>, where?: Where, prompt?: PromptSent): Promise<Recorded>;
  check(r: ToolCheck, where?: Where): ResponseOf<'check'> | Promise<ResponseOf<'check'>>;
  submit(r: RequestOf<'submit'>): Promise<ResponseOf<'submit'>>;
  usage(where: Where, session: string, entries: UsageEntry[]): Promise<void>;
  /** Reads: they append nothing. */
  status(r: RequestOf<'status'>): Promise<ResponseOf<'statusline'>>;
  context(r: RequestOf<'context'>, where?: Where, shellTool?: string, limit?: ContextLimit): Promise<Memory>;
  chain(r: RequestOf<'chain'>): Promise<ResponseOf<'chain'>>;
  show(r: RequestOf<'show'>): Promise<ResponseOf<'show'>>;
  decisions(r: RequestOf<'decisions'>): Promise<ResponseOf<'decisions'>>;
  search(r: RequestOf<'search'>): Promise<ResponseOf<'search'>>;
  timeline(r: RequestOf<'timeline'>): Promise<ResponseOf<'timeline'>>;
  /** What the agent's own summary should keep when it compacts (compactSteer.ts); undefined with no summary to keep from. */
  compactSteer(where: Where): Promise<string | undefined>;
  /** A session starts: other machines' summaries fetched first, waited for a short while at most (SYNC_START_WAIT). */
  beforeMemory(where: Where): Promise<void>;
  /** Records what reads found and the log does not hold yet (a session's binding, config facts): a session's start is a write. */
  recordPending(where: Where): Promise<void>;
  /** The window of the session's model in tokens, if its status line told it. */
  windowOf(session: string | undefined): number | undefined;
  /** The notice the user is owed about the job's gate (notices.ts), if any. */
  owedNotice(where: Where): Notice | undefined;
  /** The user was shown the notice in the agent's UI. */
  noticeShown(where: Where, notice: Notice, who: { session?: string; agent: string }): Promise<void>;
  /** A tool call of the session was judged: counted for its report, and kept if it is one of its first (firstCallsKeeper.ts). Never awaited. */
  toolCalled(session: string, call: ToolCall, where: Where, cwd: string | undefined, agent: string): void;
  /** The agent said the session ended: its figures go on record (SessionEnded). */
  sessionEnded(where: Where, end: SessionEnd): Promise<void>;
  /** A hook of a session recap is switched off for (RECAP_DISABLE=1); whether it is the session's first. */
  switchedOff(where: Where, session: string | undefined, agent: string): Promise<boolean>;
};
