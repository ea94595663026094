// What a Bash command may be while the gate is tripped: exactly one recap command that
// reads state or submits a summary, with nothing chained onto it or hidden in it.
import { tokenize, type HeredocToken, type WordToken } from './shellTokens.js';

export type BashVerdict = { allowed: true; subcommand: string } | { allowed: false; why: string };

/** The read-only subcommands, each with the options it may take (`true`: takes a value). */
type Options = ReadonlyMap<string, boolean>;
const READ_ONLY_OPTIONS: Options = new Map([
  ['--json', false],
  ['--job', true],
]);
const READ_ONLY: ReadonlyMap<string, Options> = new Map([
  ['status', new Map([...READ_ONLY_OPTIONS, ['--daemon', false]])],
  ['context', READ_ONLY_OPTIONS],
  ['chain', READ_ONLY_OPTIONS],
]);
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
  if (subcommand === undefined) return deny('name a recap subcommand: submit, status, context or chain');
  const recap = recapWord(recapPaths);

  const readOnlyOptions = READ_ONLY.get(subcommand);
  if (readOnlyOptions) {
    if (heredocs.length > 0) return deny(`${recap} ${subcommand} takes no input`);
    const problem = optionProblem(args, readOnlyOptions, subcommand);
    return problem ? deny(problem) : { allowed: true, subcommand };
  }
  if (subcommand === 'submit') return classifySubmit(args, heredocs);
  return deny(`recap ${subcommand} is not allowed while the gate is tripped; use submit, status, context or chain`);
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

/** Checks that every argument is a known option, with its value where it takes one. */
function optionProblem(args: string[], allowed: Options, subcommand: string): string | undefined {
  const seen = new Set<string>();
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!;
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

/** A whitelisted recap command, read: its subcommand, its options, its here-document. */
export type WayOut = { subcommand: string; options: ReadonlyMap<string, string | true>; summary?: string };

/** The whitelisted recap command `command` is, read for running it elsewhere (Codex's hook); undefined if it is none. */
export function readWayOut(command: string, recapPaths: ReadonlySet<string>): WayOut | undefined {
  const verdict = classifyBash(command, recapPaths);
  const tokenized = tokenize(command.replace(/\n+$/, ''));
  if (!verdict.allowed || !tokenized.ok) return undefined;
  const words = tokenized.tokens.filter((t): t is WordToken => t.kind === 'word').map((w) => w.value);
  const heredoc = tokenized.tokens.find((t): t is HeredocToken => t.kind === 'heredoc');
  const options = new Map<string, string | true>();
  const args = words.slice(2);
  const takes = (READ_ONLY.get(verdict.subcommand) ?? SUBMIT_OPTIONS).get.bind(READ_ONLY.get(verdict.subcommand) ?? SUBMIT_OPTIONS);
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!;
    if (arg === '-') continue;
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    options.set(name, takes(name) ? (eq > 0 ? arg.slice(eq + 1) : (args[(i += 1)] ?? '')) : true);
  }
  return { subcommand: verdict.subcommand, options, ...(heredoc ? { summary: heredoc.body } : {}) };
}
