// What clients ask of a job, in the imperative. Time is part of the command.
import type { Time } from './events.js';

export type RecordInteraction = {
  type: 'RecordInteraction';
  job: string;
  kind: string;
  text: string;
  session?: string;
  agent?: string;
  now: Time;
};

export type CheckTool = {
  type: 'CheckTool';
  job: string;
  tool: string;
  input?: unknown;
  session?: string;
  /** The agent's working folder, for tool paths given relative to it. */
  cwd?: string;
  now: Time;
};

export type SubmitSummary = { type: 'SubmitSummary'; job: string; text: string; now: Time };

export type Command = RecordInteraction | CheckTool | SubmitSummary;

/** A command the domain refuses: a user's mistake, reported as such. */
export class CommandRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandRefused';
  }
}
