// Checks a submitted summary against the template: every required section exactly once as
// a markdown heading, a depth floor per section, and the total inside the token band.
// Every problem is reported at once, each phrased as what to change.
import type { Config } from './config.js';
import type { SectionTally } from './events.js';
import type { TokenCounter } from './tokens.js';

export type SummaryRules = Pick<
  Config,
  'REQUIRED_SECTIONS' | 'MIN_TOKENS_PER_SECTION' | 'SUMMARY_MIN_TOKENS' | 'SUMMARY_MAX_TOKENS'
> &
  Partial<Pick<Config, 'SECTION_MAX_TOKENS'>>;

export type Validation = {
  problems: string[];
  tokens: number;
  /** The required sections found, in template order, with their token counts. */
  sections: SectionTally[];
};

type Heading = { level: number; key: string; line: number };

const ATX_HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/** Heading text compared case-insensitively, with a trailing colon and extra spaces ignored. */
export function headingKey(text: string): string {
  return text.trim().replace(/:$/, '').trim().replace(/\s+/g, ' ').toLowerCase();
}

function headings(lines: string[]): Heading[] {
  const found: Heading[] = [];
  let fence: string | undefined;
  lines.forEach((line, index) => {
    const fenceMatch = FENCE.exec(line);
    if (fenceMatch?.[1]) {
      const marker = fenceMatch[1];
      const info = fenceMatch[2]?.trim() ?? '';
      if (fence === undefined) fence = marker;
      // A closing fence has no info string (CommonMark); "```md" inside a block is text.
      else if (marker[0] === fence[0] && marker.length >= fence.length && info === '') fence = undefined;
      return;
    }
    if (fence !== undefined) return;
    const match = ATX_HEADING.exec(line);
    if (match?.[1] && match[2] !== undefined) found.push({ level: match[1].length, key: headingKey(match[2]), line: index });
  });
  return found;
}

/** The body of a heading: the lines up to the next heading at the same or a higher level. */
function sectionBody(lines: string[], all: Heading[], at: number): string {
  const heading = all[at]!;
  const next = all.slice(at + 1).find((h) => h.level <= heading.level);
  return lines.slice(heading.line + 1, next?.line ?? lines.length).join('\n').trim();
}

export function validateSummary(text: string, rules: SummaryRules, count: TokenCounter): Validation {
  const lines = text.split(/\r?\n/);
  const all = headings(lines);
  const tokens = count(text);
  const problems: string[] = [];
  const sections: SectionTally[] = [];

  for (const heading of rules.REQUIRED_SECTIONS) {
    const key = headingKey(heading);
    const matches = all.flatMap((h, i) => (h.key === key ? [i] : []));
    if (matches.length === 0) {
      problems.push(`missing section: ${heading}`);
      continue;
    }
    if (matches.length > 1) {
      problems.push(`section ${heading} appears ${matches.length} times; keep exactly one`);
      continue;
    }
    const sectionTokens = count(sectionBody(lines, all, matches[0]!));
    sections.push({ heading, tokens: sectionTokens });
    if (sectionTokens < rules.MIN_TOKENS_PER_SECTION) {
      problems.push(`${heading} has ${sectionTokens} tokens; at least ${rules.MIN_TOKENS_PER_SECTION} needed`);
    }
    const cap = rules.SECTION_MAX_TOKENS ?? 0;
    if (cap > 0 && sectionTokens > cap) problems.push(`${heading} has ${sectionTokens} tokens; at most ${cap} allowed`);
  }

  if (tokens < rules.SUMMARY_MIN_TOKENS || tokens > rules.SUMMARY_MAX_TOKENS) {
    problems.push(`total ${tokens} tokens; must be ${rules.SUMMARY_MIN_TOKENS} to ${rules.SUMMARY_MAX_TOKENS}`);
  }
  return { problems, tokens, sections };
}
