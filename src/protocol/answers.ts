// The shapes of the daemon's answers that both sides of the socket read: the client
// prints them, the daemon builds them.
import type { SecretTally } from '../events/secrets.js';
import type { KeyChange } from '../events/configPolicy.js';
import type { Caller } from '../events/caller.js';

/** One event of the log as `recap log` and the audit page show it. */
export type EventLine = { seq: number; type: string; version: number; time: string | null; data: unknown };

/** The events of a page in JSON Lines (one event a line, as JSON.stringify writes it: no newline inside one). */
export function eventLinesOf(text: string): EventLine[] {
  const lines = text.trimEnd();
  return lines === '' ? [] : (JSON.parse(`[${lines.split('\n').join(',')}]`) as EventLine[]);
}

export type Problem = { seq?: number; job?: string; what: string };

/** A redaction as `recap verify` reports it: the event whose text went, by which EntryRedacted (`at`), when, why, by whom. */
export type Redaction = { seq: number; job: string; what: 'summary' | 'interaction'; at: number; time: number; reason?: string; by?: Caller };

/** `redactions` and `amendments`: the user's edits of memory the log holds (each checked). */
/** `imported`: how many imports of other machines' entries (`recap sync`) were checked. */
export type Verification = { ok: boolean; events: number; summaries: number; imported?: number; jobs: number; problems: Problem[]; redactions?: Redaction[]; amendments?: number };

/** A config file whose weakening values wait for the user's `recap config allow`. */
export type PendingConfig = {
  file: string;
  hash: string;
  /** The keys kept at the value in force, and the value the file asks for. */
  held: KeyChange[];
  /** No approval on record yet: a project file from before approvals, or a new one. */
  neverApproved: boolean;
  /** What the user runs to approve it. */
  command: string;
};

/** What `recap config allow` did: the file approved, its hash, and what it changed in force. */
export type Allowed = { file: string; hash: string; changes: KeyChange[]; already: boolean };

export type AgentRow = {
  agent: string;
  interactions: number;
  countedTokens: number;
  denials: number;
  input: number;
  output: number;
  cacheCreation: number;
  cacheRead: number;
};

/** `secrets`: how many of each kind recap replaced in the job's stored texts (none: absent). */
export type JobReport = { job: string; summaries: number; rejections: number; agents: AgentRow[]; secrets?: SecretTally[] };

export type { SessionReport } from '../events/sessionReport.js';

/** One summary as an index line: what search, timeline and the memory's index show of it before it is read whole (`show`). */
export type IndexLine = {
  job: string;
  seq: number;
  time: number;
  level: number;
  topic?: string;
  gist: string;
  tokens: number;
  /** The amendment that replaced its text (`recap amend`), by its sequence number. */
  supersededBy?: number;
  /** Its text was removed (`recap redact`): only its hash and this line's numbers remain. */
  redacted?: true;
  /** Another machine's entry (`recap sync`): how it is labelled, its git author or else its host. */
  from?: string;
};

/** A summary that matched a search: its index line, where it matched, and a piece of the matching text. */
export type SearchHit = IndexLine & {
  score: number;
  /** The section the best match is in: its heading, `Gist`, or `Files`. */
  section: string;
  /** Up to a few hundred characters of that section around the match. */
  snippet: string;
  /** The words of the snippet that matched the query, as they appear in it (for highlighting). */
  terms: string[];
};

/** A decision a summary recorded (`decision — reason` in its decisions section). */
export type DecisionEntry = {
  /** Its number in the job's decision log, 1 for the first ever recorded. */
  n: number;
  /** The summary it is in, and that summary's time and topic. */
  seq: number;
  time: number;
  topic?: string;
  section: string;
  decision: string;
  reason: string;
  /** The summary it is in was amended or redacted since. */
  supersededBy?: number;
  redacted?: true;
  /** The summary is another machine's (`recap sync`): its git author, else its host. */
  from?: string;
};

/** The decision log, newest first: whole up to 100 entries; past that, `index` has one line for each older one. */
export type DecisionLog = { total: number; decisions: DecisionEntry[]; index?: string[] };

/** A job at a past moment: `replay`'s answer, one per job. */
export type PastStatus = {
  job: string;
  tripped: boolean;
  reason?: string;
  cause?: string;
  since?: string;
  unsummarizedTokens: number;
  unsummarizedInteractions: number;
  summaries: number;
  denials: number;
  rejections: number;
  lastSummary?: { seq: number; time: string; hash: string | undefined };
};

/** A job as `recap jobs` lists it; times in milliseconds. */
export type JobRow = {
  job: string;
  tripped: boolean;
  reason?: string;
  unsummarizedTokens: number;
  unsummarizedInteractions: number;
  summaries: number;
  lastActivity: number | null;
  agents: string[];
  /** The repository the job is (JobIdentified), and the project folders known to be it. */
  repo?: { name: string; root: string; sub: string };
  folders?: string[];
};

/** Another machine's chain as a sync found it: whose, what came of it. */
export type SyncedChain = {
  machine: string;
  host: string;
  author?: string;
  imported: number;
  updated: number;
  /** Why nothing of it was imported: refused (naming the entry), or left out by SYNC=personal. */
  refused?: string;
  skipped?: string;
};

/** What `recap sync` did for a job (or, with `last`, what the last sync did; `never` if none ran since the daemon started). */
export type SyncReport = {
  job: string;
  /** SYNC in force for the job: off, personal or team. */
  mode: string;
  repo?: { key: string; name: string };
  remote?: string;
  machine?: string;
  /** This machine's chain: how many entries it holds, and whether the remote had it already. */
  pushed?: { entries: number; unchanged: boolean };
  fetched?: SyncedChain[];
  /** What stopped it, in words that say what to do (no remote, git failing, the remote not answering in time). */
  error?: string;
  never?: true;
  time: number;
  ms: number;
};
