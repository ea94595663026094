// Where a copy lands that its line does not spell. `cp -r SRC DIR` writes DIR/<SRC's name>,
// so `cp -r /tmp/x/.local ~` replaces ~/.local, recap's data folder in it, and its line names
// neither; nor does `rsync -a /tmp/x/.claude ~/` name the settings it overwrites. The
// protection rules judge each landing as a path the line names (protection.ts). A copy of a
// folder's contents (`rsync -a src/ DIR`, `cp -a src/. DIR`) and an archive unpacked
// (`tar -x -C DIR`, `unzip -d DIR`) put there names no line shows at all: those folders are
// given apart, for the rules to refuse when one holds what recap protects.
import { effectiveProgram, programName } from './runsRecap.js';
import { optionWords } from './shellFolders.js';
import type { SimpleCommand, WordToken } from './shellTokens.js';

/** Programs that put each source in a folder given last (or with -t), under the source's own name. */
const COPIERS = new Set(['cp', 'gcp', 'mv', 'gmv', 'install', 'ginstall', 'ln', 'gln', 'rsync', 'scp']);
/** Operands past this many: only the last one and -t's folder are taken as where the others go. */
const PAIRED_UP_TO = 16;

export type Landings = {
  /** The paths a copy writes without the line naming them, as words the rules read like the line's own. */
  named: WordToken[];
  /** The folders that receive names the line does not hold (a folder's contents, an archive's members). */
  unseen: WordToken[];
};

/** Where the line's copies land. */
export function copyLandings(commands: readonly SimpleCommand[]): Landings {
  const landings: Landings = { named: [], unseen: [] };
  for (const command of commands) {
    const { program, args } = effectiveProgram(command.words);
    const name = program === undefined ? '' : programName(program.value);
    if (COPIERS.has(name)) copies(name, args, landings);
    else if (name === 'tar' || name === 'bsdtar') unpacked(program!, args, landings);
    else if (name === 'unzip') landings.unseen.push(...orHere(optionWords(args, ['-d']), program!));
  }
  return landings;
}

/**
 * Each operand might be the folder the others go into: options are not told apart from their
 * values here (rsync alone has dozens), so every pair is taken both ways, which judges more
 * paths than the copy writes, never fewer.
 */
function copies(name: string, args: WordToken[], landings: Landings): void {
  const operands = args.filter((a) => !a.value.startsWith('-') && !isRemote(name, a.value));
  const targets = [...optionWords(args, ['-t', '--target-directory']), ...(operands.length > PAIRED_UP_TO ? operands.slice(-1) : operands)];
  for (const target of targets) {
    for (const source of operands) {
      if (source === target) continue;
      if (isContents(name, source.value)) landings.unseen.push(target);
      else landings.named.push({ kind: 'word', value: `${folderOf(target.value)}/${nameOf(source.value)}`, literal: target.literal && source.literal });
    }
  }
}

/** tar extracting (-x, --extract, --get, or x in its first word's letters) into -C's folder or the one it runs in. */
function unpacked(program: WordToken, args: WordToken[], landings: Landings): void {
  const first = args[0]?.value ?? '';
  const extracts = args.some((a) => /^(?:-[a-zA-Z]*x[a-zA-Z]*|--extract|--get)$/.test(a.value)) || /^[a-zA-Z]*x/.test(first);
  if (extracts) landings.unseen.push(...orHere(optionWords(args, ['-C', '--directory'], true), program));
}

/** The folders given, or else the one the program runs in. */
const orHere = (folders: WordToken[], program: WordToken): WordToken[] => (folders.length > 0 ? folders : [{ kind: 'word', value: '.', literal: program.literal }]);

/** Whether a source is copied as its contents, not as itself: rsync's `src/`, and `src/.` for any. */
const isContents = (name: string, source: string) => /(?:^|\/)\.\/*$/.test(source) || (name === 'rsync' && source.endsWith('/'));

/** rsync's and scp's `host:path`: on another machine. */
const isRemote = (name: string, value: string) => (name === 'rsync' || name === 'scp') && /^[^/]*:/.test(value);

/** A folder as a prefix: `~/` is `~`, `/` stays itself. */
const folderOf = (path: string) => path.replace(/\/+$/, '') || '';

/** The name a source is copied under: its last part (`a/b/` is `b`). */
const nameOf = (path: string) => path.replace(/\/+$/, '').split('/').pop() ?? path;
