// The user's switches on a job's gate: cancel a trip, pause the gate for a while, resume it.
// All three are the user's (the CLI refuses them in an agent's shell and the protection
// rules deny them to the agent's tools); each is an event in the log. And the user's switch
// on recap itself (RECAP_DISABLE=1 in their shell), which a session's hooks report once.
import type { Caller } from './caller.js';
import type { CancelTrip, PauseGate, RecordRecapOff, ResumeGate } from './commands.js';
import { CommandRefused } from './commands.js';
import type { Decision } from './decision.js';
import { isPaused, type JobState } from './jobState.js';

export type CancelAnswer = { cancelled: boolean };
export type PauseAnswer = { until: number; extended: boolean };
export type ResumeAnswer = { resumed: boolean };

/** `recap trip --cancel`: the gate opens; what was unsummarized stays so, and counts on. */
export function cancelTrip(command: CancelTrip, state: JobState): Decision<CancelAnswer> {
  if (!state.gate.tripped) return { answer: { cancelled: false }, events: [] };
  const { job, now } = command;
  return { answer: { cancelled: true }, events: [{ type: 'TripCancelled', data: { job, reason: state.gate.reason, ...byOf(command), time: now } }] };
}

/** `recap pause 2h`: a later end replaces the earlier one; an end in the past is refused. */
export function pauseGate(command: PauseGate, state: JobState): Decision<PauseAnswer> {
  const { job, until, now } = command;
  if (until <= now) throw new CommandRefused('a pause must end in the future: give a duration such as 30m, 2h or 1d');
  return { answer: { until, extended: isPaused(state, now) }, events: [{ type: 'GatePaused', data: { job, until, ...byOf(command), time: now } }] };
}

/** `recap resume`: ends a pause that still holds; nothing to do otherwise. */
export function resumeGate(command: ResumeGate, state: JobState): Decision<ResumeAnswer> {
  if (!isPaused(state, command.now)) return { answer: { resumed: false }, events: [] };
  return { answer: { resumed: true }, events: [{ type: 'GateResumed', data: { job: command.job, ...byOf(command), time: command.now } }] };
}

/** A hook found recap switched off for the session: recorded once per session, which the first call's notice says. */
export function recordRecapOff(command: RecordRecapOff, state: JobState): Decision<{ first: boolean }> {
  const { job, session, agent, now } = command;
  if (state.disabledSessions.includes(session ?? '')) return { answer: { first: false }, events: [] };
  return { answer: { first: true }, events: [{ type: 'RecapDisabled', data: { job, ...(session !== undefined ? { session } : {}), agent, time: now } }] };
}

/** The caller a user's command was run by, for its event, when the daemon knows it. */
export const byOf = (command: { by?: Caller | undefined }): { by?: Caller } => (command.by !== undefined ? { by: command.by } : {});
