// How a tool call can name a file: a path as spelled, decoded (file: URIs, percent-escapes),
// through /proc, relative to the agent's folder or home, as a glob, or as one word of a shell
// command; and the ways a command line can spell a protected path. protection.ts judges
// what these names lead to.
import { isAbsolute, join, normalize } from 'node:path/posix';
import { segmentMatches } from './glob.js';
import type { ShellToken } from './shellTokens.js';

export const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export const expandHome = (path: string, home: string) => (path === '~' ? home : path.startsWith('~/') ? join(home, path.slice(2)) : path);

/**
 * `~` and `~/x` from home; `~+` (bash's $PWD) from the folder the call runs in, and so are
 * `~-` ($OLDPWD) and `~N`, `~+N`, `~-N` (the folder stack): each is a folder the line was in,
 * and the rules judge its paths from every one of those (protection.ts).
 */
export function expandTilde(path: string, home: string, cwd: string | undefined): string {
  const here = /^~(?:[+-]\d*|\d+)(?=\/|$)/.exec(path)?.[0];
  if (here !== undefined) return `${cwd ?? '/'}${path.slice(here.length)}`;
  return expandHome(path, home);
}

export function absolute(path: string, cwd: string | undefined, home: string): string {
  const expanded = expandTilde(path, home, cwd);
  // /proc is read before normalizing: /proc/self/cwd/.. is the agent's parent folder.
  const full = throughProc(isAbsolute(expanded) ? expanded : join(cwd ?? '/', expanded), cwd);
  // A path already normal is its own normal form: most calls name one, and every check comes here.
  return NORMAL.test(full) ? full : normalize(full);
}

/** An absolute path normalize() leaves as it is: no `.`, `..` or empty part, no trailing `/`. */
const NORMAL = /^(?:\/(?!\.\.?(?:\/|$))[^/]+)+$/;

/**
 * The names a string may give a file: as written and, when it is a file: URI or holds
 * percent-escapes, decoded, up to three times (an MCP server may take
 * `file:///home/u/.config/%72ecap/config.conf`). Decoding more than a tool would only judges more names.
 */
export function decodings(text: string): string[] {
  const found = [text];
  let current = text;
  for (let round = 0; round < 3; round += 1) {
    const uri = /^file:(?:\/\/[^/]*)?(\/[^?#]*)/i.exec(current)?.[1];
    const next = percentDecoded(uri ?? current);
    if (next === current) break;
    found.push(next);
    current = next;
  }
  return found;
}

function percentDecoded(text: string): string {
  if (!text.includes('%')) return text;
  return text.replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      // Not UTF-8: byte by byte, as a tool that decodes to Latin-1 would.
      return run.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    }
  });
}

/**
 * `/proc/self/cwd/x` (or any pid's) is the agent's folder, `/proc/self/root/x` is `/x`: the
 * same file by another name. Other pids' cwd is unknown, so the agent's own is assumed.
 */
export function throughProc(path: string, cwd: string | undefined): string {
  const match = /^\/+proc\/+[^/]+\/+(cwd|root)(\/.*)?$/.exec(path);
  if (!match) return path;
  return `${match[1] === 'cwd' ? (cwd ?? '/') : '/'}/${match[2] ?? ''}`;
}

/**
 * The strings of an input that could be paths, a bounded walk (an input can be huge): any
 * one-line string, relative ones too (an MCP server takes `.recap/config.conf` from its own
 * folder, the agent's). Judging a string that is no path costs nothing: it resolves to no
 * protected file.
 */
export function pathsAnywhere(input: unknown): string[] {
  const found: string[] = [];
  let budget = 1000;
  let joins = JOINS_KEPT;
  // A line break or a NUL ends a path.
  const pathLike = (value: unknown): value is string => typeof value === 'string' && value !== '' && value.length < 4096 && !/[\x00-\x1f]/.test(value);
  const walk = (value: unknown, depth: number): void => {
    if (budget-- <= 0 || depth > 6) return;
    if (pathLike(value)) found.push(value);
    const items = Array.isArray(value) ? value : value !== null && typeof value === 'object' ? Object.values(value) : undefined;
    if (items === undefined) return;
    for (const item of items) walk(item, depth + 1);
    // A path split across fields of one object ({dir, name}, {path, file}): each folder-like
    // string joined with each relative one, the first few of each object, a few in all.
    const strings = items.filter(pathLike).slice(0, 8);
    for (const dir of strings) for (const name of strings) if (dir !== name && !/^(?:\/|~|file:)/i.test(name) && joins-- > 0) found.push(`${dir.replace(/\/+$/, '')}/${name}`);
  };
  walk(input, 0);
  return found;
}

/** Joins of split fields judged per call at most: each costs a path to follow. */
const JOINS_KEPT = 64;

/** Whether `path` is `root` or inside it; compared in place, no `${root}/` made: every check asks it per protected path. */
export function inside(path: string, root: string): boolean {
  if (path === root) return true;
  if (!path.startsWith(root)) return false;
  return root.endsWith('/') || path.charCodeAt(root.length) === SLASH;
}

const SLASH = 47;

/**
 * Whether a path with glob characters could name `root`, a folder holding it, or something
 * inside it (`~/.cla?de`, `.re*`, `~/.claude/setting?.json`). As in bash, `*` and `?` do not
 * match a leading dot.
 */
export function globTouches(pattern: string, root: string): boolean {
  if (!/[*?[]/.test(pattern)) return false;
  const globs = pattern.split('/').filter(Boolean);
  const segments = root.split('/').filter(Boolean);
  for (let i = 0; i < Math.min(globs.length, segments.length); i += 1) {
    const glob = globs[i]!;
    const segment = segments[i]!;
    if (glob === '**') return true;
    if (segment.startsWith('.') && !glob.startsWith('.')) return false;
    if (!segmentMatches(glob, segment)) return false;
  }
  return true;
}

/** Every word of a command that could be a path, with `$HOME` spelled as `~` and `--opt=PATH` split. */
export function pathWords(tokens: ShellToken[]): string[] {
  const words: string[] = [];
  for (let at = 0; at < tokens.length; at += 1) {
    const token = tokens[at]!;
    if (token.kind !== 'word' || token.value === '') continue;
    // `$(pwd)/x` comes as `$`, `(`, `pwd`, `)`, `/x`: the current folder's x.
    const pwd = pwdAt(tokens, at);
    if (pwd !== undefined) {
      words.push(`~+${pwd.rest}`);
      at = pwd.next - 1;
      continue;
    }
    // A quoted `~` is a name bash leaves as it is (`'~/x'` is ./~/x); `$PWD` is `~+`.
    if (token.literal && token.value.startsWith('~')) {
      words.push(`./${token.value}`);
      continue;
    }
    for (const spelled of homeAndHere(token.value)) {
      // `../{data,x}/log` is both paths; past BRACES_KEPT, the word as written (a glob of them all).
      const values = !token.literal && spelled.includes('{') ? braceExpansions(spelled) : [spelled];
      for (const value of values) pathWord(words, value);
    }
  }
  return words;
}

/**
 * A word with home and the current folder at its start as `~` and `~+`: `$HOME`, and `$HOME`
 * through an expansion that leaves it as it is or cuts at its ends (`${HOME%/}`, `${HOME:-x}`;
 * `${HOME:+x}` is x, judged as both), `$PWD`, `$(pwd)` and `` `pwd` ``.
 */
function homeAndHere(word: string): string[] {
  const alternate = /^\$\{HOME:\+([^}]*)\}/.exec(word);
  const home = word.replace(/^(?:\$HOME|\$\{HOME(?:[:#%/^,][^}]*)?\})(?=\/|$)/, '~');
  const here = home.replace(/^(?:\$PWD|\$\{PWD\}|\$\(\s*pwd(?:\s+-[LP])?\s*\)|`\s*pwd(?:\s+-[LP])?\s*`)(?=\/|$)/, '~+');
  return alternate ? [here, `${alternate[1]}${word.slice(alternate[0].length)}`] : [here];
}

/** At `at`, `$(pwd)` (or `$(pwd -P)`) as the tokenizer splits it: the path part after it, and the token past both. */
function pwdAt(tokens: ShellToken[], at: number): { rest: string; next: number } | undefined {
  const [dollar, open, pwd] = [tokens[at], tokens[at + 1], tokens[at + 2]];
  if (dollar?.kind !== 'word' || dollar.value !== '$' || open?.kind !== 'operator' || open.op !== '(' || pwd?.kind !== 'word' || pwd.value !== 'pwd') return undefined;
  let close = at + 3;
  const option = tokens[close];
  if (option?.kind === 'word' && /^-[LP]$/.test(option.value)) close += 1;
  const end = tokens[close];
  if (end?.kind !== 'operator' || end.op !== ')') return undefined;
  const after = tokens[close + 1];
  return after?.kind === 'word' && after.value.startsWith('/') ? { rest: after.value, next: close + 2 } : { rest: '', next: close + 1 };
}

/** The words brace expansion makes of `word` (`{a,b}`, `{1..3}`), in order; the word itself, with `*` for each brace, past BRACES_KEPT. */
export function braceExpansions(word: string): string[] {
  let found = [word];
  for (let round = 0; round < 8; round += 1) {
    const next: string[] = [];
    let expanded = false;
    for (const w of found) {
      const parts = firstBrace(w);
      if (parts === undefined) next.push(w);
      else {
        expanded = true;
        for (const choice of parts.choices) next.push(`${parts.before}${choice}${parts.after}`);
      }
      if (next.length > BRACES_KEPT) return [word, word.replace(/\{[^{}]*\}/g, '*')];
    }
    found = next;
    if (!expanded) break;
  }
  return found;
}

const BRACES_KEPT = 64;

/** The first `{...}` of a word that bash expands (a list with a comma at its own level, or a range), split. */
function firstBrace(word: string): { before: string; choices: string[]; after: string } | undefined {
  for (let open = word.indexOf('{'); open >= 0; open = word.indexOf('{', open + 1)) {
    let depth = 0;
    const commas: number[] = [];
    for (let i = open; i < word.length; i += 1) {
      if (word[i] === '{') depth += 1;
      else if (word[i] === '}' && --depth === 0) {
        const body = word.slice(open + 1, i);
        const range = /^(-?\d+)\.\.(-?\d+)$/.exec(body);
        const choices =
          commas.length > 0
            ? [...commas, i].map((end, k) => word.slice(k === 0 ? open + 1 : commas[k - 1]! + 1, end))
            : range
              ? numbers(Number(range[1]), Number(range[2]))
              : undefined;
        if (choices) return { before: word.slice(0, open), choices, after: word.slice(i + 1) };
        break;
      } else if (word[i] === ',' && depth === 1) commas.push(i);
    }
  }
  return undefined;
}

function numbers(from: number, to: number): string[] | undefined {
  if (Math.abs(to - from) > BRACES_KEPT) return undefined;
  const step = from <= to ? 1 : -1;
  const out: string[] = [];
  for (let n = from; n !== to + step; n += step) out.push(String(n));
  return out;
}

/** One word's spellings of a path: as it is, and `--opt=PATH` split; `~name/x` as this user's home too. */
function pathWord(words: string[], value: string): void {
  words.push(value);
  // `~name/x` is that user's home: judged as this user's too, who may be named.
  const other = /^~[A-Za-z_][\w.-]*(\/.*)?$/.exec(value);
  if (other) words.push(`~${other[1] ?? ''}`);
  const eq = value.indexOf('=');
  if (eq > 0 && value.slice(eq + 1) !== '') words.push(value.slice(eq + 1));
}

type Spelling = { text: string; pattern: RegExp };
const SPELLINGS_KEPT = 2000;
const spelledBefore = new Map<string, Spelling[]>();

/**
 * The ways a command can name a protected path: absolute, from home, relative to the cwd.
 * Every Bash check asks for the same few paths and folders: their regexes are built once.
 */
export function spellings(path: string, cwd: string | undefined, home: string): Spelling[] {
  const key = `${path}\0${cwd ?? ''}\0${home}`;
  let found = spelledBefore.get(key);
  if (!found) {
    if (spelledBefore.size >= SPELLINGS_KEPT) spelledBefore.clear();
    found = spell(path, cwd, home);
    spelledBefore.set(key, found);
  }
  return found;
}

function spell(path: string, cwd: string | undefined, home: string): Spelling[] {
  // A name ends where a path component ends: recap-old or recap.bak are other files.
  const whole = (text: string, before = '') => ({ text, pattern: new RegExp(`${before}${escapeRegex(text)}(?![\\w.-])`) });
  const found = [whole(path)];
  // The home-relative spellings only for paths below home: `~` alone names far more.
  if (path !== home && inside(path, home)) {
    const rest = path.slice(home.length);
    for (const prefix of ['~', '$HOME', '${HOME}', '"$HOME"', '"${HOME}"']) found.push(whole(`${prefix}${rest}`));
  }
  if (cwd !== undefined && path !== cwd && inside(path, cwd)) {
    const relative = path.slice(cwd.length + 1);
    found.push(whole(relative, `(?:^|[\\s'"=<>|;&(:])(?:\\./)?`));
  }
  return found;
}
