// The parts recap's events are made of (times, tallies, file references, token figures, whose
// a chain is): the events themselves are in events.ts, which re-exports these.

export const TRIP_REASONS = ['threshold', 'interactions', 'context', 'manual', 'rollup'] as const;
export type TripReason = (typeof TRIP_REASONS)[number];

/** Milliseconds since the epoch; the domain never reads the clock, it is handed the time. */
export type Time = number;

export type SectionTally = { heading: string; tokens: number };

/**
 * A file a summary names in its `## Files` section (summaryParts.ts): `read` hands the next
 * session the file's current contents (the lines start to end, else all of it), `ref` its
 * name and the reason. `sha256` and `tokens` are of what was read at submission (the range,
 * else the whole file); `path` is relative to the job's project.
 */
export type FileReference = { mode: 'read' | 'ref'; path: string; start?: number; end?: number; why: string; sha256: string; tokens: number };

/** Who wrote a summary's gist: the agent on its `Gist:` line, or recap from its text (GIST=recap). */
export type GistAuthor = 'agent' | 'recap';

/** Why a tool call was denied: the tripped gate, or recap's own files being off limits. */
export type DenialCause = 'gate' | 'protected';

/** Why a config file's content counts as approved (see configApproval.ts). */
export type ApprovedBy =
  /** The user's `recap config allow` (`--user` for the user's file). */
  | 'allow'
  /** It only made the gate stricter than the approved content, so it applied at once. */
  | 'stricter'
  /** The user's file, the first time recap ever read it (the user wrote it before installing). */
  | 'firstSeen';

/** What a notice to the user was about: the gate tripping, a summary accepted, or a config change held. */
export type NoticeKind = 'tripped' | 'accepted' | 'config';

export type TokenFigures = { input: number; output: number; cacheCreation: number; cacheRead: number };
export type ModelTokens = TokenFigures & { model: string };
/** A transcript's agent: `main`, or a subagent's id. */
export type AgentTokens = TokenFigures & { agent: string };

/** What a session did: its model's tokens in all, per model and per agent, its tool calls, denials and interactions. */
export type SessionFigures = TokenFigures & {
  byModel: ModelTokens[];
  byAgent: AgentTokens[];
  /** Tool calls recap's hooks judged (allowed or denied) while this daemon ran. */
  toolCalls: number;
  denials: number;
  interactions: number;
  countedTokens: number;
};

/**
 * The repository a project is, as every clone, worktree and moved copy of it shares: its root
 * commit and the project's folder inside it. `key` names it in recap's refs on the remote.
 */
export type RepositoryIdentity = {
  /** A hash of `root` and `sub`: the same on every machine. */
  key: string;
  /** The repository's root commit (the smallest, if its history has several). */
  root: string;
  /** The project's folder relative to the repository's top level ('' at the top). */
  sub: string;
  /** A name to show: the top-level folder's, or the project's own for a sub-project. */
  name: string;
};

/** Where a chain fetched by `recap sync` was written: a machine's random id, its host name, and its git author. */
export type ChainOrigin = { machine: string; host: string; author?: string };

/**
 * One tool call of a session's first ones, as the quality signals read it: its kind, the
 * files it names (absolute, taken from the folder it ran in), a search's glob, and a shell
 * command's program (its first word).
 */
export type SampledCall = { kind: string; paths: string[]; glob?: string; program?: string };
