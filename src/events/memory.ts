// The job's memory as handed to the agent: never over CONTEXT_BUDGET tokens however long
// the chain is. It keeps the highest-level rollups and the newest summaries that fit, each
// topic within its share of the budget, and ends with a line saying what it left out.
import type { ChainEntry, JobState } from './jobState.js';
import type { TokenCounter } from './tokens.js';

/** The entries no rollup has rolled up: the chain's summary of everything, at its levels. */
function frontier(entries: ChainEntry[]): ChainEntry[] {
  const rolled = new Set(entries.flatMap((e) => e.rolls ?? []));
  return entries.filter((e) => !rolled.has(e.seq));
}

function block(entry: ChainEntry): string {
  const what = entry.level === 0 ? 'Summary' : `Rollup (level ${entry.level}) of ${entry.rolls?.length ?? 0} summaries`;
  return `### ${what}, through interaction #${entry.coversThrough}, ${new Date(entry.time).toISOString()}\n\n${entry.text.trim()}`;
}

function renderTopic(job: string, topic: string | undefined, entries: ChainEntry[], budget: number, count: TokenCounter): string {
  const name = topic === undefined ? `job ${job}` : `job ${job}, topic ${topic}`;
  const header = `recap: the memory of ${name}: ${entries.length} summaries in its chain.`;
  // Highest levels first (each covers the most), then the newest summaries.
  const candidates = frontier(entries).sort((a, b) => b.level - a.level || b.seq - a.seq);
  const chosen: { entry: ChainEntry; text: string; tokens: number }[] = [];
  const footerFor = (shown: number) =>
    shown < entries.length ? `(${entries.length - shown} of the ${entries.length} summaries are not shown; recap chain lists them all${topic === undefined ? '' : ` (topic ${topic})`}.)` : '';
  let used = count(header) + count(footerFor(0)) + 4;
  for (const entry of candidates) {
    if (used + entry.tokens >= budget) continue;
    const text = block(entry);
    const tokens = count(text) + 2;
    if (used + tokens > budget) continue;
    chosen.push({ entry, text, tokens });
    used += tokens;
  }
  const render = () => {
    const shown = [...chosen].sort((a, b) => b.entry.level - a.entry.level || a.entry.seq - b.entry.seq);
    return [header, ...shown.map((c) => c.text), footerFor(chosen.length)].filter(Boolean).join('\n\n');
  };
  // Joins and the footer's own numbers can shift a count by a token or two: check the whole.
  let text = render();
  while (chosen.length > 0 && count(text) > budget) {
    chosen.pop();
    text = render();
  }
  return count(text) <= budget ? text : '';
}

export function memoryText(state: JobState, budget: number, count: TokenCounter): string {
  if (state.chain.length === 0) return `recap: job ${state.job} has no summaries yet.`;
  // The main chain first, then the topics by name (sort() would put undefined last).
  const named = [...new Set(state.chain.flatMap((e) => (e.topic === undefined ? [] : [e.topic])))].sort();
  const topics = [...(state.chain.some((e) => e.topic === undefined) ? [undefined] : []), ...named];
  const share = Math.floor((budget - topics.length * 2) / topics.length);
  return topics
    .map((topic) => renderTopic(state.job, topic, state.chain.filter((e) => e.topic === topic), share, count))
    .filter(Boolean)
    .join('\n\n');
}
