// A TOML 1.0 reader for Codex's config.toml, written for editing it by hand: besides the
// data, it gives each table header and each key/value line with where it stands in the
// text, so a change can touch those lines and leave every other byte as it was. It checks
// what makes a file unreadable to Codex (a table or key defined twice, a broken string)
// rather than every rule of the grammar; numbers and dates are kept as their text.

export class TomlError extends Error {}

/** A number, date or time, as written. */
export class TomlScalar {
  constructor(readonly raw: string) {}
}
export type TomlValue = string | boolean | TomlScalar | TomlValue[] | TomlTable;
export type TomlTable = { [key: string]: TomlValue };

/** Where a statement's lines are: `start` is its line's start, `end` is past its newline. */
type Span = { start: number; end: number };
export type TomlHeader = Span & { kind: 'header'; path: string[]; array: boolean; bracket: Span };
/** `table` is the path of the table the pair is in, `key` its own (dotted) key. */
export type TomlPair = Span & { kind: 'pair'; table: string[]; key: string[]; value: TomlValue };
export type TomlDocument = { data: TomlTable; statements: (TomlHeader | TomlPair)[] };

/** How a table came to be: each may be extended in some ways only (TOML's define-once rules). */
type Origin = 'header' | 'implicit' | 'dotted' | 'inline';

const BARE = /[A-Za-z0-9_-]/;
const ESCAPES: Readonly<Record<string, string>> = { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', e: '\x1b', '"': '"', '\\': '\\' };

export function parseToml(text: string): TomlDocument {
  return new Reader(text).document();
}

class Reader {
  private pos = 0;
  private readonly origins = new WeakMap<object, Origin>();
  /** Arrays made by `[[...]]`, which later `[[...]]` headers extend. */
  private readonly tableArrays = new WeakSet<TomlValue[]>();

  constructor(private readonly text: string) {
    if (text.startsWith('\uFEFF')) this.pos = 1;
  }

  document(): TomlDocument {
    const data: TomlTable = {};
    this.origins.set(data, 'header');
    const statements: (TomlHeader | TomlPair)[] = [];
    let table = data;
    let tablePath: string[] = [];
    while (this.pos < this.text.length) {
      const lineStart = this.pos;
      this.blank();
      const c = this.text[this.pos];
      if (c === undefined) break;
      if (c === '\n' || c === '\r' || c === '#') {
        this.endOfLine();
        continue;
      }
      if (c === '[') {
        const bracketStart = this.pos;
        const array = this.text.startsWith('[[', this.pos);
        this.pos += array ? 2 : 1;
        this.blank();
        const path = this.key();
        this.blank();
        if (!this.text.startsWith(array ? ']]' : ']', this.pos)) this.fail(`a table header must end with ${array ? ']]' : ']'}`);
        this.pos += array ? 2 : 1;
        const bracket = { start: bracketStart, end: this.pos };
        table = array ? this.arrayTable(data, path) : this.headerTable(data, path);
        tablePath = path;
        statements.push({ kind: 'header', path, array, bracket, start: lineStart, end: this.endOfLine() });
        continue;
      }
      const key = this.key();
      this.blank();
      if (this.text[this.pos] !== '=') this.fail('expected = after a key');
      this.pos += 1;
      this.blank();
      const value = this.value();
      this.assign(table, key, value);
      statements.push({ kind: 'pair', table: tablePath, key, value, start: lineStart, end: this.endOfLine() });
    }
    return { data, statements };
  }

  private fail(message: string): never {
    const line = this.text.slice(0, this.pos).split('\n').length;
    throw new TomlError(`line ${line}: ${message}`);
  }

  /** Spaces and tabs. */
  private blank(): void {
    while (this.text[this.pos] === ' ' || this.text[this.pos] === '\t') this.pos += 1;
  }

  /** Blanks, a comment, and the line's end; the position after it. */
  private endOfLine(): number {
    this.blank();
    if (this.text[this.pos] === '#') {
      while (this.pos < this.text.length && this.text[this.pos] !== '\n') this.pos += 1;
      if (this.text[this.pos - 1] === '\r') this.pos -= 1;
    }
    if (this.pos >= this.text.length) return this.pos;
    if (this.text.startsWith('\r\n', this.pos)) return (this.pos += 2);
    if (this.text[this.pos] === '\n') return (this.pos += 1);
    return this.fail(`unexpected ${JSON.stringify(this.text[this.pos])}; a value or header must end its line`);
  }

  /** Blanks, newlines and comments, inside an array or an inline table. */
  private space(): void {
    for (;;) {
      this.blank();
      const c = this.text[this.pos];
      if (c === '\n') this.pos += 1;
      else if (c === '\r' && this.text[this.pos + 1] === '\n') this.pos += 2;
      else if (c === '#') while (this.pos < this.text.length && this.text[this.pos] !== '\n') this.pos += 1;
      else return;
    }
  }

  /** A dotted key: bare or quoted parts. */
  private key(): string[] {
    const parts: string[] = [];
    for (;;) {
      const c = this.text[this.pos];
      if (c === '"') parts.push(this.basicString());
      else if (c === "'") parts.push(this.literalString());
      else {
        const start = this.pos;
        while (this.pos < this.text.length && BARE.test(this.text[this.pos]!)) this.pos += 1;
        if (this.pos === start) this.fail('expected a key');
        parts.push(this.text.slice(start, this.pos));
      }
      this.blank();
      if (this.text[this.pos] !== '.') return parts;
      this.pos += 1;
      this.blank();
    }
  }

  private value(): TomlValue {
    const rest = this.text.slice(this.pos, this.pos + 3);
    if (rest === '"""') return this.multilineString('"');
    if (rest === "'''") return this.multilineString("'");
    const c = this.text[this.pos];
    if (c === '"') return this.basicString();
    if (c === "'") return this.literalString();
    if (c === '[') return this.array();
    if (c === '{') return this.inlineTable();
    const token = /^[0-9A-Za-z_+\-.:]+/.exec(this.text.slice(this.pos, this.pos + 128))?.[0];
    if (token === undefined) this.fail('expected a value');
    this.pos += token.length;
    if (token === 'true' || token === 'false') return token === 'true';
    // A date and a time may stand apart by one space: 1979-05-27 07:32:00.
    const time = /^\d{4}-\d{2}-\d{2}$/.test(token) ? /^ (\d{2}:[0-9A-Za-z_+\-.:]+)/.exec(this.text.slice(this.pos, this.pos + 64)) : null;
    if (time) {
      this.pos += time[0].length;
      return new TomlScalar(`${token}${time[0]}`);
    }
    return new TomlScalar(token);
  }

  private basicString(): string {
    this.pos += 1;
    let out = '';
    for (;;) {
      const c = this.text[this.pos];
      if (c === undefined || c === '\n' || c === '\r') this.fail('a string is not closed on its line');
      this.pos += 1;
      if (c === '"') return out;
      out += c === '\\' ? this.escape() : c;
    }
  }

  private escape(): string {
    const c = this.text[this.pos];
    this.pos += 1;
    if (c !== undefined && Object.hasOwn(ESCAPES, c)) return ESCAPES[c]!;
    const digits = c === 'u' ? 4 : c === 'U' ? 8 : c === 'x' ? 2 : 0;
    const hex = this.text.slice(this.pos, this.pos + digits);
    if (digits === 0 || !new RegExp(`^[0-9A-Fa-f]{${digits}}$`).test(hex)) this.fail(`an unknown escape \\${c ?? ''}`);
    this.pos += digits;
    const code = Number.parseInt(hex, 16);
    if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) this.fail(`\\${c}${hex} is not a character`);
    return String.fromCodePoint(code);
  }

  private literalString(): string {
    const start = this.pos + 1;
    const end = this.text.indexOf("'", start);
    const newline = this.text.slice(start, end === -1 ? undefined : end).search(/[\r\n]/);
    if (end === -1 || newline !== -1) this.fail('a string is not closed on its line');
    this.pos = end + 1;
    return this.text.slice(start, end);
  }

  /** `"""…"""` or `'''…'''`; up to two quotes may end the content before the closing three. */
  private multilineString(quote: string): string {
    const fence = quote.repeat(3);
    this.pos += 3;
    if (this.text.startsWith('\r\n', this.pos)) this.pos += 2;
    else if (this.text[this.pos] === '\n') this.pos += 1;
    let out = '';
    for (;;) {
      if (this.pos >= this.text.length) this.fail('a multi-line string is not closed');
      if (this.text.startsWith(fence, this.pos)) {
        let run = 3;
        while (run < 5 && this.text[this.pos + run] === quote) run += 1;
        out += quote.repeat(run - 3);
        this.pos += run;
        return out;
      }
      const c = this.text[this.pos]!;
      this.pos += 1;
      if (quote === '"' && c === '\\') {
        // A backslash that ends a line drops the line break and the blanks after it.
        const trimmed = /^[ \t]*\r?\n[\s]*/.exec(this.text.slice(this.pos));
        if (trimmed) this.pos += trimmed[0].length;
        else out += this.escape();
      } else out += c;
    }
  }

  private array(): TomlValue[] {
    this.pos += 1;
    const items: TomlValue[] = [];
    for (;;) {
      this.space();
      if (this.text[this.pos] === ']') break;
      items.push(this.value());
      this.space();
      if (this.text[this.pos] === ',') this.pos += 1;
      else if (this.text[this.pos] !== ']') this.fail('expected , or ] in an array');
    }
    this.pos += 1;
    return items;
  }

  private inlineTable(): TomlTable {
    this.pos += 1;
    const table: TomlTable = {};
    this.origins.set(table, 'dotted');
    for (;;) {
      this.space();
      if (this.text[this.pos] === '}') break;
      const key = this.key();
      this.blank();
      if (this.text[this.pos] !== '=') this.fail('expected = after a key');
      this.pos += 1;
      this.blank();
      this.assign(table, key, this.value());
      this.space();
      if (this.text[this.pos] === ',') this.pos += 1;
      else if (this.text[this.pos] !== '}') this.fail('expected , or } in an inline table');
    }
    this.pos += 1;
    this.freeze(table);
    return table;
  }

  /** An inline table is whole as written: nothing may add to it or to any table in it. */
  private freeze(value: TomlValue): void {
    if (Array.isArray(value)) for (const item of value) this.freeze(item);
    else if (isTable(value)) {
      this.origins.set(value, 'inline');
      for (const item of Object.values(value)) this.freeze(item);
    }
  }

  /** `key = value` in `table`: a dotted key makes (or goes on in) tables of its own. */
  private assign(table: TomlTable, key: string[], value: TomlValue): void {
    let here = table;
    for (const part of key.slice(0, -1)) {
      const next = here[part];
      if (next === undefined) {
        const made: TomlTable = {};
        this.origins.set(made, 'dotted');
        here = define(here, part, made);
      } else if (isTable(next) && this.origins.get(next) === 'dotted') here = next;
      else this.fail(`${part} is already defined; a dotted key cannot add to it`);
    }
    const last = key.at(-1)!;
    if (Object.hasOwn(here, last)) this.fail(`the key ${key.join('.')} is defined twice`);
    if (Array.isArray(value)) this.freeze(value);
    define(here, last, value);
  }

  /** The table a path leads through: a `[[...]]` array leads into its last table. */
  private parent(root: TomlTable, path: string[]): TomlTable {
    let here = root;
    for (const part of path) {
      const next = here[part];
      if (next === undefined) {
        const made: TomlTable = {};
        this.origins.set(made, 'implicit');
        here = define(here, part, made);
      } else if (Array.isArray(next) && this.tableArrays.has(next)) here = next.at(-1) as TomlTable;
      else if (isTable(next) && this.origins.get(next) !== 'inline') here = next;
      else this.fail(`${part} is not a table that can be added to`);
    }
    return here;
  }

  private headerTable(root: TomlTable, path: string[]): TomlTable {
    const here = this.parent(root, path.slice(0, -1));
    const last = path.at(-1)!;
    const existing = here[last];
    if (existing === undefined) {
      const made: TomlTable = {};
      this.origins.set(made, 'header');
      return define(here, last, made);
    }
    if (isTable(existing) && this.origins.get(existing) === 'implicit') {
      this.origins.set(existing, 'header');
      return existing;
    }
    return this.fail(`the table [${path.join('.')}] is defined twice`);
  }

  private arrayTable(root: TomlTable, path: string[]): TomlTable {
    const here = this.parent(root, path.slice(0, -1));
    const last = path.at(-1)!;
    const existing = here[last];
    const made: TomlTable = {};
    this.origins.set(made, 'header');
    if (existing === undefined) {
      const array: TomlValue[] = [made];
      this.tableArrays.add(array);
      define(here, last, array);
    } else if (Array.isArray(existing) && this.tableArrays.has(existing)) existing.push(made);
    else this.fail(`[[${path.join('.')}]] adds to something that is not an array of tables`);
    return made;
  }
}

export const isTable = (value: TomlValue | undefined): value is TomlTable => typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof TomlScalar);

/** Sets a key even when it is `__proto__`: a key is data, never an object's prototype. */
function define<T extends TomlValue>(table: TomlTable, key: string, value: T): T {
  Object.defineProperty(table, key, { value, enumerable: true, writable: true, configurable: true });
  return value;
}

/** A TOML basic string holding `text`: JSON's escapes, and DEL escaped too (TOML refuses it bare). */
export function tomlString(text: string): string {
  return JSON.stringify(text).replace(/\x7f/g, '\\u007F');
}
