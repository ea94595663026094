import { createHash } from 'node:crypto';
import { describe, it, expect } from 'vitest';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { headingKey, NO_EVIDENCE, validateSummary, type Evidence, type SummaryRules } from '../../src/events/summaryValidator.js';
import { concreteTerms } from '../../src/events/summaryGrounding.js';
import { tokenCounter } from '../../src/common/tokenCounter.js';
import { configSchema, DEFAULT_CONFIG, DEFAULT_SECTIONS } from '../../src/events/config.js';
import { readCorpus } from '../helpers/summaryCorpus.js';

// The real counter, as the daemon builds it from the default configuration.
const count = await tokenCounter({ TOKEN_ENCODING: 'o200k_base', TOKEN_WORD_RATIO: 1.3 });
// A counter with obvious numbers: one token per whitespace-separated word.
const words = await tokenCounter({ TOKEN_ENCODING: 'words', TOKEN_WORD_RATIO: 1 });
// An independent count straight from gpt-tokenizer, to check the numbers in messages.
const o200k = (text: string): number => encode(text).length;

const defaults: SummaryRules = {
  REQUIRED_SECTIONS: DEFAULT_CONFIG.REQUIRED_SECTIONS,
  MIN_TOKENS_PER_SECTION: DEFAULT_CONFIG.MIN_TOKENS_PER_SECTION,
  SUMMARY_MIN_TOKENS: DEFAULT_CONFIG.SUMMARY_MIN_TOKENS,
  SUMMARY_MAX_TOKENS: DEFAULT_CONFIG.SUMMARY_MAX_TOKENS,
};

/** Small rules: two sections, two tokens each, a wide band. */
const small: SummaryRules = {
  REQUIRED_SECTIONS: ['Alpha', 'Beta'],
  MIN_TOKENS_PER_SECTION: 2,
  SUMMARY_MIN_TOKENS: 1,
  SUMMARY_MAX_TOKENS: 1000,
};

// Real prose to fill sections with: the genuine corpus's summaries, headings left out (not
// the rollup and the follow-up, which restate others: a passage must not come back), and only
// their plain words (no code, numbers, table cells or dashes), so that a test's text stays prose
// whichever cases the corpus grows by.
const CORPUS_WORDS = readCorpus('genuine')
  .filter((c) => c.rolled.length === 0 && c.earlier.length === 0)
  .flatMap((c) => c.summary.split('\n').filter((line) => !line.startsWith('#')))
  .join(' ')
  .split(/\s+/)
  .filter((word) => /^[A-Za-z][a-z'-]*[.,;:]?$/.test(word));

/** `n` words of genuine, varied prose (about one o200k token each), a different run per seed. */
function prose(n: number, seed = 0): string {
  const start = (seed * 577) % (CORPUS_WORDS.length - n);
  return CORPUS_WORDS.slice(start, start + n).join(' ');
}

/** One word `n` times. */
const repeat = (n: number, word: string): string => Array(n).fill(word).join(' ');

type Part = { heading: string; body: string; level?: number };

function summary(parts: Part[]): string {
  return parts.map((p) => `${'#'.repeat(p.level ?? 2)} ${p.heading}\n\n${p.body}\n`).join('\n');
}

/** A summary that satisfies the default template: five sections of about 70 words each. */
function validDefaultParts(): Part[] {
  return DEFAULT_SECTIONS.map((heading, i) => ({ heading, body: prose(70, i) }));
}

describe('validateSummary', () => {
  describe('a valid summary', () => {
    it('given every required section with enough depth and a total inside the band, when validated, then there are no problems', () => {
      const text = summary(validDefaultParts());
      const result = validateSummary(text, defaults, count);
      expect(result.problems).toEqual([]);
      expect(result.tokens).toBe(count(text));
      expect(result.tokens).toBe(o200k(text));
      expect(result.tokens).toBeGreaterThanOrEqual(200);
      expect(result.tokens).toBeLessThanOrEqual(1000);
    });

    it('given sections written in a different order from the template, when validated, then the tallies come back in template order with real counts', () => {
      const parts = validDefaultParts();
      const shuffled = [parts[4]!, parts[2]!, parts[0]!, parts[3]!, parts[1]!];
      const result = validateSummary(summary(shuffled), defaults, count);
      expect(result.problems).toEqual([]);
      expect(result.sections.map((s) => s.heading)).toEqual(DEFAULT_SECTIONS);
      for (const [i, tally] of result.sections.entries()) {
        expect(tally.tokens).toBe(o200k(parts[i]!.body));
      }
    });

    it('given the simple rules and two short sections, when validated, then the tallies are the word counts of the bodies', () => {
      const text = '## Beta\nthree four five\n\n## Alpha\none two\n';
      const result = validateSummary(text, small, words);
      expect(result.problems).toEqual([]);
      expect(result.sections).toEqual([
        { heading: 'Alpha', tokens: 2 },
        { heading: 'Beta', tokens: 3 },
      ]);
      expect(result.tokens).toBe(9);
    });
  });

  describe('headings', () => {
    it.each([1, 2, 3, 4, 5, 6])('given the required sections as level-%i headings, when validated, then they are found', (level) => {
      const text = `${'#'.repeat(level)} Alpha\none two\n${'#'.repeat(level)} Beta\nthree four\n`;
      const result = validateSummary(text, small, words);
      expect(result.problems).toEqual([]);
      expect(result.sections).toEqual([
        { heading: 'Alpha', tokens: 2 },
        { heading: 'Beta', tokens: 2 },
      ]);
    });

    it('given seven hashes, when validated, then it is not a heading and the section is missing', () => {
      const text = '####### Alpha\none two\n## Beta\nthree four\n';
      expect(validateSummary(text, small, words).problems).toEqual(['missing section: Alpha']);
    });

    it('given no space after the hashes, when validated, then it is not a heading', () => {
      const text = '##Alpha\none two\n## Beta\nthree four\n';
      expect(validateSummary(text, small, words).problems).toEqual(['missing section: Alpha']);
    });

    it('given headings in another case, when validated, then they match case-insensitively', () => {
      const text = summary(validDefaultParts().map((p, i) => ({ ...p, heading: i % 2 ? p.heading.toUpperCase() : p.heading.toLowerCase() })));
      const result = validateSummary(text, defaults, count);
      expect(result.problems).toEqual([]);
      expect(result.sections.map((s) => s.heading)).toEqual(DEFAULT_SECTIONS);
    });

    it('given headings with a trailing colon, when validated, then the colon is ignored', () => {
      const text = summary(validDefaultParts().map((p) => ({ ...p, heading: `${p.heading}:` })));
      expect(validateSummary(text, defaults, count).problems).toEqual([]);
    });

    it('given headings with extra spaces inside, around and before the colon, when validated, then the spaces are ignored', () => {
      const text = summary(validDefaultParts().map((p) => ({ ...p, heading: `  ${p.heading.split(' ').join('   ')}  :  ` })));
      expect(validateSummary(text, defaults, count).problems).toEqual([]);
    });

    it('given headings with closing hashes and up to three leading spaces, when validated, then they are found', () => {
      const text = '   ## Alpha ##\none two\n  ## Beta: ###\nthree four\n';
      expect(validateSummary(text, small, words).problems).toEqual([]);
    });

    it('given a heading indented four spaces (an indented code block), when validated, then it is not a heading', () => {
      const text = '    ## Alpha\none two\n## Beta\nthree four\n';
      expect(validateSummary(text, small, words).problems).toContain('missing section: Alpha');
    });

    it('given a required section written in the rules with a colon and odd case, when validated, then it still matches the plain heading', () => {
      const rules: SummaryRules = { ...small, REQUIRED_SECTIONS: ['alpha:', 'BETA'] };
      const result = validateSummary('## Alpha\none two\n## Beta\nthree four\n', rules, words);
      expect(result.problems).toEqual([]);
      expect(result.sections.map((s) => s.heading)).toEqual(['alpha:', 'BETA']);
    });

    it('given headingKey, when called, then it lower-cases, drops one trailing colon and collapses spaces', () => {
      expect(headingKey('  Design   Choices :  ')).toBe('design choices');
      expect(headingKey('Questions & Decisions:')).toBe('questions & decisions');
      expect(headingKey('Current\tState')).toBe('current state');
    });
  });

  describe('missing and duplicate sections', () => {
    it('given no Design Choices heading, when validated, then the problem is exactly "missing section: Design Choices"', () => {
      const parts = validDefaultParts().filter((p) => p.heading !== 'Design Choices');
      const result = validateSummary(summary(parts), defaults, count);
      expect(result.problems).toEqual(['missing section: Design Choices']);
      expect(result.sections.map((s) => s.heading)).toEqual(DEFAULT_SECTIONS.filter((h) => h !== 'Design Choices'));
    });

    it('given the words "Design Choices" only in a paragraph, when validated, then the section is still missing', () => {
      const parts = validDefaultParts().filter((p) => p.heading !== 'Design Choices');
      parts[0] = { ...parts[0]!, body: `${parts[0]!.body}\nDesign Choices: none yet.` };
      expect(validateSummary(summary(parts), defaults, count).problems).toEqual(['missing section: Design Choices']);
    });

    it('given a section twice, when validated, then the duplicate is reported and the section is not tallied', () => {
      const text = '## Alpha\none two\n## Beta\nthree four\n## alpha:\nfive six\n';
      const result = validateSummary(text, small, words);
      expect(result.problems).toEqual(['section Alpha appears 2 times; keep exactly one']);
      expect(result.sections).toEqual([{ heading: 'Beta', tokens: 2 }]);
    });

    it('given a section three times, when validated, then the count is in the message', () => {
      const text = '## Alpha\none two\n## Alpha\none two\n# ALPHA\none two\n## Beta\nthree four\n';
      expect(validateSummary(text, small, words).problems).toEqual(['section Alpha appears 3 times; keep exactly one']);
    });

    it('given an empty text, when validated, then that is its one problem, naming the sections to write', () => {
      const result = validateSummary(' \n', defaults, count);
      expect(result.problems).toEqual([`the summary is empty: write its sections (${DEFAULT_SECTIONS.map((h) => `## ${h}`).join(', ')})`]);
      expect(result.tokens).toBe(0);
      expect(result.sections).toEqual([]);
    });
  });

  describe('the depth floor', () => {
    it('given a thin section, when validated, then "<Heading> has N tokens; at least M needed" carries the real count', () => {
      const parts = validDefaultParts();
      const thin = 'Kept the socket at 0600.';
      parts[2] = { heading: 'Design Choices', body: thin };
      const n = o200k(thin);
      expect(n).toBeGreaterThan(0);
      expect(n).toBeLessThan(50);
      const result = validateSummary(summary(parts), defaults, count);
      expect(result.problems).toEqual([`Design Choices has ${n} tokens; at least 50 needed`]);
      expect(result.sections[2]).toEqual({ heading: 'Design Choices', tokens: n });
    });

    it('given an empty section, when validated, then it has 0 tokens', () => {
      const text = '## Alpha\n\n## Beta\nthree four\n';
      expect(validateSummary(text, small, words).problems).toEqual(['Alpha has 0 tokens; at least 2 needed']);
    });

    it('given a section exactly at the floor, when validated, then it passes', () => {
      const rules: SummaryRules = { ...small, MIN_TOKENS_PER_SECTION: 3 };
      const text = '## Alpha\none two three\n## Beta\nfour five six\n';
      expect(validateSummary(text, rules, words).problems).toEqual([]);
      const below = '## Alpha\none two\n## Beta\nfour five six\n';
      expect(validateSummary(below, rules, words).problems).toEqual(['Alpha has 2 tokens; at least 3 needed']);
    });

    it('given the heading line itself, when the section is counted, then the heading is not part of the body', () => {
      const text = '## Alpha with many words in the heading\none\n## Beta\nthree four\n';
      const rules: SummaryRules = { ...small, REQUIRED_SECTIONS: ['Alpha with many words in the heading', 'Beta'] };
      expect(validateSummary(text, rules, words).sections[0]).toEqual({ heading: 'Alpha with many words in the heading', tokens: 1 });
    });

    it('given a ### subsection under a required ## section, when validated, then its text counts toward that section', () => {
      const text = '## Alpha\none\n### Details\ntwo three four\n## Beta\nfive six\n';
      const result = validateSummary(text, { ...small, MIN_TOKENS_PER_SECTION: 4 }, words);
      // Alpha's body: "one", "### Details" (2 words), "two three four" = 6 words.
      expect(result.sections[0]).toEqual({ heading: 'Alpha', tokens: 6 });
      expect(result.problems).toEqual(['Beta has 2 tokens; at least 4 needed']);
    });

    it('given a subsection under a required section with the real counter, when validated, then the tally is the count of the whole body', () => {
      const parts = validDefaultParts();
      const body = `${prose(20, 3)}\n\n### Socket\n\n${prose(20, 4)}\n\n#### Permissions\n\n${prose(20, 5)}`;
      parts[2] = { heading: 'Design Choices', body };
      const result = validateSummary(summary(parts), defaults, count);
      expect(result.problems).toEqual([]);
      expect(result.sections[2]).toEqual({ heading: 'Design Choices', tokens: o200k(body) });
    });

    it('given a non-required ## section after a required one, when validated, then the required body stops there', () => {
      const text = '## Alpha\none\n## Notes\ntwo three four five\n## Beta\nsix seven\n';
      const result = validateSummary(text, small, words);
      expect(result.sections[0]).toEqual({ heading: 'Alpha', tokens: 1 });
      expect(result.problems).toEqual(['Alpha has 1 tokens; at least 2 needed']);
    });
  });

  describe('the total band', () => {
    it('given a summary shorter than SUMMARY_MIN_TOKENS, when validated, then "total N tokens; must be MIN to MAX"', () => {
      const rules: SummaryRules = { ...small, MIN_TOKENS_PER_SECTION: 0, SUMMARY_MIN_TOKENS: 200, SUMMARY_MAX_TOKENS: 1000 };
      const text = '## Alpha\nShort.\n## Beta\nAlso short.\n';
      const n = o200k(text);
      const result = validateSummary(text, rules, count);
      expect(result.tokens).toBe(n);
      expect(result.problems).toEqual([`total ${n} tokens; must be 200 to 1000`]);
    });

    it('given a summary longer than SUMMARY_MAX_TOKENS, when validated, then "total N tokens; must be MIN to MAX"', () => {
      const parts = validDefaultParts();
      parts[0] = { ...parts[0]!, body: prose(1200, 5) }; // a run of the corpus none of the other sections uses
      const text = summary(parts);
      const n = o200k(text);
      expect(n).toBeGreaterThan(1000);
      expect(validateSummary(text, defaults, count).problems).toEqual([`total ${n} tokens; must be 200 to 1000`]);
    });

    it('given totals at exactly the bounds, when validated, then both bounds are inclusive', () => {
      const text = '## Alpha\none two\n## Beta\nthree four\n'; // 8 words
      expect(validateSummary(text, { ...small, SUMMARY_MIN_TOKENS: 8, SUMMARY_MAX_TOKENS: 8 }, words).problems).toEqual([]);
      expect(validateSummary(text, { ...small, SUMMARY_MIN_TOKENS: 9, SUMMARY_MAX_TOKENS: 20 }, words).problems).toEqual(['total 8 tokens; must be 9 to 20']);
      expect(validateSummary(text, { ...small, SUMMARY_MIN_TOKENS: 1, SUMMARY_MAX_TOKENS: 7 }, words).problems).toEqual(['total 8 tokens; must be 1 to 7']);
    });

    it('given the total, when counted, then it is the whole text including headings', () => {
      const text = '## Alpha\none two\n## Beta\nthree four\n';
      expect(validateSummary(text, small, words).tokens).toBe(8);
      expect(validateSummary(text, small, count).tokens).toBe(o200k(text));
    });
  });

  describe('every problem at once', () => {
    it('given a missing section, a duplicate, a thin section and a short total, when validated, then all of them are listed in template order then the total', () => {
      const text = ['## User Requests', 'Add a gate.', '## Questions & Decisions', 'None.', '## Questions & Decisions', 'Still none.', '## Current State', 'Done.'].join('\n');
      const result = validateSummary(text, defaults, count);
      expect(result.problems).toEqual([
        `User Requests has ${o200k('Add a gate.')} tokens; at least 50 needed`,
        'section Questions & Decisions appears 2 times; keep exactly one',
        'missing section: Design Choices',
        'missing section: Corrections & Feedback',
        `Current State has ${o200k('Done.')} tokens; at least 50 needed`,
        `total ${o200k(text)} tokens; must be 200 to 1000`,
      ]);
      expect(result.sections.map((s) => s.heading)).toEqual(['User Requests', 'Current State']);
    });

    it('given the simple rules with several faults, when validated, then each fault is its own problem', () => {
      const rules: SummaryRules = { REQUIRED_SECTIONS: ['A', 'B', 'C'], MIN_TOKENS_PER_SECTION: 3, SUMMARY_MIN_TOKENS: 50, SUMMARY_MAX_TOKENS: 60 };
      const text = '## A\nx\n## B\n1 2 3\n## B\n4 5 6\n';
      expect(validateSummary(text, rules, words).problems).toEqual([
        'A has 1 tokens; at least 3 needed',
        'section B appears 2 times; keep exactly one',
        'missing section: C',
        'total 13 tokens; must be 50 to 60',
      ]);
    });
  });

  describe('fenced code blocks', () => {
    it('given a required heading only inside a ``` block, when validated, then it is not a heading', () => {
      const text = '## Alpha\none two\n```markdown\n## Beta\nthree four\n```\n';
      expect(validateSummary(text, small, words).problems).toEqual(['missing section: Beta']);
    });

    it('given a duplicate heading inside a ~~~ block, when validated, then it is not a duplicate', () => {
      const text = '## Alpha\none two\n~~~\n## Alpha\n~~~\n## Beta\nthree four\n';
      const result = validateSummary(text, small, words);
      expect(result.problems).toEqual([]);
      // The fence and its contents belong to Alpha's body: one two ~~~ ## Alpha ~~~ = 6 words.
      expect(result.sections[0]).toEqual({ heading: 'Alpha', tokens: 6 });
    });

    it('given a ``` block containing a ~~~ line, when validated, then the ~~~ does not close it', () => {
      const text = '## Alpha\none two\n```\n~~~\n## Beta\n~~~\n```\n';
      expect(validateSummary(text, small, words).problems).toEqual(['missing section: Beta']);
    });

    it('given a four-backtick fence containing a three-backtick line, when validated, then the shorter line does not close it', () => {
      const text = '## Alpha\none two\n````\n```\n## Beta\n```\n````\n';
      expect(validateSummary(text, small, words).problems).toEqual(['missing section: Beta']);
    });

    it('given a heading after the fence closes, when validated, then it is a heading again', () => {
      const text = '## Alpha\none two\n```\n# not a heading\n```\n## Beta\nthree four\n';
      expect(validateSummary(text, small, words).problems).toEqual([]);
    });

    it('given a ``` line with an info string inside an open ``` block, when validated, then it does not close the block', () => {
      const text = '## Alpha\none two\n```\nexample:\n```md\n## Beta\nthree four\n```\n';
      expect(validateSummary(text, small, words).problems).toEqual(['missing section: Beta']);
    });

    it('given an unclosed fence, when validated, then nothing after it is a heading', () => {
      const text = '## Alpha\none two\n```\n## Beta\nthree four\n';
      expect(validateSummary(text, small, words).problems).toEqual(['missing section: Beta']);
    });

    it('given the real counter and a code block of headings in Current State, when validated, then the code counts as body', () => {
      const parts = validDefaultParts();
      const body = `${prose(60, 9)}\n\n\`\`\`md\n## User Requests\n## Design Choices\n\`\`\``;
      parts[4] = { heading: 'Current State', body };
      const result = validateSummary(summary(parts), defaults, count);
      expect(result.problems).toEqual([]);
      expect(result.sections[4]).toEqual({ heading: 'Current State', tokens: o200k(body) });
    });
  });

  describe('extra sections', () => {
    it('given non-required sections before, between and after, when validated, then they are allowed', () => {
      const parts = validDefaultParts();
      const text = summary([
        { heading: 'Overview', body: 'Context.', level: 1 },
        ...parts.slice(0, 2),
        { heading: 'Open Questions', body: 'None.' },
        ...parts.slice(2),
        { heading: 'Appendix', body: 'Links.' },
      ]);
      const result = validateSummary(text, defaults, count);
      expect(result.problems).toEqual([]);
      expect(result.sections.map((s) => s.heading)).toEqual(DEFAULT_SECTIONS);
    });
  });

  describe('line endings', () => {
    it('given CRLF line endings, when validated, then headings are found as with LF', () => {
      const text = '## Alpha:\r\none two\r\n## Beta\r\nthree four\r\n';
      expect(validateSummary(text, small, words).problems).toEqual([]);
    });
  });
});

describe('what does not count as a heading or a section', () => {
  it('given a required heading inside an HTML comment, when validated, then the section is missing', () => {
    const text = '## Alpha\none two\n<!-- ## Beta -->\nthree four\n';
    expect(validateSummary(text, small, words).problems).toEqual(['missing section: Beta']);
  });

  it('given required headings inside a comment over several lines, when validated, then none of them counts', () => {
    const text = '## Alpha\none two\n<!--\n## Beta\nthree four\n-->\n';
    expect(validateSummary(text, small, words).problems).toEqual(['missing section: Beta']);
  });

  it('given an unclosed comment, when validated, then everything after it is hidden', () => {
    const text = '## Alpha\none two\n<!-- hidden\n## Beta\nthree four\n';
    expect(validateSummary(text, small, words).problems).toEqual(['missing section: Beta']);
  });

  it('given words only in a comment, when a section is counted, then they do not reach the floor', () => {
    const text = '## Alpha\none <!-- two three four five six -->\n## Beta\nthree four\n';
    const result = validateSummary(text, { ...small, MIN_TOKENS_PER_SECTION: 2 }, words);
    expect(result.sections[0]).toEqual({ heading: 'Alpha', tokens: 1 });
    expect(result.problems).toEqual(['Alpha has 1 tokens; at least 2 needed']);
  });

  it('given a required heading nested under another required one, when validated, then it is not its own section and the parent counts its text once', () => {
    const text = '## Alpha\none\n### Beta\ntwo three four\n';
    const result = validateSummary(text, small, words);
    expect(result.problems).toEqual([
      'section Beta is nested inside Alpha (a level-3 heading under a level-2 one), so it is part of that section, not one of its own: give it the same level as Alpha',
    ]);
    // Alpha's body: "one", "### Beta" (2 words), "two three four": counted once, in Alpha.
    expect(result.sections).toEqual([{ heading: 'Alpha', tokens: 6 }]);
  });

  it('given every required section as a level-2 heading under a level-1 title, when validated, then they all count', () => {
    const text = '# Summary of the window\n## Alpha\none two\n## Beta\nthree four\n';
    expect(validateSummary(text, small, words).problems).toEqual([]);
  });

  it('given the issue\'s 213 tokens of "blah" behind nested headings, when validated, then the nesting and the filler are both named', () => {
    const blah = repeat(40, 'blah');
    const text = DEFAULT_SECTIONS.map((s, i) => `${i === 0 ? '##' : '###'} ${s}\n${blah}`).join('\n');
    const { problems } = validateSummary(text, defaults, count);
    expect(problems).toContain(
      'section Questions & Decisions is nested inside User Requests (a level-3 heading under a level-2 one), so it is part of that section, not one of its own: give it the same level as User Requests',
    );
    expect(problems).toContainEqual(expect.stringMatching(/^User Requests is filler text \(\d+% of its words are lorem ipsum/));
  });
});

describe('what is not prose', () => {
  const withSection = (body: string, at = 2): string => summary(validDefaultParts().map((p, i) => (i === at ? { ...p, body } : p)));

  it('given one word over and over, when validated, then the section "repeats the same words" with its counts', () => {
    expect(validateSummary(withSection(repeat(60, 'parser')), defaults, count).problems).toEqual([
      'Design Choices repeats the same words (1 distinct among 60): say each thing once, in your own words',
    ]);
  });

  it('given one sentence four times, when validated, then the section repeats itself', () => {
    const sentence = 'The user asked for a parser that reads the configuration file and reports each error with its line.';
    const { problems } = validateSummary(withSection(Array(4).fill(sentence).join(' ')), defaults, count);
    expect(problems).toEqual([expect.stringMatching(/^Design Choices repeats the same words \(17 distinct among 72\)/)]);
  });

  it('given a run of one character long enough for the floor, when validated, then it is caught by how well it compresses', () => {
    const { problems } = validateSummary(withSection('a'.repeat(400)), defaults, count);
    expect(problems).toEqual([expect.stringMatching(/^Design Choices repeats itself: it compresses to \d+% of its size where prose stays above 33%/)]);
  });

  it('given lorem ipsum, when validated, then the section is filler text', () => {
    const lorem =
      'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat.';
    expect(validateSummary(withSection(lorem), defaults, count).problems).toContainEqual(expect.stringMatching(/^Design Choices is filler text/));
  });

  it('given a section that mentions lorem ipsum once in real prose, when validated, then it passes', () => {
    const body = `${prose(50, 12)} The mock-ups still showed lorem ipsum placeholders, which the designer replaced with real copy.`;
    expect(validateSummary(withSection(body), defaults, count).problems).toEqual([]);
  });

  it('given keyboard mash, when validated, then the section does not read as words', () => {
    const mash =
      'asdkfjh qwpeoiru zmxncbv lkjhgfds poiuytr mnbvcxz qwrtpsdf gfhjkl zxcvbnm asdfghjkl qwertyuiop lkjsdf oiwuer xcvbnm plmkjn sdfghj wertyu zxcvb dfghjk rtyuio cvbnm fghjkl tyuiop vbnm asdfg hjkl';
    expect(validateSummary(withSection(mash), defaults, count).problems).toContainEqual(
      expect.stringMatching(/^Design Choices does not read as words \(\d+% of them cannot be pronounced\)/),
    );
  });

  it('given keyboard mash typed as three-letter words, when validated, then the section does not read as words', () => {
    const mash = 'sdf jkl hjk dfg xcv bnm wrt zxc cvb vbn ghj fgh klj lkj qwr mnb rtz gfd hgf jhg nbv vcx zxv xcb dfh fjk sdg tph pls';
    expect(validateSummary(withSection(`${mash} ${mash.split(' ').reverse().join(' ')}`), defaults, count).problems).toContainEqual(
      expect.stringMatching(/^Design Choices does not read as words \(\d+% of them cannot be pronounced\)/),
    );
  });

  it('given Go pasted without a fence, when validated, then the section is mostly code', () => {
    const go = [
      'func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {',
      '\tvar schedule backupv1.BackupSchedule',
      '\tif err := r.Get(ctx, req.NamespacedName, &schedule); err != nil {',
      '\t\treturn ctrl.Result{}, client.IgnoreNotFound(err)',
      '\t}',
      '\tnext, err := cron.ParseStandard(schedule.Spec.Schedule)',
      '\tif err != nil {',
      '\t\treturn ctrl.Result{}, err',
      '\t}',
      '\treturn ctrl.Result{RequeueAfter: next.Next(r.Clock.Now()).Sub(r.Clock.Now())}, nil',
      '}',
    ].join('\n');
    expect(validateSummary(withSection(go), defaults, count).problems).toEqual([expect.stringMatching(/^Design Choices is mostly code \(\d+% of its words\)/)]);
  });

  it('given a paragraph on one line that mentions == and && and ends with a bracket, when validated, then it is prose, not code', () => {
    const body = `${prose(50, 9)} The reader compares keys with == and joins the checks with && before it returns (as before) {`;
    expect(validateSummary(withSection(body), defaults, count).problems).toEqual([]);
  });

  it('given a section that is a code block, when validated, then it is mostly code; a short snippet beside prose passes', () => {
    const code = ['```ts', ...Array.from({ length: 12 }, (_, i) => `const value${i} = compute(input[${i}], { retries: ${i} });`), '```'].join('\n');
    expect(validateSummary(withSection(code), defaults, count).problems).toEqual([expect.stringMatching(/^Design Choices is mostly code \(\d+% of its words\)/)]);
    const snippet = `${prose(60, 11)}\n\n\`\`\`ts\nconst limit = 30_000;\n\`\`\``;
    expect(validateSummary(withSection(snippet), defaults, count).problems).toEqual([]);
  });

  it('given a base64 blob, when validated, then the section is data, not words', () => {
    // Random-looking bytes, the same at every run: sha256 digests of the numbers.
    const blob = Buffer.concat(Array.from({ length: 8 }, (_, i) => createHash('sha256').update(String(i)).digest())).toString('base64');
    expect(validateSummary(withSection(blob.match(/.{1,76}/g)!.join('\n')), defaults, count).problems).toEqual([
      'Design Choices is data, not words (100% of its tokens are encoded data, hex, bare numbers or made-up words): say in sentences what happened, and name a hash or an identifier only where it matters',
    ]);
  });

  it('given a hex dump, when validated, then the section is data, not words', () => {
    const dump = Array.from({ length: 6 }, (_, row) => {
      const bytes = Array.from({ length: 16 }, (_, i) => ((row * 16 + i) * 37 + 11) % 256);
      return `${(row * 16).toString(16).padStart(8, '0')}  ${bytes.map((b) => b.toString(16).padStart(2, '0')).join(' ')}`;
    }).join('\n');
    expect(validateSummary(withSection(dump), defaults, count).problems).toEqual([expect.stringMatching(/^Design Choices is data, not words \(\d+% of its tokens/)]);
  });

  it('given random-case strings with a real word every few tokens, when validated, then the section is data, not words', () => {
    const noise = ['xK9fQ2mZ', 'pL3vR8tW', 'qZ7nB2cX', 'mW4yH9sJ', 'rT6gK1dV'];
    const body = Array.from({ length: 40 }, (_, i) => (i % 4 === 0 ? prose(1, i) : noise[i % noise.length])).join(' ');
    expect(validateSummary(withSection(body), defaults, count).problems).toEqual([expect.stringMatching(/^Design Choices is data, not words/)]);
  });

  it('given rows of punctuation, when validated, then the section is punctuation and symbols, not words', () => {
    const rows = ['... --- !!! ;;; ***', '-- -- -- -- -- --', '. . . . . . . .', '=== +++ ~~~ ??? :::'].join('\n');
    expect(validateSummary(withSection(`${rows}\n${rows}\n${rows}`), defaults, count).problems).toEqual([
      'Design Choices is punctuation and symbols, not words (100% of its tokens have no letter or digit): write the section in sentences',
    ]);
  });

  it('given one sentence padded to the floor with rows of empty table cells, when validated, then the section is punctuation and symbols, not words', () => {
    const body = `${prose(14, 3)}\n\n${'|   |   |   |   |   |   |\n'.repeat(12)}`;
    expect(validateSummary(withSection(body), defaults, count).problems).toEqual([
      expect.stringMatching(/^Design Choices is punctuation and symbols, not words \(\d+% of its tokens have no letter or digit\)/),
    ]);
  });

  it('given emoji and symbols with a few words among them, when validated, then the section is punctuation and symbols, not words', () => {
    const body = '🚀 ✨ done 🔥 💯 ✅ ⭐ fixed 🎉 👍 → ★ ☆ shipped ♦ ■ □ ▲ 🙌 💪 ✅ ✅ tests 🟢 🟢 🟡 🔴 ⚡ 🧩'.repeat(2);
    expect(validateSummary(withSection(body), defaults, count).problems).toEqual([
      expect.stringMatching(/^Design Choices is punctuation and symbols, not words \(\d+% of its tokens have no letter or digit\)/),
    ]);
  });

  it('given prose naming a git sha, a sha256, URLs, versions, flags, inline code and a table, when validated, then it passes', () => {
    const body = [
      `${prose(30, 14)} The fix landed in 3f9c2e1 and v2.4.1 ships it; the tarball's sha256 is e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855.`,
      'See https://github.com/example/recap/issues/412 and run `npm pack --dry-run --json` before tagging, with `--max-warnings 0` for eslint.',
      '',
      '| Flag | Default | Meaning |',
      '| --- | --- | --- |',
      '| `--only` | all | deploy one chart from charts/*/Chart.yaml |',
      '| `--dry-run` | off | print each kubectl and helm command |',
    ].join('\n');
    expect(validateSummary(withSection(body), defaults, count).problems).toEqual([]);
  });

  it('given a sentence and a table of timings, when validated, then it passes', () => {
    const rows = ['parse', 'validate', 'ground', 'copy check', 'total'].map((step, i) => `| ${step} | ${12 + i * 3}.4 ms | ${9 + i * 2}.8 ms | -${10 + i}% |`);
    const body = [prose(25, 15), '', '| Step | Before | After | Change |', '| --- | --- | --- | --- |', ...rows].join('\n');
    expect(validateSummary(withSection(body), defaults, count).problems).toEqual([]);
  });

  it('given the same paragraph in two sections, when validated, then the passage is named as repeated', () => {
    const parts = validDefaultParts();
    parts[3] = { ...parts[3]!, body: parts[1]!.body };
    expect(validateSummary(summary(parts), defaults, count).problems).toEqual([
      expect.stringMatching(/^the same passage appears in more than one section \(\d+% of the summary repeats an earlier section\)/),
    ]);
  });
});

describe('copying and resubmission', () => {
  const text = summary(validDefaultParts());
  const evidence = (over: Partial<Evidence>): Evidence => ({ ...NO_EVIDENCE, ...over });

  it('given a section pasted from an interaction, when validated, then that section is copied from the interactions', () => {
    const pasted = validDefaultParts()[0]!.body;
    const { problems } = validateSummary(text, defaults, count, evidence({ material: [`Please do this. ${pasted} Thanks.`] }));
    expect(problems).toEqual(['User Requests is copied from the interactions (100% of it word for word): say what they amount to, in your own words']);
  });

  it('given a paste far larger than the material read, when validated, then a section copied from its start is still caught', () => {
    const pasted = validDefaultParts()[1]!.body;
    const huge = `${pasted}\n${'filler line of a log file that goes on\n'.repeat(500_000)}`;
    expect(huge.length).toBeGreaterThan(10_000_000);
    const { problems } = validateSummary(text, defaults, count, evidence({ material: [huge] }));
    expect(problems).toEqual([expect.stringMatching(/^Questions & Decisions is copied from the interactions/)]);
  });

  it('given an interaction that shares a phrase or two with the summary, when validated, then it passes', () => {
    const phrase = validDefaultParts()[2]!.body.split(' ').slice(5, 15).join(' ');
    expect(validateSummary(text, defaults, count, evidence({ material: [`About this: ${phrase}.`] })).problems).toEqual([]);
  });

  it('given an earlier summary of the job with a few words changed, when validated, then it names that summary', () => {
    const earlier = text.replace(/\bthe\b/g, 'a').replace(/\band\b/g, 'plus');
    const { problems } = validateSummary(
      text,
      defaults,
      count,
      evidence({
        earlier: [
          { seq: 41, text: 'unrelated words here' },
          { seq: 42, text: earlier },
        ],
      }),
    );
    expect(problems).toEqual([expect.stringMatching(/^this summary repeats summary #42 \(\d+% of its text is the same\): summarize what happened since then/)]);
  });

  it('given an earlier summary resubmitted with zero-width spaces inside its words, when validated, then it names that summary', () => {
    const hidden = text
      .split('\n')
      .map((line) => (line.startsWith('#') ? line : line.replace(/(\p{L}{2})(\p{L}{2,})/gu, '$1\u200b$2')))
      .join('\n');
    const { problems } = validateSummary(hidden, defaults, count, evidence({ earlier: [{ seq: 42, text }] }));
    expect(problems).toEqual([expect.stringMatching(/^this summary repeats summary #42 \(\d+% of its text is the same\)/)]);
  });

  it('given earlier summaries about other things, when validated, then it passes', () => {
    const other = summary(DEFAULT_SECTIONS.map((heading, i) => ({ heading, body: prose(70, i + 7) })));
    expect(validateSummary(text, defaults, count, evidence({ earlier: [{ seq: 3, text: other }] })).problems).toEqual([]);
  });
});

describe('grounding', () => {
  const material = [
    'In src/net/fetchWithBackoff.ts cap the delay at 30 seconds and stop after 7 attempts; extend test/net/backoff.test.ts.',
    'Ask Priya whether the p95 panel should read metrics/http_server.go or the access log.',
  ];
  const generic = summary(validDefaultParts());

  it('given a summary that names nothing the window named, when validated, then it is told which things to name', () => {
    const { problems } = validateSummary(generic, defaults, count, { ...NO_EVIDENCE, material });
    expect(problems).toEqual([
      expect.stringMatching(
        /^the summary names 0 of the \d+ concrete things in the interactions \(at least 1 needed\): say which files, identifiers, names and numbers the work was about, e\.g\. src\/net\/fetchwithbackoff\.ts/,
      ),
    ]);
  });

  it('given a summary naming a file by its base name, when validated, then it is grounded', () => {
    const grounded = generic.replace('## Current State\n\n', '## Current State\n\nThe cap in fetchWithBackoff.ts is next. ');
    expect(validateSummary(grounded, defaults, count, { ...NO_EVIDENCE, material }).problems).toEqual([]);
  });

  it('given SUMMARY_GROUNDING=off, when validated, then the ungrounded summary passes', () => {
    expect(validateSummary(generic, { ...defaults, SUMMARY_GROUNDING: 'off' }, count, { ...NO_EVIDENCE, material }).problems).toEqual([]);
  });

  it('given the configuration, then SUMMARY_GROUNDING is on by default and only on or off', () => {
    expect(DEFAULT_CONFIG.SUMMARY_GROUNDING).toBe('on');
    expect(configSchema.parse({ SUMMARY_GROUNDING: 'off' }).SUMMARY_GROUNDING).toBe('off');
    expect(configSchema.safeParse({ SUMMARY_GROUNDING: 'maybe' }).success).toBe(false);
  });

  it('given a window with nothing concrete, when validated, then any summary is grounded', () => {
    const plain = ['please make the errors clearer', 'and keep the old behaviour for now'];
    expect(validateSummary(generic, defaults, count, { ...NO_EVIDENCE, material: plain }).problems).toEqual([]);
  });

  it('given headings, when the window is read for concrete things, then section names are not among them', () => {
    expect(concreteTerms('## User Requests\nThe user wants a parser, said Dana.\n## Design Choices\nNone yet.')).toEqual(['dana']);
  });

  // A pasted blob once made the path pattern backtrack in the square of its length: a 2 MB
  // window held the daemon for minutes (this test then times out).
  it('given a window holding a 2 MB blob, when read for concrete things, then the blob names nothing and the rest still counts', () => {
    const blob = 'q'.repeat(2_000_000);
    expect(concreteTerms(`See src/net/retry.ts and ${blob} then fetchWithBackoff.`)).toEqual(['src/net/retry.ts', 'fetchwithbackoff']);
  });
});
