// A job's state as the events have made it: what is not yet summarized, the gate, the chain.
import type { Caller } from './caller.js';
import { GENESIS_HASH } from './chain.js';
import { deriveGist } from './gist.js';
import { REDACTED_GIST } from './entryText.js';
import type { ChainOrigin, GateTripped, NoticeKind, StoredEvent, SummaryAccepted, Time } from './events.js';

export type PendingInteraction = {
  seq: number;
  kind: string;
  text: string;
  tokens: number;
  counted: boolean;
  time: Time;
};

/**
 * An accepted summary as the state keeps it: its place in the chain, not its text. The
 * texts stay in the log and are read by sequence number when a message shows them, so the
 * state does not grow with every summary's words. Only the newest entry of each chain keeps
 * its hash (the next summary links to it); the log holds them all.
 */
export type ChainEntry = Pick<SummaryAccepted['data'], 'level' | 'tokens' | 'coversThrough' | 'topic' | 'rolls' | 'refs' | 'filesRoot' | 'time'> & {
  seq: number;
  /**
   * Its gist, as written or derived (gist.ts), of the text in force (entryText.ts): the
   * newest amendment's, or REDACTED_GIST: the memory's index shows it without reading the text.
   * `tokens` too are the text in force's.
   */
  gist: string;
  /** The SummaryAmended events that replaced its text (`recap amend`), oldest first. */
  amendments?: number[];
  /** Its text was removed (`recap redact`), by the EntryRedacted event `seq`. */
  redacted?: { seq: number; time: Time; reason?: string };
  hash?: string;
  /** Set on an entry of another machine's chain (`recap sync`): whose it is. */
  origin?: ChainOrigin;
  /** On an imported entry: how many amendments its machine had made. */
  originAmendments?: number;
  /**
   * Another machine's entry: its number in that machine's log (`originSeq`), the numbers its
   * rollup names there (`originRolls`, in place of `rolls`, which name this log's), and the
   * earlier SummaryImported events of it that the newest (`seq`) superseded, oldest first.
   */
  originSeq?: number;
  originRolls?: number[];
  imports?: number[];
};

/** Summary texts by sequence number: the ones a message is about to show. */
export type SummaryTexts = ReadonlyMap<number, string>;

export const NO_TEXTS: SummaryTexts = new Map();

/** A summary's text; the caller loads the texts a message needs before rendering it. */
export function summaryText(texts: SummaryTexts, seq: number): string {
  const text = texts.get(seq);
  if (text === undefined) throw new Error(`the text of summary #${seq} was not loaded`);
  return text;
}

export type Gate =
  | { tripped: false }
  /** As the GateTripped event said (its fields but the job and session), since its time. */
  | ({ tripped: true; since: Time } & Omit<GateTripped['data'], 'job' | 'session' | 'time'>);

export type JobState = {
  job: string;
  /** Interactions recorded since the last accepted summary, oldest first. */
  pending: PendingInteraction[];
  /** Tokens of the pending interactions whose kind counts toward the threshold. */
  unsummarizedTokens: number;
  gate: Gate;
  chain: ChainEntry[];
  /**
   * The entries of other machines' chains of the job's repository (SummaryImported), in the
   * order they were imported; each keeps its hash and origin. They never count toward the gate.
   */
  imported: ChainEntry[];
  /** Where each imported entry is in `imported`, by its machine and hash (`machine hash`). */
  importedAt: Record<string, number>;
  denials: number;
  rejections: number;
  /** Sessions whose context use has tripped the gate once already. */
  contextSessions: string[];
  /** Transcript messages whose usage is recorded (message id and request id). */
  usageSeen: Record<string, true>;
  /** The time of the job's newest event (0 before any): `recap jobs` sorts and shows it. */
  lastActivity: Time;
  /** The agents that have acted in the job, by name, sorted. */
  agents: string[];
  /** Until when the user paused the gate (`recap pause`); a time past is no pause. */
  pausedUntil?: Time;
  /** Who paused it, as the kernel told the daemon (older pauses do not say). */
  pausedBy?: Caller;
  /** The gate's last move that the user has not yet been shown a notice of: its event's sequence number. */
  noticeOwed?: { kind: NoticeKind; seq: number };
  /** The last notice the user was shown, and when. */
  lastNotice?: { kind: NoticeKind; time: Time };
  /** The newest ConfigHeld the job's user has been told of (its sequence number). */
  configNoticeSeen?: number;
  /** Sessions ('' for calls without one) whose hooks found recap switched off (RECAP_DISABLE=1) and said so. */
  disabledSessions: string[];
};

export function initialJobState(job: string): JobState {
  return {
    job,
    pending: [],
    unsummarizedTokens: 0,
    gate: { tripped: false },
    chain: [],
    imported: [],
    importedAt: {},
    denials: 0,
    rejections: 0,
    contextSessions: [],
    usageSeen: {},
    lastActivity: 0,
    agents: [],
    disabledSessions: [],
  };
}

/** Whether the user's pause holds at `now`. */
export function isPaused(state: JobState, now: Time): boolean {
  return state.pausedUntil !== undefined && now < state.pausedUntil;
}

/** The newest entry's hash on a topic's chain (the job's main chain without a topic). */
export function headHash(state: JobState, topic?: string): string {
  return state.chain.findLast((e) => e.topic === topic)?.hash ?? GENESIS_HASH;
}

/** A topic's entries at a level that no rollup has rolled up yet, oldest first. */
export function unrolled(state: JobState, level: number, topic?: string): ChainEntry[] {
  const rolled = new Set(state.chain.flatMap((e) => e.rolls ?? []));
  return state.chain.filter((e) => e.level === level && e.topic === topic && !rolled.has(e.seq));
}

/** Pending interactions of a kind that counts. */
export function countedInteractions(state: JobState): number {
  return state.pending.reduce((n, p) => (p.counted ? n + 1 : n), 0);
}

/**
 * Folds one of the job's events into its state. It updates `state` in place and returns
 * it: replaying a long log must not copy the pending list on every event.
 */
export function evolve(state: JobState, event: StoredEvent): JobState {
  if (event.data.time > state.lastActivity) state.lastActivity = event.data.time;
  const agent = (event.data as { agent?: string }).agent;
  if (agent !== undefined && !state.agents.includes(agent)) state.agents = [...state.agents, agent].sort();
  switch (event.type) {
    case 'InteractionRecorded': {
      const { kind, text, tokens, counted, time } = event.data;
      state.pending.push({ seq: event.seq, kind, text, tokens, counted, time });
      if (counted) state.unsummarizedTokens += tokens;
      return state;
    }
    case 'GateTripped': {
      const { job: _job, time, session, ...gate } = event.data;
      state.gate = { tripped: true, ...gate, since: time };
      if (gate.reason === 'context' && session !== undefined) state.contextSessions.push(session);
      state.noticeOwed = { kind: 'tripped', seq: event.seq };
      return state;
    }
    case 'ToolDenied':
      state.denials += 1;
      return state;
    case 'SummaryRejected':
      state.rejections += 1;
      return state;
    case 'SummaryAccepted':
      return accepted(state, event);
    case 'SummaryAmended':
      return amended(state, event);
    case 'EntryRedacted':
      return redacted(state, event);
    case 'TripCancelled':
      state.gate = { tripped: false };
      // The user cancelled it: no notice is owed for a trip they undid themselves.
      delete state.noticeOwed;
      return state;
    case 'GatePaused':
      state.pausedUntil = event.data.until;
      if (event.data.by !== undefined) state.pausedBy = event.data.by;
      else delete state.pausedBy;
      return state;
    case 'GateResumed':
      delete state.pausedUntil;
      delete state.pausedBy;
      return state;
    case 'NoticeShown':
      if (state.noticeOwed?.seq === event.data.about) delete state.noticeOwed;
      if (event.data.kind === 'config') state.configNoticeSeen = Math.max(state.configNoticeSeen ?? 0, event.data.about);
      state.lastNotice = { kind: event.data.kind, time: event.data.time };
      return state;
    case 'RecapDisabled': {
      const session = event.data.session ?? '';
      if (!state.disabledSessions.includes(session)) state.disabledSessions.push(session);
      return state;
    }
    case 'UsageRecorded':
      state.usageSeen[event.data.key] = true;
      return state;
    case 'SummaryImported':
      return imported(state, event);
    case 'JobIdentified':
    case 'ConfigApplied':
    case 'SessionBound':
    case 'SessionEnded':
    case 'FirstCallsRecorded':
    case 'ConfigApproved':
    case 'ConfigHeld':
      return state;
    default: {
      const exhaustive: never = event;
      return exhaustive;
    }
  }
}

/** An accepted summary joins its chain and covers the interactions before it; the gate opens. */
function accepted(state: JobState, event: StoredEvent & { type: 'SummaryAccepted' }): JobState {
  const { level, tokens, coversThrough: covered, topic, rolls, refs, filesRoot, hash, time } = event.data;
  const previous = state.chain.findLast((e) => e.topic === topic);
  // The hash is the entry's last field: deleting it keeps the object's fast shape.
  if (previous) delete previous.hash;
  const gist = event.data.redacted ? REDACTED_GIST : (event.data.gist ?? deriveGist(event.data.text));
  state.chain.push({
    seq: event.seq,
    level,
    tokens,
    coversThrough: covered,
    ...(topic !== undefined ? { topic } : {}),
    ...(rolls ? { rolls } : {}),
    ...(refs ? { refs } : {}),
    ...(filesRoot !== undefined ? { filesRoot } : {}),
    gist,
    time,
    hash,
  });
  state.pending = state.pending.filter((p) => p.seq > covered);
  state.unsummarizedTokens = state.pending.reduce((sum, p) => (p.counted ? sum + p.tokens : sum), 0);
  state.gate = { tripped: false };
  state.noticeOwed = { kind: 'accepted', seq: event.seq };
  return state;
}

/** An amendment: the entry's text in force is its, and so are its gist, size and files. */
function amended(state: JobState, event: StoredEvent & { type: 'SummaryAmended' }): JobState {
  const entry = state.chain.find((e) => e.seq === event.data.entry);
  if (entry === undefined) return state;
  const { tokens, gist, refs, filesRoot, redacted } = event.data;
  entry.amendments = [...(entry.amendments ?? []), event.seq];
  entry.tokens = tokens;
  entry.gist = redacted ? REDACTED_GIST : gist;
  if (refs && !redacted) entry.refs = refs;
  else delete entry.refs;
  if (filesRoot !== undefined && !redacted) entry.filesRoot = filesRoot;
  else delete entry.filesRoot;
  return state;
}

/**
 * A redaction: a summary keeps its place, hash and size, its gist and files go; an
 * interaction not yet summarized keeps its tokens, its text goes.
 */
function redacted(state: JobState, event: StoredEvent & { type: 'EntryRedacted' }): JobState {
  const { seq, reason, time } = event.data;
  const pending = state.pending.find((p) => p.seq === seq);
  if (pending) pending.text = '';
  const entry = state.chain.find((e) => e.seq === seq);
  if (entry === undefined) return state;
  entry.gist = REDACTED_GIST;
  delete entry.refs;
  delete entry.filesRoot;
  entry.redacted = { seq: event.seq, time, ...(reason !== undefined ? { reason } : {}) };
  return state;
}

/**
 * Another machine's summary joins the imported entries; an entry imported before (the same
 * origin and hash) is replaced in its place: its amendments or its redaction are newer.
 */
function imported(state: JobState, event: StoredEvent & { type: 'SummaryImported' }): JobState {
  const { origin, entry, amendments, originSeq } = event.data;
  const inForce = amendments?.at(-1);
  const redacted = entry.redacted === true || inForce?.redacted === true;
  const gist = redacted ? REDACTED_GIST : (inForce?.gist ?? entry.gist ?? deriveGist(entry.text));
  const refs = redacted ? undefined : inForce !== undefined ? inForce.refs : entry.refs;
  const next: ChainEntry = {
    seq: event.seq,
    level: entry.level,
    tokens: inForce?.tokens ?? entry.tokens,
    coversThrough: entry.coversThrough,
    ...(entry.topic !== undefined ? { topic: entry.topic } : {}),
    ...(refs ? { refs } : {}),
    gist,
    time: entry.time,
    hash: entry.hash,
    origin,
    originSeq,
    ...(entry.rolls ? { originRolls: entry.rolls } : {}),
    ...(redacted ? { redacted: { seq: event.seq, time: event.data.time } } : {}),
  };
  if (amendments?.length) next.originAmendments = amendments.length;
  // Found by its machine and hash in one look: a chain of thousands is imported without a scan per entry.
  const key = `${origin.machine} ${entry.hash}`;
  const at = Object.hasOwn(state.importedAt, key) ? state.importedAt[key]! : -1;
  if (at === -1) {
    state.importedAt[key] = state.imported.length;
    state.imported.push(next);
  } else {
    const earlier = state.imported[at]!;
    state.imported[at] = { ...next, imports: [...(earlier.imports ?? []), earlier.seq] };
  }
  return state;
}

/** The job's entry numbered `seq`: of its own chain, or another machine's (imported). */
export function jobEntry(state: JobState, seq: number): ChainEntry | undefined {
  return chainEntry(state.chain, seq) ?? state.imported.find((e) => e.seq === seq);
}

/** Every entry of the job, its own and other machines', oldest first by time (by number among equals). */
export function allEntries(state: JobState): ChainEntry[] {
  if (state.imported.length === 0) return state.chain;
  return [...state.chain, ...state.imported].sort((a, b) => a.time - b.time || a.seq - b.seq);
}

/** The chain's entry numbered `seq` (a chain is in sequence order). */
export function chainEntry(chain: readonly ChainEntry[], seq: number): ChainEntry | undefined {
  let lo = 0;
  let hi = chain.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (chain[mid]!.seq < seq) lo = mid + 1;
    else hi = mid;
  }
  return chain[lo]?.seq === seq ? chain[lo] : undefined;
}
