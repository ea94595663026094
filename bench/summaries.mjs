// The summaries the benchmarks' logs are made with: the real decider accepts them, and each
// round's is its own text (a summary that repeats an earlier one is rejected, and a job whose
// summaries are all rejected stays tripped: its log would hold nothing but denials).

/** What the benchmarks' prompts ask for: the summaries below are about the same work. */
export const PROMPT = 'Please make the parser report every error with its line and key, and keep going after the first one. ';

/**
 * The summary of round `n` under `sections`: a number every few words, so no run of words
 * repeats an earlier round's, on the prompts' own subject.
 */
export function roundSummary(sections, n) {
  return sections
    .map((s, i) => {
      // Numbers of four or five digits: longer ones would make the text compress like repetition.
      const k = 1000 + (n % 800) * 100 + i * 7;
      return `## ${s}\n${[0, 1, 2]
        .map(
          (j) =>
            `Round ${k + j} of the parser work covered ${k + j + 3} errors, ${k + j + 5} lines and ${k + j + 9} keys in ${k + j + 11} files, reported with ${k + j + 13} line numbers after the first one.`,
        )
        .join(' ')}`;
    })
    .join('\n\n');
}
