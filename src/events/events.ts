// The facts recap stores, in the past tense. A stored event never changes meaning;
// a new shape gets a new version and an upcaster when it is read.
import type { Caller } from './caller.js';
import type { SecretTally } from './secrets.js';
import type { TripReason, Time, SectionTally, FileReference, GistAuthor, DenialCause, ApprovedBy } from './eventParts.js';
import type { NoticeKind, ModelTokens, AgentTokens, RepositoryIdentity, ChainOrigin, SampledCall } from './eventParts.js';

export { TRIP_REASONS } from './eventParts.js';
export type * from './eventParts.js';

export type InteractionRecorded = {
  type: 'InteractionRecorded';
  data: {
    job: string;
    kind: string;
    text: string;
    tokens: number;
    /** Whether the kind counted toward the threshold under the configuration in force. */
    counted: boolean;
    /** Recorded while the user had paused the gate: not counted, whatever its kind. */
    paused?: true;
    session?: string;
    agent?: string;
    /** The id recap-hook gave a prompt it may also have kept in its spool (src/common/promptSpool.ts). */
    promptId?: string;
    /** Set when `recap redact` rewrote the stored event: its text is gone (''), its count stays. */
    redacted?: true;
    /** The secrets replaced in `text` by their kind's marker, and how many (version 2; absent: none); `tokens` counts the text as said. */
    secrets?: SecretTally[];
    time: Time;
  };
};

export type GateTripped = {
  type: 'GateTripped';
  data: {
    job: string;
    reason: TripReason;
    unsummarizedTokens: number;
    limit: number;
    /** What reached the limit when it is not tokens: interactions, context percent, summaries to roll up. */
    measured?: number;
    /** A rollup's level, and its topic when it has one. */
    level?: number;
    topic?: string;
    /** The session whose context use tripped it, or the user's words for a manual trip. */
    session?: string;
    note?: string;
    /** Who ran `recap trip` (a manual trip), as the kernel told the daemon. */
    by?: Caller;
    time: Time;
  };
};

export type ToolDenied = {
  type: 'ToolDenied';
  data: { job: string; tool: string; cause: DenialCause; session?: string; agent?: string; time: Time };
};

export type SummaryRejected = {
  type: 'SummaryRejected';
  data: { job: string; problems: string[]; tokens: number; time: Time };
};

export type SummaryAccepted = {
  type: 'SummaryAccepted';
  data: {
    job: string;
    level: number;
    sections: SectionTally[];
    text: string;
    tokens: number;
    /** Sequence number of the last interaction this summary covers. */
    coversThrough: number;
    /** The topic's own chain it belongs to; absent for the job's main chain. */
    topic?: string;
    /** A rollup's entries: the sequence numbers of the summaries it rolls up. */
    rolls?: number[];
    /** One line, objective and outcome (version 2; older summaries have none, and recap derives one). */
    gist?: string;
    gistBy?: GistAuthor;
    /** The files its `## Files` section names (version 2; older summaries name none), and the project folder their paths are in. */
    refs?: FileReference[];
    filesRoot?: string;
    /**
     * Set when `recap redact` rewrote the stored event: its text, sections, gist and files are
     * gone ('' and none), its hash and link stay; an EntryRedacted later in the log says when and why.
     */
    redacted?: true;
    /** On a redacted copy: how many entries of the job's decision log its text gave (their numbers stay taken). */
    decisions?: number;
    /** The secrets replaced in its text by their kind's marker, and how many (version 3; absent: none). */
    secrets?: SecretTally[];
    prevHash: string;
    hash: string;
    time: Time;
  };
};

/**
 * The user's corrected text for summary #`entry` (`recap amend N`): it supersedes the entry's
 * text (or an earlier amendment's) in memory, `show`, `chain` and the page, while the entry
 * stays in its chain, its hash untouched. `hash` covers `entryHash` (the amended entry's hash)
 * and the amendment's own fields (chain.ts), so `recap verify` checks both.
 */
export type SummaryAmended = {
  type: 'SummaryAmended';
  data: {
    job: string;
    entry: number;
    text: string;
    sections: SectionTally[];
    tokens: number;
    gist: string;
    gistBy: GistAuthor;
    refs?: FileReference[];
    filesRoot?: string;
    /** Who ran `recap amend`, as the kernel told the daemon. */
    by?: Caller;
    /** The secrets replaced in its text by their kind's marker, as in a summary (absent: none). */
    secrets?: SecretTally[];
    /** Set when `recap redact` of its entry rewrote it: its text and what came of it are gone. */
    redacted?: true;
    /** On a redacted copy: how many entries of the job's decision log its text gave (their numbers stay taken). */
    decisions?: number;
    entryHash: string;
    hash: string;
    time: Time;
  };
};

/**
 * The user removed the text of event #`seq` (`recap redact N`): a summary (with every
 * amendment of it, `amendments`) or an interaction. The log's copies were rewritten without
 * their text in the same write; this event holds no text of theirs. `hash`: the summary's
 * chain hash, which its redacted copy keeps and verify checks it against.
 */
export type EntryRedacted = {
  type: 'EntryRedacted';
  data: {
    job: string;
    seq: number;
    what: 'summary' | 'interaction';
    amendments?: number[];
    hash?: string;
    reason?: string;
    by?: Caller;
    time: Time;
  };
};

export type ConfigApplied = {
  type: 'ConfigApplied';
  data: {
    /** The job a project file applies to; absent for the user-wide configuration. */
    job?: string;
    values: Record<string, unknown>;
    /** Where each value came from: "default", "env", or "<file>:<line>". */
    sources: Record<string, string>;
    time: Time;
  };
};

/**
 * A config file's content counts as approved: the user's file (no `project`) or a project's
 * `.recap/config.conf`. `values` are what applies from it, so they stay in force while a
 * later edit of the file waits for its own approval; they are the file's own values unless
 * part of the file waits (its stricter part applied at once; a ConfigHeld names the rest).
 * Version 1 was a project's file approved by the user alone.
 */
export type ConfigApproved = {
  type: 'ConfigApproved';
  data: {
    /** The job the approving command ran for (the project's files apply to all its jobs). */
    job?: string;
    /** The project folder whose `.recap/config.conf` was approved; absent for the user's file. */
    project?: string;
    file: string;
    /** sha256 of the file's bytes, hex; the hash of no bytes for a file that is not there. */
    hash: string;
    values: Record<string, unknown>;
    by: ApprovedBy;
    /** Who ran `recap config allow`, as the kernel told the daemon (by: 'allow'). */
    caller?: Caller;
    time: Time;
  };
};

/**
 * recap read a config file (no `project`: the user's) whose content weakens the gate
 * against the approved one: the `held` keys keep the values in force until the user's
 * `recap config allow`. Recorded once per content, so the user is told once.
 */
export type ConfigHeld = {
  type: 'ConfigHeld';
  data: {
    project?: string;
    file: string;
    hash: string;
    held: { key: string; from: unknown; to: unknown }[];
    time: Time;
  };
};

/** The model's token use for one message of the agent's transcript. */
export type UsageRecorded = {
  type: 'UsageRecorded';
  data: {
    job: string;
    session: string;
    agent: string;
    /** The message id and request id: each message is counted once. */
    key: string;
    model?: string;
    input: number;
    output: number;
    cacheCreation: number;
    cacheRead: number;
    time: Time;
  };
};

/**
 * An agent session's job, fixed when the session was first seen: wherever the session goes
 * afterwards (another folder, a new `.git`), its calls are checked against this job.
 */
export type SessionBound = {
  type: 'SessionBound';
  data: {
    session: string;
    job: string;
    /** The project folder the job's configuration comes from. */
    project: string;
    /** The folder the session was first seen in. */
    cwd: string;
    time: Time;
  };
};

/** The user cancelled a trip (`recap trip --cancel`): the gate is open, the interactions stay unsummarized. */
export type TripCancelled = { type: 'TripCancelled'; data: { job: string; reason: TripReason; by?: Caller; time: Time } };

/**
 * The user paused the job's gate (`recap pause 2h`): until `until` nothing it records counts
 * and nothing is denied by the gate (recap's own files stay off limits).
 */
export type GatePaused = { type: 'GatePaused'; data: { job: string; until: Time; by?: Caller; time: Time } };

/** The user resumed a paused gate before its time (`recap resume`). */
export type GateResumed = { type: 'GateResumed'; data: { job: string; by?: Caller; time: Time } };

/** The user was shown one line in the agent's own UI about the event `about` (its sequence number). */
export type NoticeShown = {
  type: 'NoticeShown';
  data: { job: string; about: number; kind: NoticeKind; text: string; session?: string; agent?: string; time: Time };
};

/** A session's hooks found RECAP_DISABLE=1 in the user's own shell: recap let everything through, uncounted. */
export type RecapDisabled = { type: 'RecapDisabled'; data: { job: string; session?: string; agent: string; time: Time } };

/**
 * An agent said a session ended (its SessionEnd hook): the session's figures to that time,
 * its transcript read one last time first. `from` is the agent (claude, codex, ...), `started`
 * the session's first event.
 */
export type SessionEnded = {
  type: 'SessionEnded';
  data: {
    job: string;
    session: string;
    from: string;
    reason?: string;
    started: Time;
    input: number;
    output: number;
    cacheCreation: number;
    cacheRead: number;
    byModel: ModelTokens[];
    byAgent: AgentTokens[];
    toolCalls: number;
    denials: number;
    interactions: number;
    countedTokens: number;
    time: Time;
  };
};

/**
 * A project folder's job is its repository's (RepositoryIdentity): the first time recap sees a
 * folder of a repository it records which job it is. `joined`: the job was the folder's own
 * before (named after its path) and is the repository's from now on, its history kept.
 */
export type JobIdentified = {
  type: 'JobIdentified';
  data: { job: string; project: string; repo: RepositoryIdentity; joined?: true; time: Time };
};

/**
 * A summary of another machine's chain of the same repository, fetched by `recap sync` and
 * verified (its hash, its link to the entry before it on that chain, the amendments' hashes).
 * It never counts toward this machine's gate. A later import of the same entry (the same
 * origin and hash) supersedes an earlier one: new amendments, or its redaction on its machine.
 */
export type SummaryImported = {
  type: 'SummaryImported';
  data: {
    job: string;
    origin: ChainOrigin;
    /** Its place in its machine's chain, from 0. */
    index: number;
    /** Its sequence number in its machine's log: the number that machine's rollups name in `rolls`. */
    originSeq: number;
    /** The entry as its machine accepted it (text '' and `redacted` if it was redacted there). */
    entry: SummaryAccepted['data'];
    /** Its machine's amendments of it, oldest first. */
    amendments?: SummaryAmended['data'][];
    time: Time;
  };
};

/** A session's first tool calls (FIRST_CALLS at most), recorded once: what it looked at first (firstCalls.ts, qualitySignals.ts). */
export type FirstCallsRecorded = { type: 'FirstCallsRecorded'; data: { job: string; session: string; agent?: string; calls: SampledCall[]; time: Time } };

export type RecapEvent =
  | InteractionRecorded
  | UsageRecorded
  | GateTripped
  | ToolDenied
  | SummaryRejected
  | SummaryAccepted
  | ConfigApplied
  | SessionBound
  | ConfigApproved
  | ConfigHeld
  | TripCancelled
  | GatePaused
  | GateResumed
  | NoticeShown
  | RecapDisabled
  | SummaryAmended
  | EntryRedacted
  | SessionEnded
  | JobIdentified
  | SummaryImported
  | FirstCallsRecorded;

export type EventType = RecapEvent['type'];

export const EVENT_TYPES: readonly EventType[] = [
  'InteractionRecorded',
  'GateTripped',
  'ToolDenied',
  'SummaryRejected',
  'SummaryAccepted',
  'ConfigApplied',
  'UsageRecorded',
  'SessionBound',
  'ConfigApproved',
  'ConfigHeld',
  'TripCancelled',
  'GatePaused',
  'GateResumed',
  'NoticeShown',
  'RecapDisabled',
  'SummaryAmended',
  'EntryRedacted',
  'SessionEnded',
  'JobIdentified',
  'SummaryImported',
  'FirstCallsRecorded',
];

/** The schema version written for each event type today. */
export const CURRENT_VERSION: Record<EventType, number> = {
  InteractionRecorded: 2,
  GateTripped: 1,
  ToolDenied: 2,
  SummaryRejected: 1,
  SummaryAccepted: 3,
  ConfigApplied: 1,
  UsageRecorded: 1,
  SessionBound: 1,
  ConfigApproved: 2,
  ConfigHeld: 1,
  TripCancelled: 1,
  GatePaused: 1,
  GateResumed: 1,
  NoticeShown: 1,
  RecapDisabled: 1,
  SummaryAmended: 1,
  EntryRedacted: 1,
  SessionEnded: 1,
  JobIdentified: 1,
  SummaryImported: 1,
  FirstCallsRecorded: 1,
};

/** An event as it sits in the log: its global sequence number and schema version. */
export type StoredEvent = RecapEvent & { seq: number; version: number };
