// Sections a profile requires as repeatable entries: PROFILE=support's Questions Answered
// (### Q: with its answer) and Decisions (- decision — reason), checked by the validator,
// and shown in the template as the form to write.
import { describe, expect, it } from 'vitest';
import { configSchema, PROFILES } from '../../src/events/config.js';
import { summaryTemplate } from '../../src/events/gateMessages.js';
import { validateSummary } from '../../src/events/summaryValidator.js';
import { tokenCounter } from '../../src/common/tokenCounter.js';
import { validSummary } from '../helpers/spec.js';

const count = await tokenCounter({ TOKEN_ENCODING: 'words', TOKEN_WORD_RATIO: 1 });
const support = configSchema.parse({ PROFILE: 'support', TOKEN_ENCODING: 'words', TOKEN_WORD_RATIO: 1, SUMMARY_GROUNDING: 'off' });
const SECTIONS = [...PROFILES.support];

/** A support summary whose named sections hold `bodies`, the rest plain prose. */
function summary(bodies: Record<string, string>): string {
  let text = validSummary(60, SECTIONS);
  for (const [section, body] of Object.entries(bodies)) text = text.replace(new RegExp(`## ${section}\\n[^\\n]*`), () => `## ${section}\n${body}`);
  return text;
}

const prose = validSummary(60, ['x']).split('\n').at(-1)!;
const QA = `### Q: Why does the export stop at 10,000 rows?\nThe export pages through the API and stopped at its default limit; raising the page size fixed it.\n${prose}`;
const DECISIONS = `- Raise the page size to 500 — the API allows it and it cuts the calls by five\n${prose}`;
const problemsOf = (text: string) => validateSummary(text, support, count).problems.filter((p) => /Questions Answered|Decisions/.test(p));

describe('a section required as entries', () => {
  it('with its entries well-formed passes', () => {
    expect(problemsOf(summary({ 'Questions Answered': QA, Decisions: DECISIONS }))).toEqual([]);
  });

  it('holding prose only is refused, with the form it expects', () => {
    expect(problemsOf(summary({ Decisions: DECISIONS }))).toEqual([
      'Questions Answered holds 0 answered questions; at least 1 needed, each as ### Q: <question> with its answer on the lines under it',
    ]);
    expect(problemsOf(summary({ 'Questions Answered': QA }))).toEqual(['Decisions holds 0 decisions with a reason; at least 1 needed, each as - <decision> — <reason>']);
  });

  it('refuses a question with no answer under it, naming the question', () => {
    const text = summary({ 'Questions Answered': `${QA}\n### Q: Can we keep CSV?\n<!-- later -->\n`, Decisions: DECISIONS });
    expect(problemsOf(text)).toEqual([
      'Questions Answered: the question "Can we keep CSV?" has no answer under it; write each as ### Q: <question> with its answer on the lines under it',
    ]);
  });

  it('refuses a decision listed without its reason, naming it', () => {
    const text = summary({ 'Questions Answered': QA, Decisions: `${DECISIONS}\n- Keep CSV as the format` });
    expect(problemsOf(text)).toEqual(['Decisions: the decision "- Keep CSV as the format" has no reason; write each as - <decision> — <reason>']);
  });

  it('names three bad entries and counts the rest', () => {
    const bad = Array.from({ length: 5 }, (_, i) => `- Decision ${i} without reason`).join('\n');
    const problems = problemsOf(summary({ 'Questions Answered': QA, Decisions: `${DECISIONS}\n${bad}` }));
    expect(problems).toHaveLength(4);
    expect(problems[3]).toBe('Decisions: 2 more decisions like these');
  });

  it('is not asked of another profile’s sections of the same name', () => {
    const config = configSchema.parse({ REQUIRED_SECTIONS: SECTIONS, TOKEN_ENCODING: 'words', TOKEN_WORD_RATIO: 1, SUMMARY_GROUNDING: 'off' });
    expect(validateSummary(summary({}), config, count).problems.filter((p) => /Questions Answered|Decisions/.test(p))).toEqual([]);
  });

  it('shows its form in the template', () => {
    const template = summaryTemplate(support, '/bin/recap');
    expect(template).toContain('## Questions Answered\n### Q: <question>\n<its answer>');
    expect(template).toContain('## Decisions\n- <decision> — <reason>');
  });
});
