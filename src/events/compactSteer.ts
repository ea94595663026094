// What recap asks of the agent's own summary when the agent compacts its conversation (its
// pre-compaction hook, where the answer reaches the summary request): keep the decisions, the
// user's directives and the files the newest accepted summary records. Picked line by line
// from that summary's sections and its `## Files` references, long lines cut, the whole
// within STEER_MAX_CHARS, so the agent's own summary carries them across the compaction.
import type { FileReference } from './events.js';
import { summaryText, type JobState, type SummaryTexts } from './jobState.js';
import { filesOwner } from './memory.js';
import { bodyRange, headingKey, structure } from './summaryHeadings.js';
import { referenceSpec } from './summaryParts.js';

/**
 * The most the instructions take: a summary request has its own work to do (and Qwen Code
 * 0.24.4's own code keeps 4,000 characters of a pre-compaction hook's instructions).
 */
export const STEER_MAX_CHARS = 4000;
/** A line longer than this is cut at a word, with an ellipsis. */
export const STEER_LINE_CHARS = 280;

/** Sections that hold decisions and their reasons ("Questions & Decisions", "Key Decisions", "Design Choices"). */
export const DECISIONS = /\bdecisions?\b|\bchoices?\b/i;
/** Sections that hold what the user asked for and insisted on ("User Requests", "User Directives", "Constraints & Preferences", "Corrections & Feedback"). */
export const DIRECTIVES = /\buser\b|\bdirectives?\b|\bconstraints?\b|\bpreferences?\b|\bcorrections?\b/i;

/** The summary whose words steer the compaction: its number, text and gist, and the files named (by it, or by the newest summary that names any). */
export type SteerSource = { seq: number; text: string; gist?: string; files?: { seq: number; refs: readonly FileReference[] } };

type Group = { title: string; items: string[] };

/** The configuration the instructions are made under: the sections a summary has. */
export type SteerConfig = { readonly REQUIRED_SECTIONS: readonly string[] };

/** The newest summary's number: the text steerText needs loaded. */
export function steerSeqs(state: JobState): number[] {
  const newest = state.chain.at(-1);
  return newest === undefined ? [] : [newest.seq];
}

/** The instructions for the job's newest summary, or undefined when there is none or it records nothing to keep. */
export function steerText(state: JobState, texts: SummaryTexts, config: SteerConfig): string | undefined {
  const newest = state.chain.at(-1);
  if (newest === undefined) return undefined;
  const owner = (newest.refs?.length ?? 0) > 0 ? newest : filesOwner(state);
  const files = owner?.refs !== undefined && owner.refs.length > 0 ? { seq: owner.seq, refs: owner.refs } : undefined;
  return compactSteer({ seq: newest.seq, text: summaryText(texts, newest.seq), gist: newest.gist, ...(files ? { files } : {}) }, config);
}

/**
 * The instructions: the summary's decision sections, then its directive sections, then the
 * files, each as its lines; undefined when the summary has none of them.
 */
export function compactSteer(source: SteerSource, config: SteerConfig): string | undefined {
  const sections = sectionLines(source.text, config.REQUIRED_SECTIONS);
  const pick = (what: string, kept: (name: string) => boolean) =>
    sections.filter((s) => kept(s.name) && s.lines.length > 0).map((s) => ({ title: `${what} (its "${s.name}" section):`, items: s.lines }));
  const decisions = pick('The decisions and their reasons', (name) => DECISIONS.test(name));
  const directives = pick("The user's directives", (name) => DIRECTIVES.test(name) && !DECISIONS.test(name));
  const files = source.files
    ? [
        {
          title: `The files ${source.files.seq === source.seq ? 'it' : `summary #${source.files.seq}`} names (read: their lines matter; ref: where to look):`,
          items: source.files.refs.map((ref) => cut(`${ref.mode} ${referenceSpec(ref)} — ${ref.why}`)),
        },
      ]
    : [];
  const groups = [...decisions, ...directives, ...files].filter((g) => g.items.length > 0);
  if (groups.length === 0) return undefined;
  const gist = source.gist === undefined ? '' : ` ("${cut(source.gist)}")`;
  const head =
    `recap: when you summarize this conversation, keep what recap's summary #${source.seq}${gist} records, ` +
    'in its words, even where the conversation says less of it: the work goes on from those decisions, directives and files.';
  return fit(head, groups, source.seq);
}

/**
 * Each required section's lines as the summary wrote them: list markers, heading marks and
 * blank lines dropped, code left out, a long line split into its sentences and a long
 * sentence cut.
 */
function sectionLines(text: string, required: readonly string[]): { name: string; lines: string[] }[] {
  const s = structure(text.split(/\r?\n/));
  return required.map((name) => {
    const at = s.headings.findIndex((h) => h.key === headingKey(name));
    if (at < 0) return { name, lines: [] };
    const { from, to } = bodyRange(s, at);
    const lines: string[] = [];
    for (let i = from; i < to; i += 1) {
      const line = s.lines[i]!.replace(/^\s*(?:[-*+]|\d+[.)]|#{1,6})\s+/, '').trim();
      if (line !== '' && !s.code[i]) lines.push(...sentences(line).map(cut));
    }
    return { name, lines };
  });
}

/** A line too long to keep whole, as its sentences: each can be kept, or cut, on its own. */
function sentences(line: string): string[] {
  return line.length <= STEER_LINE_CHARS ? [line] : line.split(/(?<=[.!?])\s+(?=["'`(]?[A-Z0-9])/);
}

/** A line within STEER_LINE_CHARS, cut at a word. */
function cut(line: string): string {
  const flat = line.replace(/\s+/g, ' ').trim();
  if (flat.length <= STEER_LINE_CHARS) return flat;
  const head = flat.slice(0, STEER_LINE_CHARS - 1);
  const space = head.lastIndexOf(' ');
  return `${space > STEER_LINE_CHARS / 2 ? head.slice(0, space) : head}…`;
}

/**
 * The head and as many lines as fit in STEER_MAX_CHARS, taken a line from each group in
 * turn so that no group crowds out the others; a group that lost lines says how many.
 */
function fit(head: string, groups: Group[], seq: number): string {
  const taken = groups.map(() => 0);
  const render = () =>
    [
      head,
      ...groups.flatMap((g, i) => {
        const n = taken[i]!;
        const left = g.items.length - n;
        const more = left > 0 ? [`- (${left} more in summary #${seq})`] : [];
        return n === 0 ? [] : [`${g.title}\n${[...g.items.slice(0, n).map((item) => `- ${item}`), ...more].join('\n')}`];
      }),
    ].join('\n\n');
  for (let grew = true; grew;) {
    grew = false;
    for (const [i, g] of groups.entries()) {
      if (taken[i]! >= g.items.length) continue;
      taken[i]! += 1;
      if (render().length <= STEER_MAX_CHARS) grew = true;
      else taken[i]! -= 1;
    }
  }
  return render();
}
