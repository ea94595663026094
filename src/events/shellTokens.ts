// A small shell lexer: enough of bash's grammar (quotes, escapes, operators,
// here-documents, comments) to see what a command line really is. It never executes or
// expands anything; it marks every word whose value bash would change by expansion, so a
// policy can refuse it. Anything it cannot read with certainty is an error.

export type WordToken = {
  kind: 'word';
  /** The word's value after quote removal, when it is literal. */
  value: string;
  /** True when bash would take the word exactly as `value`: no expansion, globbing or escape. */
  literal: boolean;
};
export type OperatorToken = { kind: 'operator'; op: string };
export type NewlineToken = { kind: 'newline' };
export type HeredocToken = {
  kind: 'heredoc';
  op: '<<' | '<<-';
  delimiter: string;
  /** The delimiter as written, quotes and all. */
  rawDelimiter: string;
  /** A quoted delimiter makes the body literal; an unquoted one lets bash expand it. */
  quoted: boolean;
  body: string;
  /** False when the input ended before the delimiter line. */
  terminated: boolean;
};
export type ShellToken = WordToken | OperatorToken | NewlineToken | HeredocToken;

export type Tokenized = { ok: true; tokens: ShellToken[] } | { ok: false; error: string };

// Longest first, so `<<-` wins over `<<` and `<`.
const OPERATORS = ['&>>', '<<-', '<<<', ';;&', '&&', '||', ';;', ';&', '|&', '<<', '>>', '<&', '>&', '<>', '>|', '&>', '<(', '>(', ';', '&', '|', '<', '>', '(', ')'];
const METACHARACTERS = new Set([' ', '\t', '\n', ';', '&', '|', '<', '>', '(', ')']);
// Unquoted characters that make bash expand, glob or otherwise reinterpret a word.
const EXPANDING = new Set(['$', '`', '*', '?', '[', ']', '{', '}', '~', '!', '\\', '#']);
// Outside quotes only printable ASCII is read as written; anything else (control
// characters, look-alike letters, exotic spaces) makes the word non-literal.
const PLAIN = /^[\x21-\x7e]$/;

/**
 * The lines read in this turn of the event loop: one check reads its command line in several
 * rules (the whitelist, each protection rule, the programs it runs), and a line of megabytes
 * costs a read each time. Forgotten once the turn ends, so nothing is held between checks.
 * Callers never change the tokens they get.
 */
const readThisTurn = new Map<string, Tokenized>();

export function tokenize(input: string): Tokenized {
  const known = readThisTurn.get(input);
  if (known !== undefined) return known;
  const made = tokenizeNow(input);
  if (readThisTurn.size === 0) queueMicrotask(() => readThisTurn.clear());
  readThisTurn.set(input, made);
  return made;
}

function tokenizeNow(input: string): Tokenized {
  const tokens: ShellToken[] = [];
  const pendingHeredocs: HeredocToken[] = [];
  let i = 0;

  const readHeredocBodies = (): void => {
    for (const heredoc of pendingHeredocs.splice(0)) {
      const lines: string[] = [];
      for (;;) {
        if (i >= input.length) break;
        const end = input.indexOf('\n', i);
        const raw = end === -1 ? input.slice(i) : input.slice(i, end);
        i = end === -1 ? input.length : end + 1;
        const line = heredoc.op === '<<-' ? raw.replace(/^\t+/, '') : raw;
        if (line === heredoc.delimiter) {
          heredoc.terminated = true;
          break;
        }
        lines.push(line);
      }
      heredoc.body = lines.join('\n');
    }
  };

  while (i < input.length) {
    const c = input[i]!;
    if (c === ' ' || c === '\t') {
      i += 1;
      continue;
    }
    if (c === '\n') {
      tokens.push({ kind: 'newline' });
      i += 1;
      readHeredocBodies();
      continue;
    }
    if (c === '#') {
      // A comment: bash ignores the rest of the line. Reported as an operator so a
      // policy sees that something was hidden there.
      tokens.push({ kind: 'operator', op: '#' });
      const end = input.indexOf('\n', i);
      i = end === -1 ? input.length : end;
      continue;
    }
    const op = OPERATORS.find((candidate) => input.startsWith(candidate, i));
    if (op) {
      i += op.length;
      if (op === '<<' || op === '<<-') {
        const word = readWord();
        if (!word.ok) return word;
        if (word.raw === '') return { ok: false, error: `here-document operator ${op} has no delimiter` };
        const heredoc: HeredocToken = {
          kind: 'heredoc',
          op,
          delimiter: word.token.value,
          rawDelimiter: word.raw,
          quoted: /['"\\]/.test(word.raw),
          body: '',
          terminated: false,
        };
        tokens.push(heredoc);
        pendingHeredocs.push(heredoc);
        continue;
      }
      tokens.push({ kind: 'operator', op });
      continue;
    }
    const word = readWord();
    if (!word.ok) return word;
    tokens.push(word.token);
  }
  if (pendingHeredocs.length > 0) {
    // A here-document started on the last line has no body and no delimiter line.
    for (const heredoc of pendingHeredocs) heredoc.terminated = false;
  }
  return { ok: true, tokens };

  function readWord(): { ok: true; token: WordToken; raw: string } | { ok: false; error: string } {
    while (input[i] === ' ' || input[i] === '\t') i += 1;
    const start = i;
    let value = '';
    let literal = true;
    while (i < input.length && !METACHARACTERS.has(input[i]!)) {
      const c = input[i]!;
      if (c === '$' && (input[i + 1] === "'" || input[i + 1] === '"')) {
        // $'...' (escapes read, as bash does) and $"..." (a translated string): the `$` is
        // part of the quotes, not of the value. The word stays one the shell changes.
        literal = false;
        if (input[i + 1] === '"') {
          i += 1;
          continue;
        }
        const quoted = ansiC(input, i + 2);
        if (quoted === undefined) return { ok: false, error: "unterminated $' quote" };
        value += quoted.text;
        i = quoted.end + 1;
        continue;
      }
      if (c === "'") {
        const end = input.indexOf("'", i + 1);
        if (end === -1) return { ok: false, error: 'unterminated single quote' };
        value += input.slice(i + 1, end);
        i = end + 1;
      } else if (c === '"') {
        let j = i + 1;
        for (; j < input.length && input[j] !== '"'; j += 1) {
          // Inside double quotes bash still expands $ and backticks and reads escapes.
          if (input[j] === '\\') {
            literal = false;
            j += 1;
          } else if (input[j] === '$' || input[j] === '`') literal = false;
        }
        if (j >= input.length) return { ok: false, error: 'unterminated double quote' };
        value += input.slice(i + 1, j);
        i = j + 1;
      } else if (c === '\\') {
        literal = false;
        // A backslash-newline is a line continuation: bash removes both.
        if (input[i + 1] !== '\n') value += input[i + 1] ?? '';
        i += 2;
      } else if (c === '`') {
        literal = false;
        const end = input.indexOf('`', i + 1);
        if (end === -1) return { ok: false, error: 'unterminated backtick' };
        value += input.slice(i, end + 1);
        i = end + 1;
      } else {
        if (EXPANDING.has(c) || !PLAIN.test(c)) literal = false;
        value += c;
        i += 1;
      }
    }
    return { ok: true, token: { kind: 'word', value, literal }, raw: input.slice(start, i) };
  }
}

/** A redirection and the word it names (absent only at the end of broken input). */
export type Redirect = { op: string; target: WordToken | undefined };

/** One simple command: its words in order, its redirections and here-documents. */
export type SimpleCommand = { words: WordToken[]; redirects: Redirect[]; heredocs: HeredocToken[] };

const REDIRECTS = new Set(['<', '>', '>>', '&>', '&>>', '<&', '>&', '<>', '>|', '<<<']);
/** Redirections that write: a command with one of these is never a mere reader. */
export const WRITING_REDIRECTS = new Set(['>', '>>', '&>', '&>>', '>&', '<>', '>|']);

/**
 * The simple commands of a tokenized line: split at every operator that ends one (`;`, `&&`,
 * `|`, parentheses, process substitution, a newline, a comment), with each redirection's
 * target taken out of the words.
 */
export function simpleCommands(tokens: ShellToken[]): SimpleCommand[] {
  const commands: SimpleCommand[] = [];
  let current: SimpleCommand = { words: [], redirects: [], heredocs: [] };
  const flush = () => {
    if (current.words.length + current.redirects.length + current.heredocs.length > 0) commands.push(current);
    current = { words: [], redirects: [], heredocs: [] };
  };
  for (let i = 0; i < tokens.length; i += 1) {
    const token = tokens[i]!;
    if (token.kind === 'word') current.words.push(token);
    else if (token.kind === 'heredoc') current.heredocs.push(token);
    else if (token.kind === 'operator' && REDIRECTS.has(token.op)) {
      const next = tokens[i + 1];
      const target = next?.kind === 'word' ? next : undefined;
      if (target) i += 1;
      current.redirects.push({ op: token.op, target });
    } else flush();
  }
  flush();
  return commands;
}

/** The escapes bash reads inside $'...', by their letter. */
const ANSI_C: Readonly<Record<string, string>> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
};

/** The text of a $'...' quote whose body starts at `from`, escapes read, and where its closing quote is; undefined when it has none. */
function ansiC(input: string, from: number): { text: string; end: number } | undefined {
  let text = '';
  for (let i = from; i < input.length; i += 1) {
    const c = input[i]!;
    if (c === "'") return { text, end: i };
    if (c !== '\\') {
      text += c;
      continue;
    }
    const next = input[i + 1] ?? '';
    const code = /^(?:x([0-9a-fA-F]{1,2})|u([0-9a-fA-F]{1,4})|U([0-9a-fA-F]{1,8})|([0-7]{1,3})|c(.))/.exec(input.slice(i + 1, i + 10));
    if (code) {
      const [whole, hex, u4, u8, octal, control] = code;
      const n = (hex ?? u4 ?? u8) ? parseInt((hex ?? u4 ?? u8)!, 16) : octal !== undefined ? parseInt(octal, 8) : control!.charCodeAt(0) & 31;
      text += n <= 0x10ffff ? String.fromCodePoint(n) : '';
      i += whole.length;
    } else {
      text += ANSI_C[next] ?? `\\${next}`;
      i += 1;
    }
  }
  return undefined;
}
