// Texts with realistic token counts for integration tests (o200k_base).
import { DEFAULT_SECTIONS } from '../../src/events/config.js';

const SENTENCE = 'The user asked for a parser that reads the configuration file and reports each error with its line. ';

/** About 20 tokens per sentence. */
export const prose = (sentences: number): string => SENTENCE.repeat(sentences).trim();

/** A summary that passes the default template: each section about 80 tokens, 400 in all. */
export function goodSummary(sections: readonly string[] = DEFAULT_SECTIONS): string {
  return sections.map((s) => `## ${s}\n${prose(4)}`).join('\n\n');
}
