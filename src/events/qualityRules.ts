// The rules behind the memory quality signals (qualitySignals.ts), each a pure test of one
// thing a session did against what a summary held: a first call that looked up a file the
// summary named (rediscovery), a question to the user the chain already answered
// (re-asked), an early prompt that set the agent right about the summary's subject
// (correction). docs/memory.md says how each is computed and what it cannot see.
import { basename, isAbsolute, join, normalize } from 'node:path/posix';
import { DECISIONS, DIRECTIVES } from './compactSteer.js';
import { decisionsIn, isListItem } from './decisionLog.js';
import type { FileReference, SampledCall } from './eventParts.js';
import { segmentMatches } from './glob.js';
import { bodyRange, structure } from './summaryHeadings.js';

/** Programs whose shell command only reads or finds the files it names. */
const READING_PROGRAMS = new Set(['cat', 'head', 'tail', 'less', 'more', 'bat', 'grep', 'rg', 'ag', 'find', 'ls', 'wc', 'nl', 'sed', 'awk', 'fd']);

/** A path in a summary's prose: at least one folder and a file with an extension, or a file name with a known extension. */
const TEXT_PATH =
  /(?:\.{0,2}\/)?(?:[\w@.-]+\/)+[\w@.-]*\w\.\w{1,8}\b|\b[\w-]+\.(?:ts|tsx|js|jsx|mjs|cjs|json|md|py|rs|go|java|kt|rb|c|h|cc|cpp|hpp|cs|swift|sh|yml|yaml|toml|conf|sql|css|html|vue)\b/g;

/**
 * The files a summary names, as it would be looked up: its `## Files` references joined to the
 * project folder they are relative to, and each path its text spells (absolute when it is, or
 * joined to the project folder, else kept relative and matched as the end of a path).
 */
export function namedFiles(text: string, refs: readonly Pick<FileReference, 'path'>[] | undefined, root: string | undefined): string[] {
  const place = (path: string) => normalize(isAbsolute(path) || root === undefined ? path : join(root, path));
  const found = new Set((refs ?? []).map((ref) => place(ref.path)));
  for (const match of text.match(TEXT_PATH) ?? []) found.add(match.includes('/') ? place(match.replace(/^\.\//, '')) : match);
  return [...found];
}

/** Whether an absolute path is the named file: the same path, or a relative name it ends with. */
const isFile = (path: string, file: string) => path === file || (!isAbsolute(file) && path.endsWith(`/${file}`));

/** A glob names a file when its last part matches the file's name and says more of it than an extension (`gate*.ts`, not `*.ts`). */
function globNames(glob: string, file: string): boolean {
  const last = glob.split('/').at(-1) ?? '';
  const literal = last.replace(/[*?[\]{}]/g, '');
  if (literal === '' || /^\.\w+$/.test(literal)) return false;
  return segmentMatches(last, basename(file));
}

/** Whether the call only looks things up: a read, a search, or a shell command of a reading program. */
export const looksUp = (call: SampledCall): boolean =>
  call.kind === 'read' || call.kind === 'search' || (call.kind === 'shell' && call.program !== undefined && READING_PROGRAMS.has(call.program));

/** The named files the calls looked up, each once, in the order first looked up. */
export function rediscovered(calls: readonly SampledCall[], files: readonly string[]): string[] {
  const found = new Set<string>();
  for (const call of calls) {
    if (!looksUp(call)) continue;
    for (const file of files) {
      if (call.paths.some((p) => isFile(p, file)) || (call.glob !== undefined && globNames(call.glob, file))) found.add(file);
    }
  }
  return [...found];
}

/** Words that say nothing of a subject: left out of every overlap. */
const STOP = new Set(
  (
    'the and for are but not you your with this that these those from have has had was were will would should could can may might must ' +
    'what which who whom when where why how all any some each our ours out use used using into onto over under than then them they ' +
    "their there here its it’s it's also just only very more most much many such been being does did done doing let lets get got make " +
    'made want like need one two yes about after before again because between both same other should shall while well way per via'
  ).split(' '),
);

/** The words of a text that carry its subject: lowercased, three letters or more, no stop word. */
export function subjectWords(text: string): Set<string> {
  const words = text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
  return new Set(words.filter((w) => w.length >= 3 && !STOP.has(w)));
}

const shared = (a: ReadonlySet<string>, b: ReadonlySet<string>): number => {
  let n = 0;
  for (const word of a) if (b.has(word)) n += 1;
  return n;
};

/** An answer the chain holds: a decision and its reason, or a line of a directives section. */
export type HeldAnswer = { text: string; words: Set<string> };

const HEADING_TEXT = /^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;

/** The answers a summary's text holds: its decision lines, and the list items of its directive sections (as compactSteer.ts tells them). */
export function heldAnswers(text: string): HeldAnswer[] {
  const answers = decisionsIn(text).map((d) => `${d.decision} — ${d.reason}`);
  const s = structure(text.split(/\r?\n/));
  s.headings.forEach((heading, at) => {
    const name = HEADING_TEXT.exec(s.lines[heading.line] ?? '')?.[1] ?? '';
    if (!DIRECTIVES.test(name) || DECISIONS.test(name)) return;
    const { from, to } = bodyRange(s, at);
    for (let i = from; i < to; i += 1) if (!s.code[i] && isListItem(s.lines[i] ?? '')) answers.push((s.lines[i] ?? '').replace(/^\s*(?:[-*+]|\d+[.)])\s+/, '').trim());
  });
  return answers.map((a) => ({ text: a, words: subjectWords(a) }));
}

/** The questions of a `qa` interaction (`Q: question` lines, the answers left out); a text without them is one question. */
export function questionsOf(qa: string): string[] {
  const asked = [...qa.matchAll(/^Q:\s*(.+)$/gm)].map((m) => m[1]!.trim());
  return asked.length > 0 ? asked : [qa.trim()];
}

/** Shared subject words a question needs with an answer, at least, and the share of its own subject words they must be. */
export const REASKED_MIN_WORDS = 2;
export const REASKED_MIN_SHARE = 0.5;

/** The held answer a question asks again: the one sharing the most subject words, if it shares at least two and half of the question's. */
export function answerHeld(question: string, answers: readonly HeldAnswer[]): HeldAnswer | undefined {
  const words = subjectWords(question);
  let best: { answer: HeldAnswer; n: number } | undefined;
  for (const answer of answers) {
    const n = shared(words, answer.words);
    if (n >= REASKED_MIN_WORDS && n >= words.size * REASKED_MIN_SHARE && n > (best?.n ?? 0)) best = { answer, n };
  }
  return best?.answer;
}

/** How a user sets the agent right: a denial at the start, or words that say something is not so. */
const CORRECTION_CUE =
  /^\s*(?:no|nope|wrong|actually|not quite)\b|\b(?:that's|that is|this is|it's|it is|you're|you are) (?:wrong|not right|incorrect|not true|not what)|\b(?:incorrect|mistaken|not true|we don't|we do not|we never|we decided|we agreed|i said|i told you|as i said|instead of|rather than|no longer)\b/i;

/** The early prompts that may correct a summary: the first ones of a session. */
export const EARLY_PROMPTS = 3;
/** Subject words a correcting prompt must share with the summary's text. */
export const CORRECTION_MIN_WORDS = 2;

/** Whether a prompt corrects the agent about the summary's subject: a correction cue, and at least two subject words of the summary. */
export function corrects(prompt: string, summaryWords: ReadonlySet<string>): boolean {
  return CORRECTION_CUE.test(prompt) && shared(subjectWords(prompt), summaryWords) >= CORRECTION_MIN_WORDS;
}
