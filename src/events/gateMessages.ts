// The words recap says to an agent: why it is blocked and exactly what to do, and the
// job's memory. A deny reason stays under REASON_BUDGET; context handed to an agent fits
// the limit its adapter declares (AgentFacts.contextLimit).
import type { Config } from './config.js';
import { fits, lengthIn, type ContextLimit } from './contextFit.js';
import { summaryText, unrolled, type ChainEntry, type JobState, type PendingInteraction, type SummaryTexts } from './jobState.js';
import { GIST_FORM, GIST_MAX_TOKENS } from './gist.js';
import { FILES_HEADING, REFERENCE_FORMS } from './summaryParts.js';
import { memorySeqs, type MemoryBudget, type MemoryParts } from './memory.js';
import { sectionHint } from './profiles.js';
import { headingKey } from './summaryHeadings.js';
import { QUOTE_FORM } from './summaryQuotes.js';
import type { TokenCounter } from './tokens.js';

const REASON_BUDGET = 8000;
const EXCERPT_CHARS = 600;

/**
 * The submit command to fill in. `recap` is the command word the gate accepts (the
 * launcher's absolute path, whitelist.ts recapWord), never a name PATH resolves.
 */
export function summaryTemplate(
  config: Pick<Config, 'REQUIRED_SECTIONS'> & Partial<Pick<Config, 'GIST' | 'PROFILE' | 'VERBATIM_SECTIONS'>>,
  recap: string,
  topic?: string,
): string {
  const gist = (config.GIST ?? 'agent') === 'agent' ? [GIST_FORM] : [];
  // A verbatim section shows how to quote; others the sub-structure their profile asks for, if any.
  const verbatim = new Set((config.VERBATIM_SECTIONS ?? []).map(headingKey));
  const hint = (s: string) => (verbatim.has(headingKey(s)) ? QUOTE_FORM : (sectionHint(config.PROFILE, s) ?? `<${s.toLowerCase()}: what happened, in your words>`));
  const sections = config.REQUIRED_SECTIONS.map((s) => `## ${s}\n${hint(s)}`);
  return [`${recap} submit${topic === undefined ? '' : ` --topic ${topic}`} <<'EOF'`, ...gist, ...sections, 'EOF'].join('\n');
}

export function summaryRules(config: Config, rollup = false): string {
  const [min, max] = rollup ? [config.ROLLUP_MIN_TOKENS, config.ROLLUP_MAX_TOKENS] : [config.SUMMARY_MIN_TOKENS, config.SUMMARY_MAX_TOKENS];
  const cap = config.SECTION_MAX_TOKENS > 0 ? ` and at most ${config.SECTION_MAX_TOKENS}` : '';
  const gist = config.GIST === 'agent' ? `the Gist line first (one line, at most ${GIST_MAX_TOKENS} tokens, listed in the next sessions' index); ` : '';
  return (
    `Rules: ${gist}each of the ${config.REQUIRED_SECTIONS.length} sections once, as a markdown heading; ` +
    `at least ${config.MIN_TOKENS_PER_SECTION}${cap} tokens in each section${verbatimRule(config)}; ${min} to ${max} tokens in total. ` +
    filesRule(config) +
    `Keep the quotes around 'EOF' and chain nothing onto the command.`
  );
}

/** The floor's exception: a verbatim section that quotes the user for real. */
function verbatimRule(config: Config): string {
  const verbatim = config.VERBATIM_SECTIONS.filter((v) => config.REQUIRED_SECTIONS.some((r) => headingKey(r) === headingKey(v)));
  return verbatim.length === 0 ? '' : ` (but ${verbatim.join(', ')}: the user's own words, quoted, with no floor once one quote is real)`;
}

/** How a summary names files for the next session: said in every demand for one. */
function filesRule(config: Config): string {
  if (config.REF_READ_BUDGET === 0) return '';
  return (
    `Optionally, end with a ## ${FILES_HEADING} section (not counted in the band): one line per file the next session needs, ` +
    `${REFERENCE_FORMS}; paths relative to the project; read hands over the lines' current contents (all read entries within ${config.REF_READ_BUDGET} tokens), ref only the name. `
  );
}

export function tripCause(state: JobState): string {
  const gate = state.gate;
  if (!gate.tripped) return `the gate for job ${state.job} is open`;
  switch (gate.reason) {
    case 'threshold':
      return `${gate.unsummarizedTokens} unsummarized tokens reached the threshold of ${gate.limit}`;
    case 'interactions':
      return `${gate.measured ?? 0} unsummarized interactions reached the limit of ${gate.limit}`;
    case 'context':
      return `the agent's context use reached ${gate.measured ?? 0}% of its window (limit ${gate.limit}%)`;
    case 'manual':
      return `a user asked for a summary now${gate.note ? `: ${gate.note}` : ''}`;
    case 'rollup':
      return `${gate.measured ?? gate.limit} summaries${gate.topic ? ` on topic ${gate.topic}` : ''} at level ${(gate.level ?? 1) - 1} are due to be rolled up into one level-${gate.level ?? 1} summary (every ${gate.limit})`;
  }
}

function cut(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit)} [... ${text.length - limit} more characters]` : text;
}

function renderInteraction(p: PendingInteraction, limit: number): string {
  return `[#${p.seq} ${p.kind}, ${p.tokens} tokens]\n${cut(p.text, limit)}`;
}

function renderSummary(e: ChainEntry, texts: SummaryTexts, limit: number): string {
  return `[summary #${e.seq}, level ${e.level}, ${e.tokens} tokens]\n${cut(summaryText(texts, e.seq), limit)}`;
}

/** The newest blocks that fit `budget` characters, oldest first, and how many were left out. */
function newestWithin(blocks: string[], budget: number, measure: (text: string) => number = (text) => text.length): { shown: string[]; left: number } {
  const shown: string[] = [];
  let used = 0;
  for (let i = blocks.length - 1; i >= 0; i -= 1) {
    const block = blocks[i]!;
    const size = measure(block);
    if (used + size > budget) break;
    shown.unshift(block);
    used += size + 2;
  }
  return { shown, left: blocks.length - shown.length };
}

/** The summaries a tripped gate waits to see rolled up; none for any other trip. */
function dueSummaries(state: JobState): ChainEntry[] {
  const gate = state.gate;
  return gate.tripped && gate.reason === 'rollup' ? unrolled(state, (gate.level ?? 1) - 1, gate.topic) : [];
}

/** The summaries whose texts denyReason shows: the texts to load first. */
export function denySeqs(state: JobState): number[] {
  return dueSummaries(state).map((e) => e.seq);
}

/** What the agent must summarize now: the interactions, or for a rollup the summaries. */
function material(state: JobState, texts: SummaryTexts, limit: number): { what: string; blocks: string[]; tokens: number } {
  const gate = state.gate;
  if (gate.tripped && gate.reason === 'rollup') {
    const due = dueSummaries(state);
    return { what: 'Summaries to roll up', blocks: due.map((e) => renderSummary(e, texts, limit)), tokens: due.reduce((n, e) => n + e.tokens, 0) };
  }
  return { what: 'Interactions to summarize', blocks: state.pending.map((p) => renderInteraction(p, limit)), tokens: state.unsummarizedTokens };
}

function demand(state: JobState, config: Config, recap: string, shell: string): { head: string[]; rollup: boolean } {
  const gate = state.gate;
  const rollup = gate.tripped && gate.reason === 'rollup';
  const topic = gate.tripped ? gate.topic : undefined;
  return {
    rollup,
    head: [
      rollup
        ? `Write one summary of the summaries below, in the same sections, and submit it with exactly this ${shell} command:`
        : `Write a summary of the interactions below and submit it with exactly this ${shell} command, filling in every section:`,
      summaryTemplate(config, recap, topic),
      summaryRules(config, rollup),
    ],
  };
}

/**
 * Why a tool call is denied, with the exact way out. `shell` names the agent's shell tool
 * (Bash, run_shell_command): the command to run there is the same for every agent.
 */
export function denyReason(state: JobState, config: Config, texts: SummaryTexts, refusal: string | undefined, recap: string, shell = 'shell'): string {
  const { head } = demand(state, config, recap, shell);
  const top = [
    `recap: job ${state.job} needs a summary before any other tool can run: ${tripCause(state)}.`,
    ...(refusal ? [`This command was refused: ${refusal}.`] : []),
    ...head,
    `Meanwhile only ${recap} status, ${recap} context, ${recap} chain, ${recap} show N, ${recap} decisions, ${recap} search QUERY and ${recap} timeline may run.`,
  ].join('\n\n');
  const { what, blocks, tokens } = material(state, texts, EXCERPT_CHARS);
  const { shown, left } = newestWithin(blocks, REASON_BUDGET - top.length - 200);
  const omitted = left > 0 ? `; the ${left} oldest not shown` : '';
  const header = `${what} (${blocks.length}, ${tokens} tokens${omitted}; full text: ${recap} context):`;
  return [top, header, ...shown].join('\n\n');
}

/** The memory's budgets as the configuration sets them. */
export function memoryBudget(config: Pick<Config, 'CONTEXT_BUDGET' | 'INDEX_BUDGET' | 'REF_READ_BUDGET'>): MemoryBudget {
  return { summaries: config.CONTEXT_BUDGET, index: config.INDEX_BUDGET, files: config.REF_READ_BUDGET };
}

/** The summaries whose texts contextText shows with this memory budget: the texts to load first. */
export function contextSeqs(state: JobState, config: Config, count: TokenCounter, recap: string, budget = memoryBudget(config)): number[] {
  return state.gate.tripped ? denySeqs(state) : memorySeqs(state, budget, count, recap);
}

/**
 * How an agent's limit is shared when the whole memory does not fit it: the summaries half,
 * the files three tenths, the index a fifth; a part that needs less than its share leaves
 * the rest to the others.
 */
export const LIMIT_SHARES: Readonly<Record<keyof MemoryParts, number>> = { summaries: 0.5, files: 0.3, index: 0.2 };

/** Room kept for the blank lines between the parts and the counts' rounding. */
const JOINS = 64;

/**
 * Smaller memory budgets for a memory whose parts came out over the agent's limit: each part
 * over its share of the limit (LIMIT_SHARES) is given a budget in proportion, with a tenth to
 * spare (counts of tokens and of characters do not scale exactly together).
 */
export function fittedBudget(budget: MemoryBudget, parts: MemoryParts, limit: ContextLimit): MemoryBudget {
  const keys = Object.keys(LIMIT_SHARES) as (keyof MemoryParts)[];
  const size = Object.fromEntries(keys.map((k) => [k, lengthIn(parts[k], limit.unit)])) as Record<keyof MemoryParts, number>;
  const room = Math.max(0, limit.max - JOINS);
  const allowed = { ...size };
  let over = keys.filter((k) => size[k] > 0);
  let left = room;
  // Parts within their share keep their size; what they leave is shared among the others.
  for (let changed = true; changed;) {
    changed = false;
    const shares = over.reduce((sum, k) => sum + LIMIT_SHARES[k], 0);
    for (const k of over) {
      const share = (left * LIMIT_SHARES[k]) / shares;
      if (size[k] > share) continue;
      left -= size[k];
      over = over.filter((o) => o !== k);
      changed = true;
      break;
    }
  }
  const shares = over.reduce((sum, k) => sum + LIMIT_SHARES[k], 0);
  for (const k of over) allowed[k] = (left * LIMIT_SHARES[k]) / shares;
  const scale = (n: number, k: keyof MemoryParts) => (size[k] <= allowed[k] ? n : Math.max(0, Math.min(n - 1, Math.floor(((n * allowed[k]) / size[k]) * 0.9))));
  return { summaries: Math.max(1, scale(budget.summaries, 'summaries')), files: scale(budget.files, 'files'), index: scale(budget.index, 'index') };
}

/**
 * What a tripped gate's agent needs: the demand for a summary (the memory is memoryParts').
 * With the agent's `limit`, a demand too long to hand over whole shows the newest
 * interactions cut short (`recap context` in its shell prints it whole).
 */
export function demandText(state: JobState, config: Config, texts: SummaryTexts, recap: string, shell = 'shell', limit?: ContextLimit): string {
  const { head } = demand(state, config, recap, shell);
  const top = [`recap: job ${state.job} needs a summary: ${tripCause(state)}.`, ...head].join('\n\n');
  const all = material(state, texts, Number.POSITIVE_INFINITY);
  const text = [top, `${all.what} (${all.blocks.length}, ${all.tokens} tokens):`, ...all.blocks].join('\n\n');
  if (fits(text, limit)) return text;
  // Too long to hand over whole: the newest, each cut short, and where to read them all.
  const { what, blocks, tokens } = material(state, texts, EXCERPT_CHARS);
  // Measured as the agent measures: bytes count more than characters in most languages.
  const measure = (text: string) => lengthIn(text, limit!.unit);
  const { shown, left } = newestWithin(blocks, limit!.max - measure(top) - 400, measure);
  const omitted = left > 0 ? `the ${left} oldest not shown, ` : '';
  const header = `${what} (${blocks.length}, ${tokens} tokens; ${omitted}each cut to ${EXCERPT_CHARS} characters; run ${recap} context in your ${shell} tool to read them whole):`;
  return [top, header, ...shown].join('\n\n');
}

export function protectionReason(refusal: string, recap: string): string {
  return (
    `recap: this call was refused: ${refusal}. recap's event log, socket, config, its hooks in the agent's ` +
    'settings and its installed files are off limits to the agent, and its setup commands (install, uninstall, ' +
    "config, daemon, trip, import, stop, restart, reload, pause, resume) are the user's to run outside the agent. " +
    `Name recap exactly as ${recap}: ${recap} status, ${recap} context, ${recap} chain, ${recap} show N, ${recap} decisions, ${recap} search QUERY and ${recap} timeline read the job's state, memory, summaries and decisions, ` +
    'and a summary goes in with its submit subcommand and a quoted here-document.'
  );
}
