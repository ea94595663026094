// A summary as one index line (search, timeline): what the projection keeps of it, no text,
// and what became of its text (entryText.ts): superseded by an amendment, or redacted.
import { entryText, originLabel } from '../events/entryText.js';
import type { ChainEntry } from '../events/jobState.js';
import type { IndexLine } from './answers.js';

export function indexLine(job: string, entry: ChainEntry): IndexLine {
  const { seq, time, level, topic, gist, tokens } = entry;
  const now = entryText(entry);
  const edited = now.state === 'amended' ? { supersededBy: now.seq } : now.state === 'redacted' ? { redacted: true as const } : {};
  const from = entry.origin !== undefined ? { from: originLabel(entry.origin) } : {};
  return { job, seq, time, level, ...(topic !== undefined ? { topic } : {}), gist, tokens, ...edited, ...from };
}
