// The words recap says to an agent: why it is blocked and exactly what to do, and the
// job's memory. Kept well under Claude Code's 10,000-character cut.
import type { Config } from './config.js';
import type { JobState, PendingInteraction } from './jobState.js';

const REASON_BUDGET = 8000;
const EXCERPT_CHARS = 600;

export function summaryTemplate(config: Pick<Config, 'REQUIRED_SECTIONS'>): string {
  const sections = config.REQUIRED_SECTIONS.map((s) => `## ${s}\n<${s.toLowerCase()}: what happened, in your words>`);
  return ["recap submit <<'EOF'", ...sections, 'EOF'].join('\n');
}

export function summaryRules(config: Config): string {
  return (
    `Rules: each of the ${config.REQUIRED_SECTIONS.length} sections once, as a markdown heading; ` +
    `at least ${config.MIN_TOKENS_PER_SECTION} tokens in each section; ` +
    `${config.SUMMARY_MIN_TOKENS} to ${config.SUMMARY_MAX_TOKENS} tokens in total. ` +
    `Keep the quotes around 'EOF' and chain nothing onto the command.`
  );
}

export function tripCause(state: JobState): string {
  const gate = state.gate;
  if (!gate.tripped) return `the gate for job ${state.job} is open`;
  switch (gate.reason) {
    case 'threshold':
      return `${gate.unsummarizedTokens} unsummarized tokens reached the threshold of ${gate.limit}`;
    case 'interactions':
      return `${gate.unsummarizedTokens} unsummarized interactions reached the limit of ${gate.limit}`;
    case 'context':
      return `the agent's context use reached ${gate.unsummarizedTokens}% (limit ${gate.limit}%)`;
    case 'manual':
      return 'a user tripped it by hand';
    case 'rollup':
      return `${gate.unsummarizedTokens} summaries are due to be rolled up (every ${gate.limit})`;
  }
}

function renderInteraction(p: PendingInteraction, limit: number): string {
  const text = p.text.length > limit ? `${p.text.slice(0, limit)} [... ${p.text.length - limit} more characters]` : p.text;
  return `[#${p.seq} ${p.kind}, ${p.tokens} tokens]\n${text}`;
}

/** The newest interactions that fit `budget` characters, each cut to `limit`, oldest first. */
function interactionsWithin(pending: PendingInteraction[], budget: number, limit: number): { shown: string[]; left: number } {
  const shown: string[] = [];
  let used = 0;
  for (let i = pending.length - 1; i >= 0; i -= 1) {
    const block = renderInteraction(pending[i]!, limit);
    if (used + block.length > budget) break;
    shown.unshift(block);
    used += block.length + 2;
  }
  return { shown, left: pending.length - shown.length };
}

export function denyReason(state: JobState, config: Config, refusal?: string): string {
  const head = [
    `recap: job ${state.job} needs a summary before any other tool can run: ${tripCause(state)}.`,
    ...(refusal ? [`This command was refused: ${refusal}.`] : []),
    'Write a summary of the interactions below and submit it with exactly this Bash command, filling in every section:',
    summaryTemplate(config),
    summaryRules(config),
    'Meanwhile only recap status, recap context and recap chain may run.',
  ].join('\n\n');
  const { shown, left } = interactionsWithin(state.pending, REASON_BUDGET - head.length - 200, EXCERPT_CHARS);
  const omitted = left > 0 ? `; the ${left} oldest not shown` : '';
  const header = `Interactions to summarize (${state.pending.length}, ${state.unsummarizedTokens} tokens counted${omitted}; full text: recap context):`;
  return [head, header, ...shown].join('\n\n');
}

/** What the agent needs now: the demand for a summary when tripped, otherwise its memory. */
export function contextText(state: JobState, config: Config): string {
  if (state.gate.tripped) {
    return [
      `recap: job ${state.job} needs a summary: ${tripCause(state)}.`,
      'Submit it with this Bash command, filling in every section:',
      summaryTemplate(config),
      summaryRules(config),
      `Interactions to summarize (${state.pending.length}, ${state.unsummarizedTokens} tokens counted):`,
      ...state.pending.map((p) => renderInteraction(p, Number.POSITIVE_INFINITY)),
    ].join('\n\n');
  }
  return memoryText(state);
}

export function memoryText(state: JobState): string {
  if (state.chain.length === 0) return `recap: job ${state.job} has no summaries yet.`;
  const entries = state.chain.map(
    (e, i) => `### Summary ${i + 1} of ${state.chain.length} (through interaction #${e.coversThrough}, ${new Date(e.time).toISOString()})\n\n${e.text.trim()}`,
  );
  return [`recap: the memory of job ${state.job}, ${state.chain.length} summaries, oldest first.`, ...entries].join('\n\n');
}

export function protectionReason(refusal: string): string {
  return (
    `recap: this call was refused: ${refusal}. The event log, the socket and the config files ` +
    "are recap's own and off limits to the agent. Read the job's memory with recap context or recap chain."
  );
}
