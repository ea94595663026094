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
  ['npm', ['--prefix']],
  ['pnpm', ['-C', '--dir']],
  ['yarn', ['--cwd']],
  ['bun', ['--cwd']],
]);

/** `cd`'s own options, before its folder. */
const CD_OPTIONS = /^-[LPe@]+$/;

/**
 * The folders `command` may move into (absolute, in the order met), each taken from every
 * folder it may already be in (`bases`: where it starts, as spelled and where it leads), `..`
 * as written; undefined past FOLDERS_KEPT.
 */
export function foldersEntered(command: string, bases: readonly (string | undefined)[], home: string, within: Within = commandsWithin(command)): string[] | undefined {
  const folders: string[] = [];
  const enter = (word: WordToken | undefined): void => {
    const folder = word === undefined ? '~' : folderOf(word);
    if (folder === undefined) return;
    for (const base of [...bases, ...folders]) {
      const path = absolute(folder, base, home);
      if (!folders.includes(path) && !bases.includes(path)) folders.push(path);
    }
  };
  for (const simple of within.commands) {
    const { program, args } = effectiveProgram(simple.words);
    const name = program?.literal ? programName(program.value) : '';
    if (name === 'cd') {
      const rest = args.filter((a, i) => !(CD_OPTIONS.test(a.value) && args.slice(0, i).every((b) => CD_OPTIONS.test(b.value))));
      const target = rest[0]?.value === '--' ? rest[1] : rest[0];
      if (target?.value !== '-') enter(target);
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
    const options = words[at]!.literal ? FOLDER_OPTIONS.get(programName(words[at]!.value)) : undefined;
    if (options === undefined) continue;
    for (let i = at + 1; i < words.length; i += 1) {
      const word = words[i]!;
      const option = options.find((o) => word.value === o || word.value.startsWith(`${o}=`) || (!o.startsWith('--') && word.value.startsWith(o) && word.value.length > o.length));
      if (option === undefined) continue;
      const attached = word.value.slice(option.length).replace(/^=/, '');
      const value = attached !== '' ? { ...word, value: attached } : words[(i += 1)];
      if (value !== undefined) enter(value);
    }
  }
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
