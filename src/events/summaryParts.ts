// The parts of a submitted summary besides its required sections: the `Gist:` line before
// the first heading (one line, objective and outcome; it counts toward the band like any
// text before the sections), and the optional `## Files` section, whose lines name files for
// the next session: `- read PATH[:START-END] — why` hands it the file's current contents,
// `- ref PATH — why` its name and the reason. The Files section counts toward neither the
// band nor the floors: it is judged by its own rules (references.ts).
import { detached } from './detached.js';
import { headingKey, structure } from './summaryHeadings.js';

/** A `## Files` line as written: the path as given (relative to the project, or absolute). */
export type ParsedReference = { mode: 'read' | 'ref'; path: string; start?: number; end?: number; why: string };

export type SummaryParts = {
  /** The `Gist:` line's text, if the summary has one before its first heading. */
  gist?: string;
  /** The text without the Files section: what the template, band and floors judge. */
  body: string;
  references: ParsedReference[];
  /** What is wrong with the Files section's lines, each said as what to write. */
  problems: string[];
};

export const FILES_HEADING = 'Files';
const FILES_KEY = headingKey(FILES_HEADING);

const GIST = /^\s*(?:[*_]{1,2})?gist(?:[*_]{1,2})?\s*:(?:[*_]{1,2})?\s*(.*)$/i;
/** `- read PATH[:START-END] — why`; the path may be in backticks, the dash an em or en dash, `--`, `-` or a colon. */
const REFERENCE = /^\s*[-*+]\s+(read|ref)\s+(`[^`]+`|\S+?)(?::\s+|\s+(?:—|–|--|-|:)\s*|\s*$)(.*)$/i;
const RANGE = /^(.*?):(\d+)(?:-(\d+))?$/;

export const REFERENCE_FORMS = '`- read PATH[:START-END] — why` or `- ref PATH — why`';

/** The most files one summary may name: each is looked up on the disk before the summary is judged. */
export const MAX_REFERENCES = 50;
/** The most characters of a reference's reason. */
const MAX_WHY_CHARS = 200;

export function summaryParts(text: string, required: readonly string[]): SummaryParts {
  const raw = text.split(/\r?\n/);
  const s = structure(raw);
  const first = s.headings[0]?.line ?? s.lines.length;
  const gistAt = s.lines.slice(0, first).findIndex((line, i) => !s.code[i] && GIST.test(line));
  const gist = gistAt < 0 ? undefined : detached(GIST.exec(s.lines[gistAt]!)![1]!.trim());
  // The Files section is one the template does not require (a profile may name its own Files).
  const requiredKeys = new Set(required.map(headingKey));
  const files = requiredKeys.has(FILES_KEY) ? [] : s.headings.filter((h) => h.key === FILES_KEY);
  if (files.length === 0) return { ...(gist !== undefined ? { gist } : {}), body: text, references: [], problems: [] };
  const problems = files.length > 1 ? [`section ${FILES_HEADING} appears ${files.length} times; keep exactly one`] : [];
  const at = files[0]!;
  const next = s.headings.find((h) => h.line > at.line && h.level <= at.level);
  const to = next?.line ?? raw.length;
  const references: ParsedReference[] = [];
  for (let i = at.line + 1; i < to; i += 1) {
    const line = s.lines[i]!;
    if (line.trim() === '') continue;
    const parsed = s.code[i] ? undefined : parseReference(line);
    if (typeof parsed === 'object') references.push({ ...parsed, path: detached(parsed.path), why: detached(parsed.why) });
    else problems.push(`${FILES_HEADING} line "${clip(line.trim())}" ${parsed ?? 'is inside a code block'}: write each line as ${REFERENCE_FORMS}`);
  }
  if (references.length > MAX_REFERENCES) problems.push(`${FILES_HEADING} names ${references.length} files; at most ${MAX_REFERENCES}: keep the ones the next session needs`);
  const long = references.filter((r) => r.why.length > MAX_WHY_CHARS);
  if (long.length > 0)
    problems.push(
      `${FILES_HEADING} gives ${long.map((r) => referenceSpec(r)).join(', ')} a reason of more than ${MAX_WHY_CHARS} characters: say why in a few words; the sections say the rest`,
    );
  const body = [...raw.slice(0, at.line), ...raw.slice(to)].join('\n').trimEnd();
  return { ...(gist !== undefined ? { gist } : {}), body, references, problems };
}

/** The reference a line names, or what is wrong with it. */
function parseReference(line: string): ParsedReference | string {
  const match = REFERENCE.exec(line);
  if (!match) return 'is not a reference';
  const [, mode, spelled, why] = match as unknown as [string, string, string, string];
  const unquoted = spelled.startsWith('`') ? spelled.slice(1, -1).trim() : spelled;
  if (why.trim() === '') return 'gives no reason after its path';
  const range = RANGE.exec(unquoted);
  const lower = mode.toLowerCase() as 'read' | 'ref';
  if (range === null) return { mode: lower, path: unquoted, why: why.trim() };
  const start = Number(range[2]);
  const end = range[3] === undefined ? start : Number(range[3]);
  if (lower === 'ref') return 'gives a line range to a ref, which hands over the name only (use read for lines)';
  return { mode: lower, path: range[1]!, start, end, why: why.trim() };
}

/** How a reference is written: its path and range as the summary gave them. */
export function referenceSpec(ref: { path: string; start?: number; end?: number }): string {
  return ref.start === undefined ? ref.path : `${ref.path}:${ref.start}-${ref.end ?? ref.start}`;
}

const clip = (line: string) => (line.length > 80 ? `${line.slice(0, 77)}...` : line);
