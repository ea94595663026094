// Where a copy lands that its line does not spell. `cp -r SRC DIR` writes DIR/<SRC's name>,
// so `cp -r /tmp/x/.local ~` replaces ~/.local, recap's data folder in it, and its line names
// neither; nor does `rsync -a /tmp/x/.claude ~/` name the settings it overwrites, or `wget -P
// ~ URL/.bashrc` the file it writes. The protection rules judge each landing as a path the
// line names (protection.ts). Files whose names no line shows at all (a folder's contents,
// `rsync -a src/ DIR`, `cp -rT src DIR`; an archive's members, `tar -x -C DIR`; sources found
// at run time, `find ... -exec cp -t DIR {} +`) are given by the folder they go into, for the
// rules to refuse when it holds what recap protects; and so are a patch's and a checkout's
// files, for home and the folders above it only (in a project they are the agent's work).
import { effectiveProgram, programName } from './runsRecap.js';
import { optionWords } from './shellFolders.js';
import type { SimpleCommand, WordToken } from './shellTokens.js';

/** Programs that put each source in a folder given last (or with -t), under the source's own name. */
const COPIERS = new Set(['cp', 'gcp', 'mv', 'gmv', 'install', 'ginstall', 'ln', 'gln', 'rsync', 'scp', 'ditto']);
/** Operands past this many: only the last one and -t's folder are taken as where the others go. */
const PAIRED_UP_TO = 16;
/** Programs that unpack an archive's members into the folder they run in, or one an option names. */
const UNPACKERS: ReadonlyMap<string, readonly string[]> = new Map([
  ['unzip', ['-d']],
  ['bsdunzip', ['-d']],
  ['unar', ['-o', '-output-directory']],
  ['cpio', ['-D', '--directory']],
  ['jar', []],
  ['ar', []],
  ['pax', []],
]);
/** git's subcommands that write files into the work tree. */
const GIT_WRITERS = new Set(['checkout', 'switch', 'restore', 'reset', 'pull', 'merge', 'rebase', 'cherry-pick', 'revert', 'am', 'apply', 'stash']);

export type Landings = {
  /** The paths a copy writes without the line naming them, as words the rules read like the line's own. */
  named: WordToken[];
  /** The folders that receive names the line does not hold. */
  unseen: WordToken[];
  /** The folders a patch or a checkout writes into: judged as unseen when home or a folder above it. */
  intoTree: WordToken[];
};

const word = (value: string, literal = true): WordToken => ({ kind: 'word', value, literal });
const HERE = word('.');
/** An archive whose members may name any path (tar -P, unzip -:): they land anywhere, / included. */
const ANYWHERE = word('/');

/** Where the line's copies land. */
export function copyLandings(commands: readonly SimpleCommand[]): Landings {
  const landings: Landings = { named: [], unseen: [], intoTree: [] };
  for (const command of commands) {
    const found = effectiveProgram(command.words);
    let args = found.args;
    let name = found.program === undefined ? '' : programName(found.program.value);
    // toybox and busybox run the applet their next word names.
    if ((name === 'toybox' || name === 'busybox') && args[0] !== undefined) [name, args] = [programName(args[0].value), args.slice(1)];
    if (COPIERS.has(name)) copies(name, args, landings);
    else if (name === 'tar' || name === 'gtar' || name === 'bsdtar') unpacked(args, landings);
    else if (UNPACKERS.has(name)) landings.unseen.push(...(args.some((a) => a.value === '-:') ? [ANYWHERE] : orHere(optionWords(args, UNPACKERS.get(name)!))));
    else if (/^7z[arz]?$/.test(name) && /^[xe]$/.test(args[0]?.value ?? ''))
      landings.unseen.push(...orHere(args.filter((a) => a.value.startsWith('-o')).map((a) => word(a.value.slice(2), a.literal))));
    else if (/^python[\d.]*$/.test(name)) pythonUnpack(args, landings);
    else if (name === 'patch') landings.intoTree.push(...orHere(optionWords(args, ['-d', '--directory'])));
    else if (name === 'git') gitTree(args, landings);
    else if (name === 'wget') downloads(args, landings, ['-P', '--directory-prefix'], /^(?:-[a-zA-Z]*[rmx][a-zA-Z]*|--recursive|--mirror|--force-directories)$/);
    else if (name === 'curl' && args.some((a) => /^(?:-[a-zA-Z]*O[a-zA-Z]*|--remote-name(?:-all)?)$/.test(a.value))) {
      downloads(args, landings, ['--output-dir'], /^(?:-[a-zA-Z]*J[a-zA-Z]*|--remote-header-name)$/);
    }
  }
  return landings;
}

/**
 * Each operand might be the folder the others go into: options are not told apart from their
 * values here (rsync alone has dozens), so every pair is taken both ways, which judges more
 * paths than the copy writes, never fewer.
 */
function copies(name: string, args: WordToken[], landings: Landings): void {
  const operands = args.filter((a) => !a.value.startsWith('-') && a.value !== ';' && a.value !== '+').map((a) => local(name, a));
  const given = optionWords(args, ['-t', '--target-directory']).map((a) => local(name, a));
  const targets = [...given, ...(operands.length > PAIRED_UP_TO ? operands.slice(-1) : operands)];
  const sources = operands.filter((o) => !given.some((t) => t.value === o.value));
  // Sources the line does not hold: given by find -exec ({}) or xargs (none at all), or named in a file.
  const unnamed = sources.length === 0 || sources.some((s) => s.value === '{}') || args.some((a) => a.value.startsWith('--files-from'));
  // -T: the last operand becomes a copy of the source, its contents merged into it.
  const merged = args.some((a) => /^(?:-[a-zA-Z]*T[a-zA-Z]*|--no-target-directory)$/.test(a.value)) && name !== 'scp';
  if (unnamed || merged || name === 'ditto') landings.unseen.push(...(unnamed ? targets : operands.slice(-1)));
  // cp --parents and rsync -R keep the source's path under the folder, not only its name.
  const whole = args.some((a) => a.value === '--parents' || a.value === '--relative' || (name === 'rsync' && /^-[a-zA-Z]*R[a-zA-Z]*$/.test(a.value)));
  for (const target of targets) {
    for (const source of sources) {
      if (source === target || source.value === '{}') continue;
      if (isContents(name, source.value)) landings.unseen.push(target);
      else landings.named.push(word(`${folderOf(target.value)}/${whole ? relativePart(source.value) : nameOf(source.value)}`, target.literal && source.literal));
    }
  }
}

/** rsync's and scp's `host:path` as the path on this machine it may well be (`localhost:`): relative to home. */
function local(name: string, operand: WordToken): WordToken {
  if ((name !== 'rsync' && name !== 'scp') || !/^[^/]*:/.test(operand.value)) return operand;
  const path = operand.value.slice(operand.value.indexOf(':') + 1);
  return word(path.startsWith('/') ? path : `~/${path}`, false);
}

/** tar extracting (-x, --extract, --get, or x in its first word's letters) into -C's folder or the one it runs in. */
function unpacked(args: WordToken[], landings: Landings): void {
  const first = args[0]?.value ?? '';
  const extracts = args.some((a) => /^(?:-[a-zA-Z]*x[a-zA-Z]*|--extract|--get)$/.test(a.value)) || /^[a-zA-Z]*x/.test(first);
  if (!extracts) return;
  const anywhere = args.some((a) => /^(?:-[a-zA-Z]*P[a-zA-Z]*|--absolute-names)$/.test(a.value)) || /^[a-zA-Z]*P/.test(first);
  landings.unseen.push(...(anywhere ? [ANYWHERE] : orHere(optionWords(args, ['-C', '--directory'], true))));
}

/** `python -m zipfile -e ARCHIVE DIR` and `-m tarfile -e`: the archive's members into DIR. */
function pythonUnpack(args: WordToken[], landings: Landings): void {
  const module = args.findIndex((a) => a.value === '-m');
  if (!['zipfile', 'tarfile'].includes(args[module + 1]?.value ?? '') || !args.some((a) => a.value === '-e' || a.value === '--extract')) return;
  const operands = args.slice(module + 2).filter((a) => !a.value.startsWith('-'));
  landings.unseen.push(operands[1] ?? HERE);
}

/** git writing its work tree (checkout, reset, pull, apply...): --work-tree's folder, -C's, or the one it runs in. */
function gitTree(args: WordToken[], landings: Landings): void {
  const subcommand = args.find((a, i) => !a.value.startsWith('-') && !['-C', '-c', '--git-dir', '--work-tree'].includes(args[i - 1]?.value ?? ''));
  if (subcommand === undefined || !GIT_WRITERS.has(subcommand.value)) return;
  const tree = optionWords(args, ['--work-tree']);
  landings.intoTree.push(...(tree.length > 0 ? tree : orHere(optionWords(args.slice(0, args.indexOf(subcommand)), ['-C']))));
}

/** Each URL's file in the download folder (`wget -P DIR URL`, `curl -O`), or the folder itself when the server or a crawl names the files. */
function downloads(args: WordToken[], landings: Landings, folderOptions: readonly string[], serverNamed: RegExp): void {
  const folder = orHere(optionWords(args, folderOptions))[0]!;
  if (args.some((a) => serverNamed.test(a.value))) {
    landings.unseen.push(folder);
    return;
  }
  for (const url of args.filter((a) => /^[a-z][a-z0-9+.-]*:\/\//i.test(a.value))) {
    const name = fileOfUrl(url.value);
    if (name === undefined) landings.unseen.push(folder);
    else landings.named.push(word(`${folderOf(folder.value)}/${name}`, folder.literal));
  }
}

/** The file a download of `url` is saved as (its path's last part, index.html for none), or undefined when the URL cannot be read. */
function fileOfUrl(url: string): string | undefined {
  try {
    return decodeURIComponent(nameOf(new URL(url).pathname)) || 'index.html';
  } catch {
    return undefined;
  }
}

/** The folders given, or else the one the program runs in. */
const orHere = (folders: WordToken[]): WordToken[] => (folders.length > 0 ? folders : [HERE]);

/** Whether a source is copied as its contents, not as itself: rsync's `src/`, and `src/.` for any. */
const isContents = (name: string, source: string) => /(?:^|\/)\.\/*$/.test(source) || (name === 'rsync' && source.endsWith('/'));

/** A folder as a prefix: `~/` is `~`, `/` stays itself. */
const folderOf = (path: string) => path.replace(/\/+$/, '') || '';

/** The name a source is copied under: its last part (`a/b/` is `b`). */
const nameOf = (path: string) => path.replace(/\/+$/, '').split('/').pop() ?? path;

/** The part of a source cp --parents and rsync -R keep: after rsync's `/./` marker, else the whole path without its leading `/`. */
const relativePart = (path: string) => {
  const marker = path.indexOf('/./');
  return (marker >= 0 ? path.slice(marker + 3) : path).replace(/^\/+/, '').replace(/\/+$/, '');
};
