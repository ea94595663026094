// recap's installed code against the manifest `recap install` recorded: which files differ,
// and what the user is told. Pure: the files' hashes come in as data (src/common/codeManifest.ts reads them).

/** A file's sha256 and the lstat facts that let a check skip hashing it again (see common/codeManifest.ts). */
export type FileRecord = [sha256: string, stat: string];

/** The code as found on disk: the package's root, its version (package.json's) and every file by its path from the root. */
export type InstalledCode = {
  root: string;
  recap: string;
  files: Record<string, FileRecord>;
  /** The folders whose entries decide what Node loads, each with its lstat: a file added, removed or renamed in one changes it. */
  folders: Record<string, string>;
};

/** How to put recap's own code back: it is installed from a clone (README), not from a registry. */
export const REINSTALL = 'reinstall recap (in its clone: git status shows what changed; npm install builds it again; then npm link)';

export const CODE_MANIFEST_VERSION = 2;

/** What `recap install` writes into the data folder. */
export type CodeManifest = InstalledCode & {
  format: typeof CODE_MANIFEST_VERSION;
  /** When it was written, ms since the epoch. */
  written: number;
  /** The `recap install` target that wrote it last (an agent's name, or systemd): the command the messages name. */
  installedBy: string;
};

type CodeDifference = { changed: string[]; added: string[]; removed: string[] };

export type CodeVerdict =
  | { state: 'verified'; files: number; manifest: string }
  | { state: 'unverified'; why: string }
  /** `command`: the `recap install` that records the code anew, for the user to run once they know the change is theirs. */
  | { state: 'changed'; files: string[]; message: string; command: string };

/** The files whose hash differs, that are new, or that are gone, each list sorted. */
export function codeDifference(recorded: Record<string, FileRecord>, found: Record<string, FileRecord>): CodeDifference {
  const changed: string[] = [];
  const added: string[] = [];
  for (const [path, [sha256]] of Object.entries(found)) {
    const before = Object.hasOwn(recorded, path) ? recorded[path] : undefined;
    if (before === undefined) added.push(path);
    else if (before[0] !== sha256) changed.push(path);
  }
  const removed = Object.keys(recorded).filter((path) => !Object.hasOwn(found, path));
  return { changed: changed.sort(), added: added.sort(), removed: removed.sort() };
}

const FILES_NAMED = 5;

/** "3 files: a (changed), b (added), c (removed)", at most FILES_NAMED of them named. */
function describeFiles(difference: CodeDifference): { names: string[]; text: string } {
  const all = [
    ...difference.changed.map((p) => [p, 'changed'] as const),
    ...difference.added.map((p) => [p, 'added'] as const),
    ...difference.removed.map((p) => [p, 'removed'] as const),
  ];
  const named = all.slice(0, FILES_NAMED).map(([path, how]) => `${path} (${how})`);
  const more = all.length > FILES_NAMED ? `, and ${all.length - FILES_NAMED} more` : '';
  return { names: all.map(([path]) => path), text: `${all.length} file${all.length === 1 ? '' : 's'}: ${named.join(', ')}${more}` };
}

/**
 * The verdict on the code found, given the manifest (undefined: none was written; a string:
 * it is there but cannot be read, and why). `path` is the manifest's, for the messages.
 */
export function codeVerdict(path: string, manifest: CodeManifest, found: InstalledCode): CodeVerdict;
export function codeVerdict(path: string, manifest: CodeManifest | undefined | string, found: InstalledCode | undefined): CodeVerdict;
export function codeVerdict(path: string, manifest: CodeManifest | undefined | string, found: InstalledCode | undefined): CodeVerdict {
  if (manifest === undefined) {
    return { state: 'unverified', why: `no manifest of recap's code at ${path} (recap install <agent> writes it)` };
  }
  if (typeof manifest === 'string') {
    return {
      state: 'changed',
      files: [],
      command: 'recap install <agent>',
      message:
        `the manifest of recap's code at ${path} cannot be read (${manifest}), so the recap daemon will not start: ` +
        `recap cannot tell whether its code is the code that was installed. In your own terminal, run recap install <agent> again to record the code as it is now; if you did not change recap's files yourself, ${REINSTALL} first.`,
    };
  }
  if (found === undefined) throw new Error('the installed code is needed to judge it against a manifest');
  const install = `recap install ${manifest.installedBy}`;
  if (manifest.root !== found.root) {
    return {
      state: 'changed',
      files: [],
      command: install,
      message:
        `recap runs from ${found.root}, but \`${install}\` recorded recap's code at ${manifest.root} (${path}), so the recap daemon will not start. ` +
        `If this is the recap you use now, run \`${install}\` again from it, in your own terminal: it records this code and points the hooks here.`,
    };
  }
  const difference = codeDifference(manifest.files, found.files);
  const files = describeFiles(difference);
  if (files.names.length === 0) return { state: 'verified', files: Object.keys(found.files).length, manifest: path };
  const upgraded = manifest.recap !== found.recap;
  const what = upgraded
    ? `recap's code is version ${found.recap} now, but \`${install}\` recorded version ${manifest.recap}`
    : `recap's code has changed since \`${install}\` recorded it`;
  const fix = upgraded
    ? `If you upgraded recap, run \`${install}\` again in your own terminal: it records the new code. If you did not, ${REINSTALL}, then run \`${install}\` in your own terminal.`
    : `If you upgraded, reinstalled or changed recap yourself, run \`${install}\` again in your own terminal: it records the code as it is now. If you did not, a program may have rewritten recap's files: ${REINSTALL}, then run \`${install}\` in your own terminal.`;
  return {
    state: 'changed',
    files: files.names,
    command: install,
    message: `${what} (${files.text}), so the recap daemon will not start: code changed in recap's files would run inside it. ${fix}`,
  };
}

/** What recap-hook tells the agent when it denies a tool call because the daemon cannot start for this. */
export function codeChangedDenial(message: string): string {
  return (
    `recap: the recap daemon cannot start, so every tool but recap's own commands is denied: ${message} ` +
    'Tell the user this, word for word: only they can do it, in their own terminal.'
  );
}
