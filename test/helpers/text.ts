// Texts with realistic token counts for integration tests (o200k_base), and summaries of
// them that pass the validator: varied, grounded in what was recorded, and different from
// one round to the next, as a real agent's summaries are.
import { DEFAULT_SECTIONS } from '../../src/events/config.js';

const SENTENCE = 'The user asked for a parser that reads the configuration file and reports each error with its line. ';

/** What the tests record: about 20 tokens per sentence. */
export const prose = (sentences: number): string => SENTENCE.repeat(sentences).trim();

/**
 * Sentences of a summary of the work prose() asks for, each saying something of its own
 * (no run of eight words appears twice), about 20 tokens each.
 */
const NOTES = [
  'The user asked for a parser that reads the configuration file and reports each error with its line.',
  'Errors must name the file, the line and the key, so a person can jump straight to the mistake.',
  'An unclosed quote used to abort reading with a bare exception and no position at all.',
  'Duplicate keys are accepted, but the second assignment now produces a warning that points back to the first.',
  'We agreed that warnings never change the exit status of the check command; only real errors do.',
  'Parsing happens in one pure function, so the daemon and the command line always judge a file alike.',
  'Line numbers start at one, matching what editors and compilers show beside the source.',
  'Values may be quoted with single or double quotes, and a backslash escapes the next character.',
  'Comments start with a hash outside quotes and run to the end of their line.',
  'Arrays use the bash syntax with parentheses, which existing config files from the shell prototype already contain.',
  'The reader never executes anything: substitutions are read as data, whatever the file asks for.',
  'A default written as dollar, brace, name, colon, dash is honoured, with the environment taking precedence.',
  'Unknown keys are errors rather than warnings, because a typo would otherwise silently keep the old behaviour.',
  'Out-of-range numbers report the allowed range next to the offending value.',
  'The user corrected an early draft that printed stack traces; those belong in debug output only.',
  'The user also rejected stopping at the first problem: every problem in a file is reported in one pass.',
  'Messages follow the compiler convention of path, line, column and text, so terminals make them clickable.',
  'A test file with one mistake per line proves that each message carries the right position.',
  'Another test feeds an empty file and expects the defaults with no warnings at all.',
  'Reading stays fast enough to run on every daemon reload, even for files with hundreds of lines.',
  'Windows line endings are accepted, and a trailing carriage return is never part of a value.',
  'Tabs and spaces around the equals sign are refused, as in the shell, with a hint on how to fix it.',
  'Keys are case-sensitive, and the message for a wrongly cased key suggests the correct spelling.',
  'The last good configuration stays in force when a reload finds errors, so a typo cannot open the gate.',
  'A project file overrides the user file key by key, and each value remembers where it came from.',
  'The show command prints every value beside its source, which makes overrides easy to trace.',
  'Decision: keep the legacy names from the prototype so that old files keep working unchanged.',
  'Design choice: one schema describes every key, and both validation and documentation are derived from it.',
  'Feedback from the user: the hint for an unclosed quote should show the column where the quote opened.',
  'Current state: the tokenizer tracks columns, and the unclosed-quote message now points at the opening quote.',
  'Still open is whether a missing project file should be mentioned in the status output or stay silent.',
  'Nothing in the parser touches the disk; the caller reads the file and passes its text in.',
  'The check command accepts a path, so an edited copy can be validated before it replaces the active file.',
  'An unreadable path gives exit code one and a sentence naming the path and the reason.',
  'We chose not to support includes, since they would make the approval of project files much harder to reason about.',
  'Byte order marks at the start of a file are skipped instead of becoming part of the first key.',
  'Very long lines are still parsed, but their values are cut in messages to keep the output readable.',
  'The tests run against the real files shipped in the examples folder as well as hand-written fixtures.',
  'Each warning has a stable code, which lets scripts filter them without matching on the wording.',
  'Reviewers asked for the grammar to be written down; the readme now has a short section describing it.',
  'The user pointed out that numbers with underscores were rejected, and the parser now accepts them.',
  'Empty values are allowed and mean an empty string, except for numeric keys where they are errors.',
  'The schema rejects a minimum that exceeds its maximum and names both keys in one message.',
  'Next step: run the new reader over a collection of real user configs to look for regressions.',
  'After that, the old parser and its special cases can be deleted along with their tests.',
  'Performance was measured on a file of ten thousand lines; reading it takes a few milliseconds.',
  'The daemon logs which file and line caused a rejected reload, so the user can find it later.',
  'We kept error objects plain data, which makes them easy to send over the socket to the client.',
  'A question came up about environment variables with empty values; they count as set, as in bash.',
  'The user preferred explicit messages over clever recovery, so the reader never guesses what was meant.',
  'Quoted values keep their inner spaces exactly, which matters for section names that contain several words.',
  'The command line shows at most twenty problems and says how many more were found.',
  'Each problem is one line on standard error, while the summary count goes to standard output.',
  'Exit codes follow the documented contract: zero for success, two for rejection, one for other failures.',
  'The work so far touched the reader, the schema and the check command, and nothing else.',
  'Documentation for every key now lists its default, its range and a one-line explanation.',
  'The user wants a changelog entry describing the stricter handling of unknown keys.',
  'A migration note tells people how to find and fix keys that the old parser silently ignored.',
  'Code review found an off-by-one in column counting for tabs, which is fixed with a dedicated test.',
  'We confirmed with the user that comments after a value on the same line are allowed.',
  'The parser returns assignments in file order, so later tools can rewrite a file without reordering it.',
  'Remaining risk: unusual quoting in hand-edited files might still produce confusing positions.',
  'To reduce it, the error text quotes the offending line with a caret under the failing column.',
  'All parser tests pass locally, and the integration suite will run them against the daemon next.',
  'The user wanted the parser to keep working when the config folder is a symbolic link to a dotfiles repository.',
  'Relative paths inside values are resolved against the folder of the file that contains them.',
  'A value that looks like a number but is quoted stays a string, exactly as the shell would treat it.',
  'Section names with an ampersand in them are quoted in the examples so that shells do not misread them.',
  'We discussed a markup format as an alternative and dropped it, because existing users already have shell-style files.',
  'Readers of the error output are often tired people at night, so every message says what to do next.',
  'A short glossary in the documentation explains the difference between the user file and a project file.',
  'Upgrading from the prototype needs no manual steps, which the release notes state in their first line.',
  'The integration test starts a real daemon, writes a broken file, sends a reload and reads the log.',
  'Approval of a changed project file is recorded with the hash of its contents and the time.',
  'Values that make the gate stricter apply immediately, while values that loosen it wait for approval.',
  'Parsing a file twice yields identical results, which a property test checks with random inputs.',
  'Random inputs found a crash on a lone backslash at the end of the file; it is now a clear error.',
  'The maximum file size is one megabyte, well above any real configuration, to bound the work per reload.',
  'Binary garbage in a file produces a single message about encoding instead of hundreds of parse errors.',
  'Unicode in its common eight-bit form is required; other encodings are reported once with a suggestion to convert the file.',
  'Keys and values are trimmed of surrounding blanks only where bash itself would ignore them.',
  'The user asked for colour in terminal output, limited to the position prefix and disabled when piped.',
  'An environment variable turns colour off for people whose terminals render escape codes badly.',
  'Every example in the documentation is executed by a test, so examples cannot drift from the parser.',
  'We noticed that the status command did not mention a pending approval, and it now does.',
  'The doctor command runs the same check as the config command and adds advice for common mistakes.',
  'Two users reported confusing messages for arrays missing their closing parenthesis; the text names the opening line now.',
  'Messages avoid jargon such as token or lexer, using words like value, quote and line instead.',
  'Internally the tokenizer and the assignment reader are separate, which kept each under a hundred lines.',
  'Error positions for multi-line arrays point to the element at fault rather than the start of the array.',
  'The schema check runs after parsing, so a syntax error and a range error in one file are both reported.',
  'Warnings and errors are sorted by line, which keeps the output stable between runs.',
  'A snapshot test pins the exact text of the twenty most common messages against accidental rewording.',
  'Translations were considered and postponed; the message catalogue makes them possible later.',
  'The reload path reuses the parsed result when the file did not change, saving work on frequent signals.',
  'Change detection compares a hash of the contents rather than timestamps, which editors sometimes preserve.',
  'The user confirmed that a missing user file is normal and must never produce a warning.',
  'Defaults live in the schema only, so the documentation table and the code cannot disagree.',
  'Our last open item is a short screencast for the release, showing a typo caught and fixed.',
  'The branch is ready for review once the changelog and the migration note are written.',
];

/** `count` sentences of NOTES from `from` on, wrapping around: distinct while count <= NOTES.length. */
export function notes(count: number, from = 0): string {
  return Array.from({ length: count }, (_, k) => NOTES[(from + k) % NOTES.length]!).join(' ');
}

/** How many distinct sentences there are: summaries drawn from disjoint ranges never repeat each other. */
export const NOTE_COUNT = NOTES.length;

/**
 * A summary of prose()'s request that passes the default template: three sentences per
 * section (about 60 tokens), 300 to 400 in all. Each round is a different text: four
 * consecutive rounds share no sentence, so a job's newest summaries never repeat each other.
 */
export function goodSummary(sections: readonly string[] = DEFAULT_SECTIONS, round = 0): string {
  const per = 3;
  // Its own words, not one of the sentences: those may be in the summaries a rollup rolls up.
  const gist = `Gist: round ${round} of the config parser work, where its error reports stand and what is next\n\n`;
  return gist + sections.map((s, i) => `## ${s}\n${notes(per, (round * sections.length + i) * per)}`).join('\n\n');
}
