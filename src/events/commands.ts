// What clients ask of a job, in the imperative. Time is part of the command.
import type { Caller } from './caller.js';
import type { Time } from './events.js';
import type { ToolCall } from './toolCall.js';

export type RecordInteraction = {
  type: 'RecordInteraction';
  job: string;
  kind: string;
  text: string;
  session?: string;
  agent?: string;
  /** The agent's context use in tokens, when its transcript tells. */
  contextTokens?: number;
  /** The window of the agent's model in tokens, when it is known: used unless CONTEXT_WINDOW is set. */
  contextWindow?: number;
  /** The id recap-hook gave the prompt: one already recorded is not recorded again. */
  promptId?: string;
  now: Time;
};

export type CheckTool = {
  type: 'CheckTool';
  job: string;
  call: ToolCall;
  session?: string;
  agent?: string;
  /** The agent's working folder, for tool paths given relative to it. */
  cwd?: string;
  contextTokens?: number;
  contextWindow?: number;
  now: Time;
};

export type SubmitSummary = { type: 'SubmitSummary'; job: string; text: string; topic?: string; now: Time };

export type TripGate = { type: 'TripGate'; job: string; note?: string; by?: Caller; now: Time };

export type UsageEntry = { key: string; agent: string; model?: string; input: number; output: number; cacheCreation: number; cacheRead: number };

export type RecordUsage = { type: 'RecordUsage'; job: string; session: string; entries: UsageEntry[]; now: Time };

export type CancelTrip = { type: 'CancelTrip'; job: string; by?: Caller; now: Time };

export type PauseGate = { type: 'PauseGate'; job: string; until: Time; by?: Caller; now: Time };

export type ResumeGate = { type: 'ResumeGate'; job: string; by?: Caller; now: Time };

export type Command = RecordInteraction | CheckTool | SubmitSummary | TripGate | RecordUsage | CancelTrip | PauseGate | ResumeGate;

/** A command the domain refuses: a user's mistake, reported as such. */
export class CommandRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandRefused';
  }
}
