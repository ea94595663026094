// A summary as one index line (search, timeline): what the projection keeps of it, no text.
import type { ChainEntry } from '../events/jobState.js';
import type { IndexLine } from './answers.js';

export function indexLine(job: string, entry: ChainEntry): IndexLine {
  const { seq, time, level, topic, gist, tokens } = entry;
  return { job, seq, time, level, ...(topic !== undefined ? { topic } : {}), gist, tokens };
}
