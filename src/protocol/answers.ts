// The shapes of the daemon's answers that both sides of the socket read: the client
// prints them, the daemon builds them.
import type { KeyChange } from '../events/configPolicy.js';

/** One event of the log as `recap log` and the audit page show it. */
export type EventLine = { seq: number; type: string; version: number; time: string | null; data: unknown };

export type Problem = { seq?: number; job?: string; what: string };

export type Verification = { ok: boolean; events: number; summaries: number; jobs: number; problems: Problem[] };

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

export type JobReport = { job: string; summaries: number; rejections: number; agents: AgentRow[] };
