// Which of a job's summaries a timeline shows: those around one entry, or around a moment,
// else around the newest, in chain order (oldest first).
import type { ChainEntry } from './jobState.js';

export type TimelineAsk = { seq?: number | undefined; time?: number | undefined; before: number; after: number };

/** The entries around the one asked for; undefined when `seq` is none of the chain's. */
export function timelineWindow(chain: readonly ChainEntry[], ask: TimelineAsk): ChainEntry[] | undefined {
  if (chain.length === 0) return ask.seq === undefined ? [] : undefined;
  const at = ask.seq !== undefined ? chain.findIndex((e) => e.seq === ask.seq) : ask.time !== undefined ? around(chain, ask.time) : chain.length - 1;
  if (at < 0) return undefined;
  return chain.slice(Math.max(0, at - ask.before), at + ask.after + 1);
}

/** The newest entry written at or before `time`; the oldest when all are later. */
function around(chain: readonly ChainEntry[], time: number): number {
  return Math.max(
    0,
    chain.findLastIndex((e) => e.time <= time),
  );
}
