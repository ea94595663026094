// Checks a submitted summary: the template (every required section exactly once as a real
// markdown heading, not nested in another, a depth floor per section, the entries a profile
// requires of a section, the total inside the token band), then that it is a summary at all (prose, not repetition, filler, data or
// punctuation; its own words, not the interactions pasted back or an earlier summary again;
// about this window).
// Every problem is reported at once, each phrased as what to change.
import type { Config } from './config.js';
import type { SectionTally } from './events.js';
import { bodyRange, enclosing, headingKey, structure, type Structure } from './summaryHeadings.js';
import { copiedFrom, materialShingles, sameAsEarlier, type Shingles } from './summaryCopying.js';
import { gistProblems } from './gist.js';
import { ungrounded } from './summaryGrounding.js';
import { entryRule } from './profiles.js';
import { entryProblems } from './summaryEntries.js';
import { repetitionAcross, sectionQuality } from './summaryQuality.js';
import { checkVerbatim, NO_QUOTE_SOURCES, type QuoteSources } from './summaryQuotes.js';
import type { TokenCounter } from './tokens.js';

export { headingKey } from './summaryHeadings.js';

export type SummaryRules = Pick<Config, 'REQUIRED_SECTIONS' | 'MIN_TOKENS_PER_SECTION' | 'SUMMARY_MIN_TOKENS' | 'SUMMARY_MAX_TOKENS'> &
  Partial<Pick<Config, 'SECTION_MAX_TOKENS' | 'SUMMARY_GROUNDING' | 'VERBATIM_SECTIONS' | 'PROFILE'>>;

/** What the summary is checked against besides itself. */
export type Evidence = {
  /** The texts it summarizes: the window's interactions, or the summaries a rollup rolls up. */
  material: readonly string[];
  /** What the material is, in messages: "interactions" or "summaries rolled up". */
  what: string;
  /** Earlier accepted summaries of the job (the newest few), oldest first. */
  earlier: readonly { seq: number; text: string }[];
  /** What a verbatim section may quote: the user's prompts of the window (none: every quote is refused). */
  quotes?: QuoteSources;
};

export const NO_EVIDENCE: Evidence = { material: [], what: 'interactions', earlier: [] };

export type Validation = {
  problems: string[];
  tokens: number;
  /** The required sections found, in template order, with their token counts. */
  sections: SectionTally[];
};

/** `own`: a verbatim section's lines with its quotes taken out, what the copy check judges of it. */
type Found = { heading: string; body: string; lines: string[]; code: boolean[]; from: number; own?: string[] };

/** Each required section's heading index, or the problem that keeps it from counting. */
function locate(s: Structure, required: readonly string[]): (number | string)[] {
  const keys = required.map(headingKey);
  const matches = keys.map((key) => s.headings.flatMap((h, i) => (h.key === key ? [i] : [])));
  // A duplicated section is reported as such; only a section found once can hold others.
  const sections = matches.flatMap((m) => (m.length === 1 ? m : []));
  return required.map((heading, r) => {
    const found = matches[r]!;
    if (found.length === 0) return `missing section: ${heading}`;
    if (found.length > 1) return `section ${heading} appears ${found.length} times; keep exactly one`;
    const at = found[0]!;
    const parent = enclosing(s, at, sections);
    if (parent === undefined) return at;
    const outer = s.headings[parent]!;
    const parentName = required[matches.findIndex((m) => m.includes(parent))]!;
    return (
      `section ${heading} is nested inside ${parentName} (a level-${s.headings[at]!.level} heading under a level-${outer.level} one), ` +
      `so it is part of that section, not one of its own: give it the same level as ${parentName}`
    );
  });
}

/**
 * `gist`: the agent's Gist line to check with the rest (its text, absent when the summary has
 * none); left out, no gist is asked for (GIST=recap, or a caller judging sections only).
 */
export function validateSummary(text: string, rules: SummaryRules, count: TokenCounter, evidence: Evidence = NO_EVIDENCE, gist?: { text: string | undefined }): Validation {
  // Nothing at all is one problem, not one per section.
  if (text.trim() === '') return { problems: [`the summary is empty: write its sections (${rules.REQUIRED_SECTIONS.map((h) => `## ${h}`).join(', ')})`], tokens: 0, sections: [] };
  const s = structure(text.split(/\r?\n/));
  const tokens = count(text);
  const problems: string[] = [];
  const sections: SectionTally[] = [];
  const found: Found[] = [];
  const verbatim = new Set((rules.VERBATIM_SECTIONS ?? []).map(headingKey));
  const quotable = evidence.quotes ? { ...evidence.quotes, texts: bounded(evidence.quotes.texts) } : NO_QUOTE_SOURCES;

  locate(s, rules.REQUIRED_SECTIONS).forEach((at, r) => {
    const heading = rules.REQUIRED_SECTIONS[r]!;
    if (typeof at === 'string') {
      problems.push(at);
      return;
    }
    const { from, to } = bodyRange(s, at);
    const lines = s.lines.slice(from, to);
    const body = lines.join('\n').trim();
    const sectionTokens = count(body);
    const code = s.code.slice(from, to);
    const quoted = verbatim.has(headingKey(heading)) ? checkVerbatim(heading, lines, code, quotable) : undefined;
    sections.push({ heading, tokens: sectionTokens });
    found.push({ heading, body, lines, code, from, ...(quoted ? { own: quoted.own } : {}) });
    if (quoted) problems.push(...quoted.problems);
    // A section the profile requires as entries (Q&A pairs, decisions) must hold them.
    const entries = entryRule(rules.PROFILE, heading);
    if (entries) problems.push(...entryProblems(heading, lines, entries));
    // The user's words are as long as the user made them: one real quote meets the floor.
    if (sectionTokens < rules.MIN_TOKENS_PER_SECTION && !(quoted !== undefined && quoted.real > 0)) {
      problems.push(`${heading} has ${sectionTokens} tokens; at least ${rules.MIN_TOKENS_PER_SECTION} needed`);
    }
    const cap = rules.SECTION_MAX_TOKENS ?? 0;
    if (cap > 0 && sectionTokens > cap) problems.push(`${heading} has ${sectionTokens} tokens; at most ${cap} allowed`);
  });

  if (tokens < rules.SUMMARY_MIN_TOKENS || tokens > rules.SUMMARY_MAX_TOKENS) {
    problems.push(`total ${tokens} tokens; must be ${rules.SUMMARY_MIN_TOKENS} to ${rules.SUMMARY_MAX_TOKENS}`);
  }
  problems.push(...substance(s.lines.join('\n'), found, rules, evidence, gist === undefined ? undefined : (copied) => gistProblems(gist.text, count, copied)));
  return { problems, tokens, sections };
}

/** The most characters of material read: a window can hold pasted files of any size. */
const MATERIAL_BUDGET = 2_000_000;

/** The newest material within the budget, oldest first, a text too large for it cut to its two ends. */
function bounded(material: readonly string[]): string[] {
  const kept: string[] = [];
  let left = MATERIAL_BUDGET;
  for (let i = material.length - 1; i >= 0 && left > 0; i -= 1) {
    const text = material[i]!;
    const half = Math.floor(left / 2);
    kept.push(text.length <= left ? text : `${text.slice(0, half)}\n${text.slice(-half)}`);
    left -= Math.min(text.length, left);
  }
  return kept.reverse();
}

/** Whether the text is a summary of this window at all, beyond its shape. */
function substance(visible: string, found: Found[], rules: SummaryRules, evidence: Evidence, gist?: (copied: Shingles) => string[]): string[] {
  const problems = found.flatMap((f) => sectionQuality(f.heading, f.lines, f.code) ?? []);
  const repeated = repetitionAcross(found.map((f) => f.body));
  if (repeated) problems.push(repeated);
  const material = bounded(evidence.material);
  // The user's words quoted in a verbatim section are not the agent's to have copied.
  const own = visible.split('\n');
  for (const f of found) if (f.own) own.splice(f.from, f.own.length, ...f.own);
  const ownText = own.join('\n');
  const copied = materialShingles(ownText, material);
  if (gist) problems.unshift(...gist(copied));
  const bodies = found.map((f) => (f.own ? { heading: f.heading, body: f.own.join('\n').trim(), quoting: true } : f));
  problems.push(...copiedFrom(bodies, ownText, copied, evidence.what));
  const same = sameAsEarlier(visible, evidence.earlier);
  if (same) problems.push(same);
  if ((rules.SUMMARY_GROUNDING ?? 'on') === 'on') {
    const loose = ungrounded(visible, material, evidence.what);
    if (loose) problems.push(loose);
  }
  return problems;
}
