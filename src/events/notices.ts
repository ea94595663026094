// The one short line the user sees in the agent's own UI when the gate trips, when a
// summary is accepted, and when a config change waits for their approval: owed from the
// event that said so until a hook shows it.
import type { RecordNoticeShown } from './commands.js';
import type { KeyChange } from './configPolicy.js';
import type { Decision } from './decision.js';
import type { NoticeKind } from './events.js';
import { tripCause } from './gateMessages.js';
import type { JobState } from './jobState.js';

export type Notice = { kind: NoticeKind; seq: number; text: string };

/** A manual trip's note is the user's own words, possibly long: the line stays short. */
const MAX_CAUSE = 200;

const shortened = (text: string) => (text.length > MAX_CAUSE ? `${text.slice(0, MAX_CAUSE)}...` : text);

/** The notice the user is owed about the job's gate, if any. */
export function owedNotice(state: JobState): Notice | undefined {
  const owed = state.noticeOwed;
  if (owed === undefined) return undefined;
  if (owed.kind === 'tripped') {
    if (!state.gate.tripped) return undefined;
    return { ...owed, text: `recap: the gate of job ${state.job} tripped (${shortened(tripCause(state))}); the agent must write a summary before other tools run` };
  }
  return { ...owed, text: `recap: a summary of job ${state.job} was accepted (${state.chain.length} in its chain); the gate is open` };
}

/** A config file whose change waits for approval, with the ConfigHeld that said so. */
export type HeldFile = { seq: number; file: string; held: KeyChange[]; command: string };

/** The notice owed about config changes held since the job's user was last told, if any. */
export function owedConfigNotice(state: JobState, files: HeldFile[]): Notice | undefined {
  const seen = state.configNoticeSeen ?? 0;
  if (!files.some((f) => f.seq > seen)) return undefined;
  const each = files.map((f) => {
    const keys = f.held.map((h) => `${h.key} ${JSON.stringify(h.from)} -> ${JSON.stringify(h.to)}`).join(', ');
    return `${f.file} would weaken the gate (${shortened(keys)}); the values in force stay until you run ${f.command} yourself`;
  });
  return { kind: 'config', seq: Math.max(...files.map((f) => f.seq)), text: `recap: ${each.join('; ')}` };
}

/** A hook showed the user the notice: it is owed no more, and a config notice marks the change as told. */
export function recordNoticeShown(command: RecordNoticeShown): Decision<{ recorded: true }> {
  const { job, about, kind, text, session, agent, now } = command;
  const who = { ...(session !== undefined ? { session } : {}), ...(agent !== undefined ? { agent } : {}) };
  return { answer: { recorded: true }, events: [{ type: 'NoticeShown', data: { job, about, kind, text, ...who, time: now } }] };
}
