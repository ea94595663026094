// A job's state as the events have made it: what is not yet summarized, the gate, the chain.
import { GENESIS_HASH } from './chain.js';
import type { StoredEvent, SummaryAccepted, Time, TripReason } from './events.js';

export type PendingInteraction = {
  seq: number;
  kind: string;
  text: string;
  tokens: number;
  counted: boolean;
  time: Time;
};

export type ChainEntry = SummaryAccepted['data'] & { seq: number };

export type Gate =
  | { tripped: false }
  | { tripped: true; reason: TripReason; unsummarizedTokens: number; limit: number; since: Time };

export type JobState = {
  job: string;
  /** Interactions recorded since the last accepted summary, oldest first. */
  pending: PendingInteraction[];
  /** Tokens of the pending interactions whose kind counts toward the threshold. */
  unsummarizedTokens: number;
  gate: Gate;
  chain: ChainEntry[];
  denials: number;
  rejections: number;
};

export function initialJobState(job: string): JobState {
  return { job, pending: [], unsummarizedTokens: 0, gate: { tripped: false }, chain: [], denials: 0, rejections: 0 };
}

export function headHash(state: JobState): string {
  return state.chain.at(-1)?.hash ?? GENESIS_HASH;
}

/**
 * Folds one of the job's events into its state. It updates `state` in place and returns
 * it: replaying a long log must not copy the pending list on every event.
 */
export function evolve(state: JobState, event: StoredEvent): JobState {
  switch (event.type) {
    case 'InteractionRecorded': {
      const { kind, text, tokens, counted, time } = event.data;
      state.pending.push({ seq: event.seq, kind, text, tokens, counted, time });
      if (counted) state.unsummarizedTokens += tokens;
      return state;
    }
    case 'GateTripped': {
      const { reason, unsummarizedTokens, limit, time } = event.data;
      state.gate = { tripped: true, reason, unsummarizedTokens, limit, since: time };
      return state;
    }
    case 'ToolDenied':
      state.denials += 1;
      return state;
    case 'SummaryRejected':
      state.rejections += 1;
      return state;
    case 'SummaryAccepted': {
      const covered = event.data.coversThrough;
      state.chain.push({ ...event.data, seq: event.seq });
      state.pending = state.pending.filter((p) => p.seq > covered);
      state.unsummarizedTokens = state.pending.reduce((sum, p) => (p.counted ? sum + p.tokens : sum), 0);
      state.gate = { tripped: false };
      return state;
    }
    case 'ConfigApplied':
      return state;
    default: {
      const exhaustive: never = event;
      return exhaustive;
    }
  }
}
