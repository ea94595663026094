// The one short line the user sees in the agent's own UI when the gate trips and when a
// summary is accepted: owed from the event that moved the gate until a hook shows it.
import type { NoticeKind } from './events.js';
import { tripCause } from './gateMessages.js';
import type { JobState } from './jobState.js';

export type Notice = { kind: NoticeKind; seq: number; text: string };

/** A manual trip's note is the user's own words, possibly long: the line stays short. */
const MAX_CAUSE = 200;

/** The notice the user is owed about the job's gate, if any. */
export function owedNotice(state: JobState): Notice | undefined {
  const owed = state.noticeOwed;
  if (owed === undefined) return undefined;
  if (owed.kind === 'tripped') {
    if (!state.gate.tripped) return undefined;
    const cause = tripCause(state);
    const short = cause.length > MAX_CAUSE ? `${cause.slice(0, MAX_CAUSE)}...` : cause;
    return { ...owed, text: `recap: the gate of job ${state.job} tripped (${short}); the agent must write a summary before other tools run` };
  }
  return { ...owed, text: `recap: a summary of job ${state.job} was accepted (${state.chain.length} in its chain); the gate is open` };
}
