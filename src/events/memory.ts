// The job's memory as handed to the agent: never over CONTEXT_BUDGET tokens however long
// the chain is. It keeps the highest-level rollups and the newest summaries that fit, each
// topic within its share of the budget, and ends with a line saying what it left out.
// Entries are chosen from their token counts alone, so only the chosen texts are read.
import { summaryText, type ChainEntry, type JobState, type SummaryTexts } from './jobState.js';
import type { TokenCounter } from './tokens.js';

/** The entries no rollup has rolled up: the chain's summary of everything, at its levels. */
function frontier(entries: ChainEntry[]): ChainEntry[] {
  const rolled = new Set(entries.flatMap((e) => e.rolls ?? []));
  return entries.filter((e) => !rolled.has(e.seq));
}

function heading(entry: ChainEntry): string {
  const what = entry.level === 0 ? 'Summary' : `Rollup (level ${entry.level}) of ${entry.rolls?.length ?? 0} summaries`;
  return `### ${what}, through interaction #${entry.coversThrough}, ${new Date(entry.time).toISOString()}`;
}

type TopicPlan = { header: string; chosen: ChainEntry[]; footer: (shown: number) => string };

/** The main chain first, then the topics by name, each with its share of the budget. */
function plan(state: JobState, budget: number, count: TokenCounter, recap: string): { plans: TopicPlan[]; share: number } {
  // sort() would put undefined last.
  const named = [...new Set(state.chain.flatMap((e) => (e.topic === undefined ? [] : [e.topic])))].sort();
  const topics = [...(state.chain.some((e) => e.topic === undefined) ? [undefined] : []), ...named];
  const share = Math.floor((budget - topics.length * 2) / topics.length);
  return {
    plans: topics.map((topic) =>
      planTopic(
        state.job,
        topic,
        state.chain.filter((e) => e.topic === topic),
        share,
        count,
        recap,
      ),
    ),
    share,
  };
}

function planTopic(job: string, topic: string | undefined, entries: ChainEntry[], budget: number, count: TokenCounter, recap: string): TopicPlan {
  const name = topic === undefined ? `job ${job}` : `job ${job}, topic ${topic}`;
  const header = `recap: the memory of ${name}: ${entries.length} summaries in its chain.`;
  const footer = (shown: number) =>
    shown < entries.length
      ? `(${entries.length - shown} of the ${entries.length} summaries are not shown; ${recap} chain lists them all${topic === undefined ? '' : ` (topic ${topic})`}.)`
      : '';
  // Highest levels first (each covers the most), then the newest summaries.
  const candidates = frontier(entries).sort((a, b) => b.level - a.level || b.seq - a.seq);
  const chosen: ChainEntry[] = [];
  let used = count(header) + count(footer(0)) + 4;
  for (const entry of candidates) {
    // Most entries of a long chain cannot fit: they are passed over before any counting.
    if (used + entry.tokens >= budget) continue;
    const tokens = count(heading(entry)) + entry.tokens + 4;
    if (used + tokens > budget) continue;
    chosen.push(entry);
    used += tokens;
  }
  return { header, chosen, footer };
}

function renderTopic({ header, chosen, footer }: TopicPlan, budget: number, count: TokenCounter, texts: SummaryTexts): string {
  const shown = [...chosen];
  const render = () =>
    [header, ...[...shown].sort((a, b) => b.level - a.level || a.seq - b.seq).map((e) => `${heading(e)}\n\n${summaryText(texts, e.seq).trim()}`), footer(shown.length)]
      .filter(Boolean)
      .join('\n\n');
  // Joins and the footer's own numbers can shift a count by a token or two: check the whole.
  let text = render();
  while (shown.length > 0 && count(text) > budget) {
    shown.pop();
    text = render();
  }
  return count(text) <= budget ? text : '';
}

/** The summaries memoryText would show: the texts to load first. */
export function memorySeqs(state: JobState, budget: number, count: TokenCounter, recap: string): number[] {
  return plan(state, budget, count, recap).plans.flatMap((p) => p.chosen.map((e) => e.seq));
}

/** `recap`: how the agent names recap in its shell (the launcher's path). */
export function memoryText(state: JobState, budget: number, count: TokenCounter, texts: SummaryTexts, recap: string): string {
  if (state.chain.length === 0) return `recap: job ${state.job} has no summaries yet.`;
  const { plans, share } = plan(state, budget, count, recap);
  return plans
    .map((p) => renderTopic(p, share, count, texts))
    .filter(Boolean)
    .join('\n\n');
}
