// What trips a gate that is open: unsummarized tokens at the threshold, and, when they are
// configured, unsummarized interactions, the agent's context use (once per session), and
// a user's hand. Rollups trip it when a summary is accepted (summaries.ts).
import type { Config } from './config.js';
import type { GateTripped } from './events.js';
import { countedInteractions, isPaused, type JobState } from './jobState.js';

/** The window assumed when neither the user nor the agent says one. */
const DEFAULT_CONTEXT_WINDOW = 200_000;

/** What a hook saw of the agent with this command: its context use and, when known, its model's window. */
export type Observation = { contextTokens?: number | undefined; contextWindow?: number | undefined; session?: string | undefined };

/** The trip an open gate takes now, if any; `added` is an interaction being recorded with it. */
export function tripFor(state: JobState, config: Config, now: number, seen: Observation, added?: { tokens: number; counted: boolean }): GateTripped | undefined {
  if (state.gate.tripped || isPaused(state, now)) return undefined;
  // Nothing to summarize is never a trip: no summary could be written to leave it.
  if (state.pending.length === 0 && added === undefined) return undefined;
  const job = state.job;
  const tokens = state.unsummarizedTokens + (added?.counted ? added.tokens : 0);
  const trip = (data: Omit<GateTripped['data'], 'job' | 'unsummarizedTokens' | 'time'>): GateTripped => ({
    type: 'GateTripped',
    data: { job, unsummarizedTokens: tokens, ...data, time: now },
  });
  if (tokens >= config.TOKEN_THRESHOLD) return trip({ reason: 'threshold', limit: config.TOKEN_THRESHOLD });

  const interactions = countedInteractions(state) + (added?.counted ? 1 : 0);
  if (config.TRIGGER_MAX_INTERACTIONS > 0 && interactions >= config.TRIGGER_MAX_INTERACTIONS) {
    return trip({ reason: 'interactions', limit: config.TRIGGER_MAX_INTERACTIONS, measured: interactions });
  }

  const { contextTokens, session } = seen;
  if (config.TRIGGER_CONTEXT_PERCENT > 0 && contextTokens !== undefined && session !== undefined && !state.contextSessions.includes(session)) {
    // The user's CONTEXT_WINDOW, else the window of the model in use (1,000,000 tokens for
    // some, 200,000 for others) as the agent tells it.
    const window = config.CONTEXT_WINDOW > 0 ? config.CONTEXT_WINDOW : (seen.contextWindow ?? DEFAULT_CONTEXT_WINDOW);
    // Compared in integers: 570 / 1000 * 100 is 56.99999999999999 in floating point.
    if (contextTokens * 100 >= config.TRIGGER_CONTEXT_PERCENT * window) {
      const percent = Math.floor((contextTokens * 100) / window);
      return trip({ reason: 'context', limit: config.TRIGGER_CONTEXT_PERCENT, measured: percent, session });
    }
  }
  return undefined;
}
