// The folders a Bash line may run its commands in besides the one it starts in: `cd` and
// `pushd` to a folder it names, and the options that make a program work elsewhere (`env -C`,
// `git -C`, `make -C`, `tar --directory`...). The protection rules judge the line's relative
// paths from each of them as well (`cd .. && rm -rf data/log`). A folder the shell works out
// as it runs (`cd "$DIR"`, `cd -`, `popd`) is not followed, as no path the shell computes is.
import { absolute } from './pathNames.js';
import { effectiveProgram, programName } from './runsRecap.js';
import { commandsWithin, type Within } from './shellCommands.js';
import type { SimpleCommand, WordToken } from './shellTokens.js';

/** Folders followed per line at most: a line that may be in more is refused (protection.ts). */
export const FOLDERS_KEPT = 32;
/** Programs' options that make them work in another folder; their value is that folder. */
const FOLDER_OPTIONS: ReadonlyMap<string, readonly string[]> = new Map([
  ['env', ['-C', '--chdir']],
  ['git', ['-C']],
  ['make', ['-C', '--directory']],
  ['gmake', ['-C', '--directory']],
  ['ninja', ['-C']],
  ['tar', ['-C', '--directory']],
  ['sudo', ['-D', '--chdir']],
  ['npm', ['--prefix', '-C']],
  ['pnpm', ['-C', '--dir']],
  ['yarn', ['--cwd']],
  ['bun', ['--cwd']],
  ['parallel', ['--wd', '--workdir']],
  ['tmux', ['-c']],
  ['unshare', ['--wd']],
  ['nsenter', ['--wd']],
  ['bwrap', ['--chdir']],
  ['systemd-run', ['--working-directory']],
  ['flatpak-spawn', ['--directory']],
]);
/** Folders that are programs' working trees without being their folder: judged as folders the line is in. */
const TREE_OPTIONS: ReadonlyMap<string, readonly string[]> = new Map([['git', ['--work-tree', '--git-dir']]]);
/** tar's old-style letters that take the next word as their value, in order (`tar cfC x.tar .. data`). */
const TAR_VALUED = new Set(['f', 'C', 'b', 'K', 'N', 'T', 'V', 'X', 'g', 'L', 'H', 'I']);

/** `cd`'s own options, before its folder. */
const CD_OPTIONS = /^-[LPe@]+$/;

/**
 * The folders `command` may move into (absolute, in the order met), each taken from every
 * folder it may already be in (`bases`: where it starts, as spelled and where it leads), `..`
 * as written; undefined past FOLDERS_KEPT.
 */
export function foldersEntered(command: string, bases: readonly (string | undefined)[], home: string, within: Within = commandsWithin(command)): string[] | undefined {
  const folders: string[] = [];
  // Each folder is taken from every one before it, so their number can double at each: past
  // FOLDERS_KEPT no more are made (`env -C a -C b ...` forty times must not hold the daemon).
  const enter = (word: WordToken | undefined): void => {
    const folder = word === undefined ? '~' : folderOf(word);
    if (folder === undefined || folders.length > FOLDERS_KEPT) return;
    for (const base of [...bases, ...folders]) {
      const path = absolute(folder, base, home);
      if (!folders.includes(path) && !bases.includes(path)) folders.push(path);
      if (folders.length > FOLDERS_KEPT) return;
    }
  };
  // CDPATH set in the line: `cd data` may be any of its folders' `data`.
  const cdPath: string[] = [];
  for (const simple of within.commands) {
    for (const word of simple.words) {
      const set = /^CDPATH=(.*)$/.exec(word.value);
      if (set) cdPath.push(...set[1]!.split(':').filter((d) => d !== ''));
    }
    const { program, args } = effectiveProgram(simple.words);
    const name = program?.literal ? programName(program.value) : '';
    if (name === 'cd') {
      const rest = args.filter((a, i) => !(CD_OPTIONS.test(a.value) && args.slice(0, i).every((b) => CD_OPTIONS.test(b.value))));
      const target = rest[0]?.value === '--' ? rest[1] : rest[0];
      if (target?.value !== '-') enter(target);
      if (target !== undefined && !/^\.{0,2}\//.test(target.value)) for (const dir of cdPath) enter({ ...target, value: `${dir}/${target.value}` });
    } else if (name === 'find' && args.some((a) => a.value === '-execdir' || a.value === '-okdir')) {
      // -execdir runs in each found file's folder: at least the starting points.
      const expression = args.findIndex((a) => /^[-(!]/.test(a.value));
      for (const start of expression < 0 ? args : args.slice(0, expression)) enter(start);
    } else if (name === 'pushd') {
      const target = args.find((a) => a.value !== '-n');
      if (target !== undefined && !/^[+-]\d+$/.test(target.value)) enter(target);
    }
    optionFolders(simple, enter);
    if (folders.length > FOLDERS_KEPT) return undefined;
  }
  return folders;
}

/** The folders given to programs' folder options in one simple command (`git -C ../x`, `tar --directory=y`). */
function optionFolders(simple: SimpleCommand, enter: (word: WordToken | undefined) => void): void {
  const words = simple.words;
  for (let at = 0; at < words.length; at += 1) {
    // Wherever the program's name stands (behind env, sudo or time too): a folder too many is only judged once more.
    const name = words[at]!.literal ? programName(words[at]!.value) : '';
    const options = [...(FOLDER_OPTIONS.get(name) ?? []), ...(TREE_OPTIONS.get(name) ?? [])];
    if (options.length === 0) continue;
    if (name === 'tar') tarOldStyle(words.slice(at + 1), enter);
    for (let i = at + 1; i < words.length; i += 1) {
      const value = optionValue(words, i, options);
      if (value === undefined) continue;
      if (value.next) i += 1;
      if (value.word !== undefined) enter(value.word);
    }
  }
}

/** The words `options` give as values in `args`, each spelled as optionValue reads them; tar's old style too. */
export function optionWords(args: readonly WordToken[], options: readonly string[], tar = false): WordToken[] {
  const found: WordToken[] = [];
  const take = (word: WordToken | undefined) => void (word !== undefined && found.push(word));
  if (tar) tarOldStyle(args, take);
  for (let i = 0; i < args.length; i += 1) {
    const value = optionValue(args, i, options);
    if (value === undefined) continue;
    if (value.next) i += 1;
    take(value.word);
  }
  return found;
}

/**
 * The folder an option at `words[i]` gives, if it is one of `options`: `-C dir`, `-Cdir`, a
 * run of short options ending in it (`-iC..`, `-cC ..`), `--chdir=dir`, `--chdir dir`, or
 * any start of a long one getopt would take for it (`--ch=..`).
 */
function optionValue(words: readonly WordToken[], i: number, options: readonly string[]): { word: WordToken | undefined; next: boolean } | undefined {
  const word = words[i]!;
  const value = word.value;
  if (value.startsWith('--')) {
    const [name, ...rest] = value.split('=');
    if (name!.length < 4 || !options.some((o) => o.startsWith('--') && o.startsWith(name!))) return undefined;
    return rest.length > 0 ? { word: { ...word, value: rest.join('=') }, next: false } : { word: words[i + 1], next: true };
  }
  if (!value.startsWith('-')) return undefined;
  const letters = options.filter((o) => /^-[A-Za-z]$/.test(o)).map((o) => o[1]!);
  const at = [...value.slice(1)].findIndex((c) => letters.includes(c));
  if (at < 0) return undefined;
  const attached = value.slice(at + 2);
  return attached !== '' ? { word: { ...word, value: attached }, next: false } : { word: words[i + 1], next: true };
}

/** tar's first word in the old style (`cfC`): its C takes the word its place in the letters gives. */
function tarOldStyle(args: readonly WordToken[], enter: (word: WordToken | undefined) => void): void {
  const first = args[0];
  if (first === undefined || first.value.startsWith('-') || !/^[A-Za-z]+$/.test(first.value)) return;
  const valued = [...first.value].filter((c) => TAR_VALUED.has(c));
  const at = valued.indexOf('C');
  if (at >= 0) enter(args[1 + at]);
}

/**
 * A word as the folder bash would go to, or undefined when the shell works it out as it runs.
 * A quoted `~` is a name like any other (`./~`); `~`, `~+`, `$HOME` and `$PWD` are read.
 */
function folderOf(word: WordToken): string | undefined {
  if (word.literal) return word.value.startsWith('~') ? `./${word.value}` : word.value;
  const value = word.value.replace(/^(?:\$HOME|\$\{HOME\})(?=\/|$)/, '~').replace(/^(?:\$PWD|\$\{PWD\})(?=\/|$)/, '~+');
  const prefix = /^~\+?(?=\/|$)/.exec(value)?.[0] ?? '';
  // Past its start, anything the shell would still expand (a variable, a glob) is unknown.
  return /[$`*?[\]{}~!]/.test(value.slice(prefix.length)) || value === '' ? undefined : value;
}
