// A section a profile requires as repeatable entries (profiles.ts EntryRule), not just prose:
// Q&A pairs (`### Q: <question>` with its answer under it) or decisions (`- <decision> —
// <reason>`). It must hold at least the rule's number of well-formed entries, and an entry
// begun must be finished: a question needs its answer, a decision its reason.
import { decisionLine, isListItem } from './decisionLog.js';
import type { EntryRule } from './profiles.js';
import { bodyRange, structure } from './summaryHeadings.js';

/** How many malformed entries a message names before it counts the rest. */
const NAMED = 3;
const QUESTION = /^ {0,3}#{1,6}[ \t]+Q:[ \t]*(.*?)(?:[ \t]+#+)?[ \t]*$/i;
const WORDLIKE = /[\p{L}\p{N}]/u;

/** Each form as the messages describe it. */
const FORM: Record<EntryRule['form'], { form: string; one: string; many: string; entries: string }> = {
  qa: { form: '### Q: <question> with its answer on the lines under it', one: 'answered question', many: 'answered questions', entries: 'questions' },
  decision: { form: '- <decision> — <reason>', one: 'decision with a reason', many: 'decisions with a reason', entries: 'decisions' },
};

const quoted = (text: string): string => JSON.stringify(text.length > 60 ? `${text.slice(0, 59)}…` : text);

/** What is wrong with a section's entries under its rule (none: it holds enough, each well-formed). `lines`: the section's body. */
export function entryProblems(heading: string, lines: readonly string[], rule: EntryRule): string[] {
  const { good, bad } = rule.form === 'qa' ? questions(lines) : decisions(lines);
  const { form, one, many, entries } = FORM[rule.form];
  const problems = bad.slice(0, NAMED).map((b) => `${heading}: ${b}; write each as ${form}`);
  if (bad.length > NAMED) problems.push(`${heading}: ${bad.length - NAMED} more ${entries} like these`);
  if (good < rule.min) problems.push(`${heading} holds ${good === 1 ? `one ${one}` : `${good} ${many}`}; at least ${rule.min} needed, each as ${form}`);
  return problems;
}

type Tally = { good: number; bad: string[] };

/** The `### Q:` headings of the section and whether each has its question and an answer under it. */
function questions(lines: readonly string[]): Tally {
  const s = structure([...lines]);
  const tally: Tally = { good: 0, bad: [] };
  s.headings.forEach((h, at) => {
    const question = QUESTION.exec(s.lines[h.line]!)?.[1];
    if (question === undefined) return;
    const { from, to } = bodyRange(s, at);
    const answer = s.lines.slice(from, to).join('\n');
    if (!WORDLIKE.test(question)) tally.bad.push('a Q: heading has no question');
    else if (!WORDLIKE.test(answer)) tally.bad.push(`the question ${quoted(question)} has no answer under it`);
    else tally.good += 1;
  });
  return tally;
}

/** The section's decision lines: a list item must be one, with its reason; a prose line in the form counts too. */
function decisions(lines: readonly string[]): Tally {
  const s = structure([...lines]);
  const headingLines = new Set(s.headings.map((h) => h.line));
  const tally: Tally = { good: 0, bad: [] };
  s.lines.forEach((line, i) => {
    if (s.code[i] || headingLines.has(i) || !WORDLIKE.test(line)) return;
    if (decisionLine(line)) tally.good += 1;
    else if (isListItem(line)) tally.bad.push(`the decision ${quoted(line.trim())} has no reason`);
  });
  return tally;
}
