// Node built-ins only (none, in fact): the hook client reads ON_DAEMON_DOWN with it.
// Reads config.conf as data in the shell syntax users already write: KEY=value, quotes,
// "${KEY:-default}" (the environment wins, then the default), bash arrays KEY=("a" "b")
// over one or more lines, comments. Nothing in it is ever executed.

export type Assignment = {
  value: string | string[];
  line: number;
  /** True when an expansion took its value from the environment. */
  fromEnv: boolean;
};

export type ConfigFileError = { line: number; key?: string; reason: string };

export type ParsedConfigFile = { assignments: Map<string, Assignment>; errors: ConfigFileError[] };

type Env = Record<string, string | undefined>;

class SyntaxProblem extends Error {}

const NO_COMMANDS = 'commands are never run from config.conf; write the value itself';
/** The array's closing parenthesis is not there yet: it may be on a later line. */
class UnclosedArray extends SyntaxProblem {}

const ASSIGNMENT = /^(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)=/;

export function parseConfigFile(text: string, env: Env): ParsedConfigFile {
  const assignments = new Map<string, Assignment>();
  const errors: ConfigFileError[] = [];
  const lines = text.split(/\r?\n/);
  const lookup = (name: string): { value: string | undefined; fromEnv: boolean } => {
    const own = assignments.get(name);
    if (own) return { value: Array.isArray(own.value) ? own.value[0] : own.value, fromEnv: own.fromEnv };
    return { value: env[name], fromEnv: env[name] !== undefined };
  };

  for (let index = 0; index < lines.length; index += 1) {
    const lineNo = index + 1;
    const line = lines[index]!.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = ASSIGNMENT.exec(line);
    if (!match?.[1]) {
      errors.push({ line: lineNo, reason: 'expected KEY=value, KEY=("a" "b") or a # comment' });
      continue;
    }
    const key = match[1];
    const rest = line.slice(match[0].length);
    try {
      if (rest.startsWith('(')) {
        // An array may continue over the following lines until its closing parenthesis.
        let source = rest.slice(1);
        while (!closesArray(source) && index + 1 < lines.length) source += `\n${lines[(index += 1)]!}`;
        const words = new WordReader(source, lookup).readArray();
        assignments.set(key, { value: words.values, line: lineNo, fromEnv: words.fromEnv });
      } else {
        const reader = new WordReader(rest, lookup);
        const word = reader.readScalar();
        assignments.set(key, { value: word.value, line: lineNo, fromEnv: word.fromEnv });
      }
    } catch (error) {
      if (!(error instanceof SyntaxProblem)) throw error;
      errors.push({ line: lineNo, key, reason: error.message });
    }
  }
  return { assignments, errors };
}

/** Whether the array is complete; any other mistake in it is reported by the real read. */
function closesArray(source: string): boolean {
  try {
    new WordReader(source, () => ({ value: undefined, fromEnv: false })).readArray();
    return true;
  } catch (error) {
    return !(error instanceof UnclosedArray);
  }
}

type Lookup = (name: string) => { value: string | undefined; fromEnv: boolean };

/** Reads shell words with quote removal and the parameter expansions recap supports. */
class WordReader {
  private i = 0;
  fromEnv = false;

  constructor(
    private readonly s: string,
    private readonly lookup: Lookup,
  ) {}

  readScalar(): { value: string; fromEnv: boolean } {
    const value = this.word();
    this.skipBlanks();
    if (this.i < this.s.length && this.s[this.i] !== '#') {
      throw new SyntaxProblem(`unexpected ${JSON.stringify(this.s.slice(this.i))} after the value; quote values that contain spaces`);
    }
    return { value, fromEnv: this.fromEnv };
  }

  readArray(): { values: string[]; fromEnv: boolean } {
    const values: string[] = [];
    for (;;) {
      this.skipBlanks(true);
      if (this.i >= this.s.length) throw new UnclosedArray('the array is not closed with )');
      const c = this.s[this.i];
      if (c === ')') {
        this.i += 1;
        this.skipBlanks();
        if (this.i < this.s.length && this.s[this.i] !== '#') throw new SyntaxProblem('unexpected text after the array');
        return { values, fromEnv: this.fromEnv };
      }
      if (c === '#') {
        const end = this.s.indexOf('\n', this.i);
        this.i = end === -1 ? this.s.length : end;
        continue;
      }
      values.push(this.word());
    }
  }

  private skipBlanks(newlines = false): void {
    while (this.i < this.s.length && (this.s[this.i] === ' ' || this.s[this.i] === '\t' || (newlines && this.s[this.i] === '\n'))) {
      this.i += 1;
    }
  }

  private word(stop = ''): string {
    let out = '';
    while (this.i < this.s.length) {
      const c = this.s[this.i]!;
      if (c === ' ' || c === '\t' || c === '\n' || c === ')' || c === '(' || c === ';' || stop.includes(c)) break;
      if (c === "'") {
        const end = this.s.indexOf("'", this.i + 1);
        if (end === -1) throw new SyntaxProblem('unterminated single quote');
        out += this.s.slice(this.i + 1, end);
        this.i = end + 1;
      } else if (c === '"') {
        this.i += 1;
        out += this.doubleQuoted();
      } else if (c === '\\') {
        out += this.s[this.i + 1] ?? '';
        this.i += 2;
      } else if (c === '$') {
        out += this.expansion();
      } else if (c === '`') {
        throw new SyntaxProblem(NO_COMMANDS);
      } else {
        out += c;
        this.i += 1;
      }
    }
    if (this.s[this.i] === '(' || this.s[this.i] === ';') throw new SyntaxProblem(`unexpected ${this.s[this.i]}`);
    return out;
  }

  private doubleQuoted(): string {
    let out = '';
    for (;;) {
      if (this.i >= this.s.length) throw new SyntaxProblem('unterminated double quote');
      const c = this.s[this.i]!;
      if (c === '"') {
        this.i += 1;
        return out;
      }
      if (c === '\\' && '"\\$`'.includes(this.s[this.i + 1] ?? '')) {
        out += this.s[this.i + 1];
        this.i += 2;
      } else if (c === '$') {
        out += this.expansion();
      } else if (c === '`') {
        throw new SyntaxProblem(NO_COMMANDS);
      } else {
        out += c;
        this.i += 1;
      }
    }
  }

  /** $NAME, ${NAME}, ${NAME:-default} and ${NAME-default}. */
  private expansion(): string {
    const s = this.s;
    const next = s[this.i + 1];
    if (next === '(') throw new SyntaxProblem(NO_COMMANDS);
    if (next !== '{') {
      const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(s.slice(this.i + 1))?.[0];
      if (!name) {
        this.i += 1;
        return '$';
      }
      this.i += 1 + name.length;
      return this.resolve(name);
    }
    const inner = /^\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?-)|\})/.exec(s.slice(this.i));
    if (!inner?.[1]) throw new SyntaxProblem('only ${NAME}, ${NAME:-default} and ${NAME-default} are understood');
    const name = inner[1];
    this.i += inner[0].length;
    if (!inner[2]) return this.resolve(name);
    const fromEnvBefore = this.fromEnv;
    const fallback = this.wordUntilBrace();
    const found = this.lookup(name);
    const useDefault = inner[2] === ':-' ? !found.value : found.value === undefined;
    if (useDefault) return fallback;
    this.fromEnv = fromEnvBefore;
    if (found.fromEnv) this.fromEnv = true;
    return found.value ?? '';
  }

  private wordUntilBrace(): string {
    let out = '';
    for (;;) {
      if (this.i >= this.s.length) throw new SyntaxProblem('the ${...} expansion is not closed with }');
      const c = this.s[this.i]!;
      if (c === '}') {
        this.i += 1;
        return out;
      }
      if (c === '"' || c === "'" || c === '$' || c === '\\') out += this.word('}');
      else {
        out += c;
        this.i += 1;
      }
    }
  }

  private resolve(name: string): string {
    const found = this.lookup(name);
    if (found.fromEnv) this.fromEnv = true;
    return found.value ?? '';
  }
}
