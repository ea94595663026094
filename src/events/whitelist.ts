// What a Bash command may be while the gate is tripped: exactly one recap command that
// reads state (status, context, chain, show N, decisions, search QUERY, timeline [N]) or submits a
// summary, with nothing chained onto it or hidden in it.
import { tokenize, type HeredocToken, type WordToken } from './shellTokens.js';

export type BashVerdict = { allowed: true; subcommand: string } | { allowed: false; why: string };

/** Options and whether each takes a value (`true`). */
type Options = ReadonlyMap<string, boolean>;
/**
 * A read-only subcommand: the options it may take, and the one word it takes besides them:
 * a summary's number (`show N`; `timeline [N]`, where it may be left out) or a query
 * (`search QUERY`: one literal word, quoted when it has spaces).
 */
type ReadOnly = { options: Options; word?: 'number' | 'optional number' | 'query' };
const READ_ONLY_OPTIONS: Options = new Map([
  ['--json', false],
  ['--job', true],
]);
const READ_ONLY: ReadonlyMap<string, ReadOnly> = new Map([
  ['status', { options: new Map([...READ_ONLY_OPTIONS, ['--daemon', false]]) }],
  ['context', { options: READ_ONLY_OPTIONS }],
  ['chain', { options: READ_ONLY_OPTIONS }],
  ['show', { options: READ_ONLY_OPTIONS, word: 'number' }],
  ['decisions', { options: READ_ONLY_OPTIONS }],
  [
    'search',
    {
      options: new Map([...READ_ONLY_OPTIONS, ['--all-jobs', false], ['--topic', true], ['--since', true], ['--limit', true]]),
      word: 'query',
    },
  ],
  [
    'timeline',
    {
      options: new Map([...READ_ONLY_OPTIONS, ['--at', true], ['--before', true], ['--after', true]]),
      word: 'optional number',
    },
  ],
]);
/** A summary's number as `recap show` takes it: its sequence number, `#` before it allowed (quoted: bare, it starts a comment). */
const SUMMARY_NUMBER = /^#?[1-9][0-9]{0,14}$/;
/** How the messages name the read-only commands and the way out. */
const WAYS = 'submit, status, context, chain, show N, decisions, search QUERY or timeline';
const SUBMIT_OPTIONS: Options = new Map([
  ['--json', false],
  ['--job', true],
  ['--file', true],
  ['--topic', true],
]);
/**
 * The only delimiters accepted: a plain word in single or double quotes. Bash reads other
 * spellings ($'EOF', "E\$F") differently from how they look, which could end the
 * here-document early and run the lines after it.
 */
const PLAIN_QUOTED_DELIMITER = /^(?:'[A-Za-z0-9_]+'|"[A-Za-z0-9_]+")$/;

const deny = (why: string): BashVerdict => ({ allowed: false, why });

/**
 * The command word messages give the agent: the first of recapPaths (the daemon's launcher),
 * quoted for the shell when it needs it.
 */
export function recapWord(recapPaths: ReadonlySet<string>): string {
  const [first = 'recap'] = recapPaths;
  return /^[\w@%+=:,./-]+$/.test(first) ? first : `'${first.replaceAll("'", "'\\''")}'`;
}

/**
 * @param recapPaths the absolute paths that name the real recap: the daemon's launcher. Bare
 * `recap` is not one of them: PATH could find a file the agent wrote.
 */
export function classifyBash(command: string, recapPaths: ReadonlySet<string>): BashVerdict {
  const tokenized = tokenize(command.replace(/\n+$/, ''));
  if (!tokenized.ok) return deny(`the command could not be read: ${tokenized.error}`);

  const words: WordToken[] = [];
  const heredocs: HeredocToken[] = [];
  let lineEnded = false;
  for (const token of tokenized.tokens) {
    if (token.kind === 'newline') {
      lineEnded = true;
      continue;
    }
    if (lineEnded) return deny('only one command is allowed; nothing may follow it on another line');
    if (token.kind === 'operator' && token.op === '#') {
      return deny("the shell operator # is not allowed: it starts a comment, so the shell would drop the rest of the line; give a summary's number without it (show 12)");
    }
    if (token.kind === 'operator') return deny(`the shell operator ${token.op} is not allowed`);
    if (token.kind === 'heredoc') heredocs.push(token);
    else words.push(token);
  }

  const hidden = words.find((w) => !w.literal);
  if (hidden) return deny(`the word ${JSON.stringify(hidden.value)} would be expanded by the shell; use plain words`);
  const [program, subcommand, ...args] = words.map((w) => w.value);
  if (program === undefined) return deny('the command is empty');
  if (!recapPaths.has(program)) {
    if (/(?:^|\/)recap(?:\.js)?$/.test(program)) {
      return deny(`name recap as ${recapWord(recapPaths)}, the path the gate accepts; ${JSON.stringify(program)} could be any file named recap`);
    }
    return deny(`only recap commands may run; ${JSON.stringify(program)} is not recap`);
  }
  if (subcommand === undefined) return deny(`name a recap subcommand: ${WAYS}`);
  const recap = recapWord(recapPaths);

  const readOnly = READ_ONLY.get(subcommand);
  if (readOnly) {
    if (heredocs.length > 0) return deny(`${recap} ${subcommand} takes no input`);
    const words: string[] | undefined = readOnly.word ? [] : undefined;
    const problem = optionProblem(args, readOnly.options, subcommand, words) ?? wordProblem(readOnly.word, words ?? [], subcommand, recap);
    return problem ? deny(problem) : { allowed: true, subcommand };
  }
  if (subcommand === 'submit') return classifySubmit(args, heredocs);
  return deny(`recap ${subcommand} is not allowed while the gate is tripped; use ${WAYS}`);
}

/** What is wrong with the words a read-only subcommand was given besides its options. */
function wordProblem(kind: ReadOnly['word'], words: string[], subcommand: string, recap: string): string | undefined {
  if (kind === undefined) return undefined;
  if (kind === 'query') return words.length === 1 ? undefined : `${recap} search takes one query: quote several words as one, as in ${recap} search 'export folder'`;
  const usage = `give one summary's number, as in ${recap} ${subcommand} 12 (${recap} chain lists them)`;
  if (kind === 'optional number' && words.length === 0) return undefined;
  if (words.length !== 1) return `${recap} ${subcommand} takes one number: ${usage}`;
  return SUMMARY_NUMBER.test(words[0]!) ? undefined : `${JSON.stringify(words[0])} is not a summary's number: ${usage}`;
}

function classifySubmit(args: string[], heredocs: HeredocToken[]): BashVerdict {
  const stdinDash = args.filter((a) => a === '-').length;
  const options = args.filter((a) => a !== '-');
  if (stdinDash > 1) return deny('give "-" at most once');
  const problem = optionProblem(options, SUBMIT_OPTIONS, 'submit');
  if (problem) return deny(problem);
  const fromFile = options.some((a) => a === '--file' || a.startsWith('--file='));

  if (heredocs.length > 1) return deny('give the summary in one here-document');
  const heredoc = heredocs[0];
  if (heredoc) {
    if (fromFile) return deny('give the summary either in a here-document or with --file, not both');
    if (!heredoc.quoted) {
      return deny(`quote the here-document delimiter (<<'${heredoc.delimiter}') so the shell does not expand the summary`);
    }
    if (!PLAIN_QUOTED_DELIMITER.test(heredoc.rawDelimiter)) {
      return deny("write the here-document delimiter as a plain quoted word, such as <<'EOF'");
    }
    if (!heredoc.terminated) return deny(`the here-document is not closed: end it with a line holding only ${heredoc.delimiter}`);
    return { allowed: true, subcommand: 'submit' };
  }
  if (stdinDash > 0 || !fromFile) {
    return deny("give the summary in a quoted here-document (recap submit <<'EOF' ... EOF) or with --file PATH");
  }
  return { allowed: true, subcommand: 'submit' };
}

/**
 * Checks that every argument is a known option, with its value where it takes one. With
 * `words`, the arguments that are no option and no option's value go there instead.
 */
function optionProblem(args: string[], allowed: Options, subcommand: string, words?: string[]): string | undefined {
  const seen = new Set<string>();
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!;
    if (words !== undefined && !arg.startsWith('-')) {
      words.push(arg);
      continue;
    }
    const [name, inlineValue] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const takesValue = allowed.get(name);
    if (takesValue === undefined) return `recap ${subcommand} does not take ${JSON.stringify(arg)} here`;
    if (seen.has(name)) return `give ${name} once`;
    seen.add(name);
    if (!takesValue) {
      if (inlineValue !== undefined) return `${name} takes no value`;
      continue;
    }
    const value = inlineValue ?? args[(i += 1)];
    if (value === undefined || value === '' || value.startsWith('-')) return `${name} needs a value`;
  }
  return undefined;
}

/** A whitelisted recap command, read: its subcommand, its options, the summary's number (show, timeline), the query (search), its here-document. */
export type WayOut = { subcommand: string; options: ReadonlyMap<string, string | true>; seq?: number; query?: string; summary?: string };

/** The whitelisted recap command `command` is, read for running it elsewhere (Codex's hook); undefined if it is none. */
export function readWayOut(command: string, recapPaths: ReadonlySet<string>): WayOut | undefined {
  const verdict = classifyBash(command, recapPaths);
  const tokenized = tokenize(command.replace(/\n+$/, ''));
  if (!verdict.allowed || !tokenized.ok) return undefined;
  const words = tokenized.tokens.filter((t): t is WordToken => t.kind === 'word').map((w) => w.value);
  const heredoc = tokenized.tokens.find((t): t is HeredocToken => t.kind === 'heredoc');
  const options = new Map<string, string | true>();
  let seq: number | undefined;
  let query: string | undefined;
  const args = words.slice(2);
  const readOnly = READ_ONLY.get(verdict.subcommand);
  const allowed = readOnly?.options ?? SUBMIT_OPTIONS;
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!;
    if (arg === '-') continue;
    if (readOnly?.word !== undefined && !arg.startsWith('-')) {
      if (readOnly.word === 'query') query = arg;
      else seq = Number(arg.replace('#', ''));
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    options.set(name, allowed.get(name) ? (eq > 0 ? arg.slice(eq + 1) : (args[(i += 1)] ?? '')) : true);
  }
  return {
    subcommand: verdict.subcommand,
    options,
    ...(seq !== undefined ? { seq } : {}),
    ...(query !== undefined ? { query } : {}),
    ...(heredoc ? { summary: heredoc.body } : {}),
  };
}
