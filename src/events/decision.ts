// What every decider is handed and what it gives back: the context of one decision (the
// configuration, the token counter, recap's paths and protected files) and its answer with
// the events it decided.
import type { Config } from './config.js';
import type { RecapEvent } from './events.js';
import type { ProtectedState } from './protection.js';
import type { SummaryTexts } from './jobState.js';
import type { TokenCounter } from './tokens.js';

export type DecideContext = {
  config: Config;
  count: TokenCounter;
  /** Absolute paths of the real recap executable, accepted as the command word. */
  recapPaths: ReadonlySet<string>;
  /** recap's own files, off limits to the agent. */
  protected: ProtectedState;
  /** The summary texts a denial shows (denySeqs), loaded by the caller; none if the gate is open. */
  texts?: SummaryTexts;
  /** The asking agent's name for its shell tool, which the way out is run in. */
  shellTool?: string;
};

export type Decision<Answer> = { answer: Answer; events: RecapEvent[] };
