// The job's memory as handed to the agent, in three parts, each within its own budget
// however long the chain is:
// - the summaries shown whole (CONTEXT_BUDGET): the highest-level rollups and the newest
//   summaries that fit, each topic within its share;
// - the files the newest summary named (REF_READ_BUDGET): a `read` entry's current contents,
//   marked unchanged, changed since the summary, or gone; a `ref` entry's name and reason;
// - an index of every entry not shown whole (INDEX_BUDGET), newest first, one line each
//   (number, date, topic, level, whether it was amended, gist), and how to read one whole.
// Entries are chosen from their token counts alone, so only the chosen texts are read. Other
// machines' entries of the job (`recap sync`) take their places among this machine's by time,
// labelled with their author or host; their files are named, never read (their paths are
// another machine's).
import type { FileReference } from './events.js';
import { allEntries, summaryText, type ChainEntry, type JobState, type SummaryTexts } from './jobState.js';
import { referenceSpec } from './summaryParts.js';
import { entryText, hasText, originLabel, originMark } from './entryText.js';
import type { TokenCounter } from './tokens.js';

/** The tokens each part of the memory may take. */
export type MemoryBudget = { summaries: number; index: number; files: number };

/** A file the newest summary named, as the daemon found it at hand-over (referenceFiles.ts). */
export type HandedFile = { ref: FileReference } &
  /** `lines`: the range's or file's lines when `content` is only their head (the rest past the budget). */
  ({ status: 'unchanged' | 'changed'; content: string; lines?: number } | { status: 'gone' } | { status: 'refused'; why: string } | { status: 'named' });

/** The summary whose files the memory hands over, and what was found of them. */
export type MemoryFiles = { seq: number; files: HandedFile[] };

/**
 * An entry as a rollup names it: this machine's by its number here, another machine's by its
 * number there (a rollup of that machine's names its own log's numbers).
 */
const rollKey = (e: ChainEntry): string => (e.origin === undefined ? `#${e.seq}` : `${e.origin.machine}#${e.originSeq}`);

/** The entries a rollup of the same chain has rolled up, as rollKey names them. */
function rolledKeys(e: ChainEntry): string[] {
  if (e.origin === undefined) return (e.rolls ?? []).map((n) => `#${n}`);
  const machine = e.origin.machine;
  return (e.originRolls ?? []).map((n) => `${machine}#${n}`);
}

/** The entries no rollup has rolled up: the chains' summary of everything, at their levels. */
export function frontier(entries: readonly ChainEntry[]): ChainEntry[] {
  const rolled = new Set(entries.flatMap(rolledKeys));
  return entries.filter((e) => !rolled.has(rollKey(e)));
}

const day = (time: number) => new Date(time).toISOString().slice(0, 10);

function heading(entry: ChainEntry): string {
  const rolled = (entry.origin === undefined ? entry.rolls : entry.originRolls)?.length ?? 0;
  const what = entry.level === 0 ? 'Summary' : `Rollup (level ${entry.level}) of ${rolled} summaries`;
  // Another machine's interaction numbers mean nothing here: its entry says whose it is instead.
  const where = entry.origin === undefined ? `through interaction #${entry.coversThrough}` : `from ${originLabel(entry.origin)}'s chain on ${entry.origin.host}`;
  return `### ${what} #${entry.seq}, ${where}, ${new Date(entry.time).toISOString()}`;
}

/** Newest first by time (by number among equals). */
const newestFirst = (a: ChainEntry, b: ChainEntry) => b.time - a.time || b.seq - a.seq;

type TopicPlan = { header: string; chosen: ChainEntry[]; footer: (shown: number) => string };

/** The main chain first, then the topics by name, each with its share of the budget. */
function plan(state: JobState, budget: number, count: TokenCounter, recap: string, indexed: boolean): { plans: TopicPlan[]; share: number } {
  // sort() would put undefined last.
  const entries = allEntries(state);
  const named = [...new Set(entries.flatMap((e) => (e.topic === undefined ? [] : [e.topic])))].sort();
  const topics = [...(entries.some((e) => e.topic === undefined) ? [undefined] : []), ...named];
  const share = Math.floor((budget - topics.length * 2) / topics.length);
  return {
    plans: topics.map((topic) =>
      planTopic(
        state.job,
        topic,
        entries.filter((e) => e.topic === topic),
        share,
        count,
        recap,
        indexed,
      ),
    ),
    share,
  };
}

function planTopic(job: string, topic: string | undefined, entries: ChainEntry[], budget: number, count: TokenCounter, recap: string, indexed: boolean): TopicPlan {
  const name = topic === undefined ? `job ${job}` : `job ${job}, topic ${topic}`;
  const others = entries.filter((e) => e.origin !== undefined).length;
  const from = others === 0 ? ' in its chain' : `: ${entries.length - others} in this machine's chain, ${others} from other machines' chains`;
  const header = `recap: the memory of ${name}: ${entries.length} summaries${from}.`;
  const footer = (shown: number) =>
    shown < entries.length
      ? `(${entries.length - shown} of the ${entries.length} summaries are not shown whole; ${indexed ? 'the index below lists them, and ' : ''}${recap} chain prints them all${topic === undefined ? '' : ` (topic ${topic})`}.)`
      : '';
  // Highest levels first (each covers the most), then the newest summaries.
  // A redacted entry has no text to show whole: the index lists it.
  const candidates = frontier(entries)
    .filter(hasText)
    .sort((a, b) => b.level - a.level || newestFirst(a, b));
  const chosen: ChainEntry[] = [];
  let used = count(header) + count(footer(0)) + 4;
  // At each level the newest that fit, with no gap: past the first that does not fit, the
  // older ones of its level are the index's.
  const full = new Set<number>();
  for (const entry of candidates) {
    if (full.has(entry.level)) continue;
    // Most entries of a long chain cannot fit: they are passed over before any counting.
    const tokens = used + entry.tokens >= budget ? Infinity : count(heading(entry)) + entry.tokens + 4;
    if (used + tokens > budget) {
      full.add(entry.level);
      continue;
    }
    chosen.push(entry);
    used += tokens;
  }
  return { header, chosen, footer };
}

function renderTopic({ header, chosen, footer }: TopicPlan, budget: number, count: TokenCounter, texts: SummaryTexts): { text: string; shown: ChainEntry[] } {
  const shown = [...chosen];
  const render = () =>
    [header, ...[...shown].sort((a, b) => b.level - a.level || newestFirst(b, a)).map((e) => `${heading(e)}\n\n${summaryText(texts, e.seq).trim()}`), footer(shown.length)]
      .filter(Boolean)
      .join('\n\n');
  // Joins and the footer's own numbers can shift a count by a token or two: check the whole.
  let text = render();
  while (shown.length > 0 && count(text) > budget) {
    shown.pop();
    text = render();
  }
  return count(text) <= budget ? { text, shown } : { text: '', shown: [] };
}

/** The newest summary that names files: the one whose files the memory hands over. */
export function filesOwner(state: JobState): ChainEntry | undefined {
  return state.chain.findLast((e) => (e.refs?.length ?? 0) > 0);
}

/** The summaries memoryText would show: the texts to load first. */
export function memorySeqs(state: JobState, budget: MemoryBudget, count: TokenCounter, recap: string): number[] {
  return plan(state, budget.summaries, count, recap, budget.index > 0).plans.flatMap((p) => p.chosen.map((e) => e.seq));
}

const FILE_STATUS = { unchanged: 'unchanged since the summary', changed: 'changed since the summary: its contents now', gone: 'gone: the file no longer exists' };

/** The files part: within `budget` tokens, a read's contents cut (with a closing line) where they do not fit. */
function renderFiles(owned: MemoryFiles, budget: number, count: TokenCounter): string {
  const head = `Files named by summary #${owned.seq} (read: their contents now; ref: where to look):`;
  const blocks: string[] = [head];
  let used = count(head) + 2;
  for (const file of owned.files) {
    const { ref } = file;
    const line = `- ${ref.mode} ${referenceSpec(ref)} — ${ref.why}`;
    const block = fileBlock(file, line, budget - used, count);
    const tokens = count(block) + 2;
    // One that does not fit leaves its room to the smaller ones after it (a ref is a line).
    if (used + tokens > budget) continue;
    blocks.push(block);
    used += tokens;
  }
  return blocks.length > 1 ? blocks.join('\n\n') : '';
}

function fileBlock(file: HandedFile, line: string, room: number, count: TokenCounter): string {
  switch (file.status) {
    case 'named':
      return line;
    case 'gone':
      return `${line} [${FILE_STATUS.gone}]`;
    case 'refused':
      return `${line} [not handed over: ${file.why}]`;
    case 'unchanged':
    case 'changed': {
      const top = `${line} [${FILE_STATUS[file.status]}]`;
      const fence = file.content.includes('```') ? '````' : '```';
      const lines = file.content.split('\n');
      const all = file.lines ?? lines.length;
      const whole = `${top}\n${fence}\n${file.content}\n${fence}`;
      if (all === lines.length && count(whole) <= room) return whole;
      // Cut to what fits, by lines, with a line saying so.
      let keep = Math.min(lines.length, Math.floor((lines.length * Math.max(0, room - count(top) - 20)) / Math.max(1, count(file.content))));
      const cutText = (n: number) => `${top}\n${fence}\n${lines.slice(0, n).join('\n')}\n${fence}\n[cut after ${n} of ${all} lines: read the file for the rest]`;
      while (keep > 0 && count(cutText(keep)) > room) keep = Math.floor(keep * 0.8);
      return keep > 0 ? cutText(keep) : `${line} [${FILE_STATUS[file.status]}; too large to hand over here: read it]`;
    }
  }
}

/**
 * Another machine's newest summary that names files, when it is newer than this machine's:
 * its files are listed by name (its paths are that machine's, never read here).
 */
export function importedFilesOwner(state: JobState): ChainEntry | undefined {
  const own = filesOwner(state);
  const theirs = state.imported.filter((e) => (e.refs?.length ?? 0) > 0).sort(newestFirst)[0];
  return theirs !== undefined && (own === undefined || theirs.time > own.time) ? theirs : undefined;
}

/** The files part: this machine's newest summary's files, then the names another machine's newer one gave. */
function filesPart(state: JobState, files: MemoryFiles | undefined, budget: number, count: TokenCounter): string {
  const own = files ? renderFiles(files, budget, count) : '';
  const owner = importedFilesOwner(state);
  if (owner === undefined) return own;
  const room = budget - (own === '' ? 0 : count(own) + 2);
  const head = `Files named by summary #${owner.seq}${originMark(owner)} on ${owner.origin!.host} (names only: its paths are that machine's, not read here):`;
  const lines = [head];
  let used = count(head) + 2;
  for (const ref of owner.refs ?? []) {
    const line = `- ${ref.mode} ${referenceSpec(ref)} — ${ref.why}`;
    const tokens = count(line) + 1;
    if (used + tokens > room) break;
    lines.push(line);
    used += tokens;
  }
  return [own, lines.length > 1 ? lines.join('\n') : ''].filter(Boolean).join('\n\n');
}

/** The index: entries not shown whole, newest first, one line each, within `budget` tokens. */
function renderIndex(state: JobState, shown: ReadonlySet<number>, budget: number, count: TokenCounter, recap: string): string {
  const rest = allEntries(state).filter((e) => !shown.has(e.seq));
  if (rest.length === 0 || budget === 0) return '';
  const head = `Index of the ${rest.length === 1 ? '1 summary' : `${rest.length} summaries`} not shown whole, newest first (${recap} show N prints summary #N whole):`;
  const lines: string[] = [];
  let used = count(head) + 30;
  for (let i = rest.length - 1; i >= 0; i -= 1) {
    const e = rest[i]!;
    const line = `#${e.seq}${originMark(e)} ${day(e.time)}${e.topic === undefined ? '' : ` [${e.topic}]`}${e.level > 0 ? ` rollup L${e.level}` : ''}${entryText(e).state === 'amended' ? ' (amended)' : ''} — ${e.gist}`;
    const tokens = count(line) + 1;
    if (used + tokens > budget) break;
    lines.push(line);
    used += tokens;
  }
  if (lines.length === 0) return '';
  const left = rest.length - lines.length;
  const tail = left > 0 ? [`(${left} older not listed: ${recap} chain lists them all.)`] : [];
  return [head, ...lines, ...tail].join('\n');
}

/** The memory's parts as rendered, each within its own budget ('' for a part with nothing to show). */
export type MemoryParts = { summaries: string; files: string; index: string };

/**
 * `recap`: how the agent names recap in its shell (the launcher's path). `files`: the newest
 * summary's files as found at hand-over, if it names any (filesOwner).
 */
export function memoryParts(state: JobState, budget: MemoryBudget, count: TokenCounter, texts: SummaryTexts, recap: string, files?: MemoryFiles): MemoryParts {
  if (state.chain.length === 0 && state.imported.length === 0) return { summaries: `recap: job ${state.job} has no summaries yet.`, files: '', index: '' };
  const { plans, share } = plan(state, budget.summaries, count, recap, budget.index > 0);
  const topics = plans.map((p) => renderTopic(p, share, count, texts));
  const shown = new Set(topics.flatMap((t) => t.shown.map((e) => e.seq)));
  return {
    summaries: topics
      .map((t) => t.text)
      .filter(Boolean)
      .join('\n\n'),
    files: filesPart(state, files, budget.files, count),
    index: renderIndex(state, shown, budget.index, count, recap),
  };
}

export const joinParts = (parts: MemoryParts): string => [parts.summaries, parts.files, parts.index].filter(Boolean).join('\n\n');

export function memoryText(state: JobState, budget: MemoryBudget, count: TokenCounter, texts: SummaryTexts, recap: string, files?: MemoryFiles): string {
  return joinParts(memoryParts(state, budget, count, texts, recap, files));
}
