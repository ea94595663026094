// recap's installed code, file by file, and the manifest of it that `recap install` writes
// into the data folder: bin/recap.js checks it before it loads the daemon, the daemon at start,
// recap-hook when the daemon is down, and `recap doctor`. Node built-ins only: the hook's
// fallback bundles it.
//
// What is covered: every file the daemon, the CLI and the hook can load from the package:
// bin/, dist/, package.json, and the whole closure of its production dependencies as Node
// resolves them (each package folder, but not its own node_modules, whose packages are
// reached as dependencies). bin/ and dist/ are hashed whole; a dependency's files by what Node
// loads (.js, .cjs, .mjs, .json, .node) and what recap reads itself (gpt-tokenizer's
// .tiktoken vocabularies: the token counts the gate trips on), the rest by name only (a file
// added under any name is seen: `require('./x')` finds a file `x` first).
//
// A check costs lstat calls, not reading: each file is hashed (sha256) when the manifest is
// written, with its lstat (device, inode, size, mode, ctime), and every folder with its own.
// A same-user program can set a file's mtime back but not its ctime, which any write, rename
// or chmod moves on; a file added, removed or renamed moves its folder's. When every folder
// and every hashed file is as recorded, the code is; otherwise the folders are listed again
// and only the files whose lstat differs are hashed, to name what changed.
import { mkdirSync, lstatSync, readdirSync, readFileSync, readlinkSync, existsSync, realpathSync, type Stats } from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname, join, relative } from 'node:path';
import { PACKAGE_ROOT } from './bins.js';
import { UserError } from './errors.js';
import { recapVersion } from './version.js';
import { codeManifestPath, dataDir } from './paths.js';
import { writeWhole } from './wholeFile.js';
import {
  CODE_MANIFEST_VERSION,
  REINSTALL,
  codeChangedDenial,
  codeVerdict,
  type CodeManifest,
  type CodeVerdict,
  type FileRecord,
  type InstalledCode,
} from '../events/codeManifest.js';

type Env = NodeJS.ProcessEnv;

/** The facts of an lstat that any change of the file's content or kind moves on. */
const statKey = (stat: Stats) => `${stat.dev}:${stat.ino}:${stat.size}:${stat.mode}:${stat.ctimeMs}`;

/** The folder of package `name` as Node finds it from `from`: from/node_modules/name, then up. */
function packageFolder(from: string, name: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const folder = join(dir, 'node_modules', name);
    if (existsSync(join(folder, 'package.json'))) return folder;
    if (dirname(dir) === dir) return undefined;
  }
}

function dependencyNames(folder: string): string[] {
  const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
  return Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies, ...manifest.peerDependencies });
}

/**
 * The package's production dependencies, each once, as Node resolves them (a missing optional
 * one is left out): `found` where the lookup found it, `folder` its real path, which Node loads
 * from and resolves the package's own dependencies from (a linked layout, as pnpm's, too).
 */
export function dependencyClosure(root: string): { found: string; folder: string }[] {
  const seen = new Set<string>();
  const packages: { found: string; folder: string }[] = [];
  const visit = (from: string) => {
    for (const name of dependencyNames(from)) {
      const found = packageFolder(from, name);
      if (found === undefined) continue;
      const folder = realpathSync(found);
      if (seen.has(folder)) continue;
      seen.add(folder);
      packages.push({ found, folder });
      visit(folder);
    }
  };
  visit(root);
  return packages;
}

/** Every file under `dir` (a link as a link) into `files`, every folder into `folders`; a dependency's node_modules left out. */
function walk(dir: string, files: string[], folders: string[], skipModules: boolean): void {
  folders.push(dir);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!(skipModules && entry.name === 'node_modules')) walk(path, files, folders, skipModules);
    } else files.push(path);
  }
}

/**
 * What Node loads as code or data from a dependency, and what recap reads from one (the token
 * vocabularies, common/tokenCounter.ts): by these extensions (or a file added, whatever its name).
 */
const LOADABLE = /\.(?:js|cjs|mjs|json|node|tiktoken)$/;

/**
 * The package's files the daemon, the CLI and the hook can load, by absolute path: `hashed`,
 * and `listed` (a dependency's README, types, maps: never loaded, so only their names are
 * kept); and the folders whose entries decide what Node finds: the package's, each
 * dependency's and the node_modules (and @scope) folders they are found in.
 */
export function codeFiles(root: string = PACKAGE_ROOT): { hashed: string[]; listed: string[]; folders: string[] } {
  const hashed = [join(root, 'package.json')];
  const folders = [root];
  for (const folder of ['bin', 'dist']) if (existsSync(join(root, folder))) walk(join(root, folder), hashed, folders, false);
  const listed: string[] = [];
  for (const { found, folder } of dependencyClosure(root)) {
    const files: string[] = [];
    walk(folder, files, folders, true);
    for (const file of files) (LOADABLE.test(file) ? hashed : listed).push(file);
    // The node_modules folder it was found in (and the @scope folder between): a package added, or a link changed, there is seen.
    const parent = dirname(found);
    folders.push(parent);
    if (!parent.endsWith('/node_modules')) folders.push(dirname(parent));
  }
  return { hashed, listed, folders: [...new Set(folders)] };
}

function sha256(path: string, stat: Stats): string {
  // A link is recorded as where it leads: the file it names is covered on its own if it is recap's.
  const bytes = stat.isSymbolicLink() ? `link:${readlinkSync(path)}` : readFileSync(path);
  return createHash('sha256').update(bytes).digest('hex');
}

/** A file kept by name only. */
const LISTED: FileRecord = ['', ''];

/**
 * The code as it is on disk now. A file whose lstat matches `known`'s record keeps its
 * recorded hash; any other is hashed.
 */
export function installedCode(root: string = PACKAGE_ROOT, known: Record<string, FileRecord> = {}): InstalledCode {
  const files: Record<string, FileRecord> = {};
  const folders: Record<string, string> = {};
  const listing = codeFiles(root);
  // path.relative resolves both paths on every call: a prefix is sliced off instead.
  const inside = `${root}/`;
  const nameOf = (path: string) => (path.startsWith(inside) ? path.slice(inside.length) : relative(root, path));
  for (const path of listing.hashed) {
    const name = nameOf(path);
    const stat = lstatSync(path);
    const key = statKey(stat);
    const before = Object.hasOwn(known, name) ? known[name] : undefined;
    files[name] = [before !== undefined && before[1] === key ? before[0] : sha256(path, stat), key];
  }
  for (const path of listing.listed) files[nameOf(path)] = LISTED;
  for (const path of listing.folders) folders[path === root ? '.' : nameOf(path)] = statKey(lstatSync(path));
  return { root, recap: recapVersion(root), files, folders };
}

/**
 * The manifest as it is written, in two lines, so that a check parses only the first (a
 * third of the file) and builds no string per file:
 * - the head: the facts of the manifest, how many files it names, and `lstats`, one array per
 *   folder: the folder's name and its lstat facts, then each hashed file's name and its facts
 *   (the facts as numbers: LSTAT_FACTS of them, in statKey's order);
 * - the rest, read only when a check finds a difference, to name it: each hashed file's sha256
 *   and the names of the files listed only, by folder.
 */
type ManifestHead = Omit<CodeManifest, 'files' | 'folders'> & { files: number; lstats: (string | number)[][] };
type ManifestRest = { sha256: Record<string, Record<string, string>>; listed: Record<string, string[]> };

const LSTAT_FACTS = 5;
/** statKey's facts as numbers; a folder not recorded has facts no lstat has (a check then lists everything again). */
const factsOf = (key: string): number[] => (key === '' ? Array<number>(LSTAT_FACTS).fill(-1) : key.split(':').map(Number));
const keyOf = (entry: readonly (string | number)[], at: number) => entry.slice(at, at + LSTAT_FACTS).join(':');
/** Whether `stat` has the facts recorded at `entry[at]` onwards (statKey's, compared as numbers). */
const sameFacts = (stat: Stats, entry: readonly (string | number)[], at: number) =>
  stat.ctimeMs === entry[at + 4] && stat.ino === entry[at + 1] && stat.size === entry[at + 2] && stat.mode === entry[at + 3] && stat.dev === entry[at];

function encode(manifest: CodeManifest): string {
  const { files: _files, folders: _folders, ...facts } = manifest;
  const byFolder = new Map<string, { lstats: (string | number)[]; sha256: Record<string, string>; listed: string[] }>();
  const folderOf = (folder: string, key = '') => {
    let entry = byFolder.get(folder);
    if (entry === undefined) byFolder.set(folder, (entry = { lstats: [folder, ...factsOf(key)], sha256: {}, listed: [] }));
    return entry;
  };
  for (const [name, key] of Object.entries(manifest.folders)) folderOf(name, key);
  for (const [name, [sha256, key]] of Object.entries(manifest.files)) {
    const slash = name.lastIndexOf('/');
    const entry = folderOf(slash < 0 ? '.' : name.slice(0, slash));
    const file = name.slice(slash + 1);
    if (key === '') entry.listed.push(file);
    else {
      entry.lstats.push(file, ...factsOf(key));
      entry.sha256[file] = sha256;
    }
  }
  const head: ManifestHead = { ...facts, files: Object.keys(manifest.files).length, lstats: [...byFolder.values()].map((e) => e.lstats) };
  const rest: ManifestRest = { sha256: {}, listed: {} };
  for (const [folder, entry] of byFolder) {
    rest.sha256[folder] = entry.sha256;
    if (entry.listed.length > 0) rest.listed[folder] = entry.listed;
  }
  return `${JSON.stringify(head)}\n${JSON.stringify(rest)}\n`;
}

function decode(head: ManifestHead, rest: ManifestRest): CodeManifest {
  const files: Record<string, FileRecord> = {};
  const folders: Record<string, string> = {};
  for (const entry of head.lstats) {
    const folder = entry[0] as string;
    const prefix = folder === '.' ? '' : `${folder}/`;
    folders[folder] = keyOf(entry, 1);
    const sha256 = rest.sha256[folder] ?? {};
    for (let at = 1 + LSTAT_FACTS; at < entry.length; at += 1 + LSTAT_FACTS) {
      const name = entry[at] as string;
      // A file with no hash recorded is not taken as recorded: a check finds it added.
      if (Object.hasOwn(sha256, name)) files[`${prefix}${name}`] = [sha256[name]!, keyOf(entry, at + 1)];
    }
  }
  for (const [folder, names] of Object.entries(rest.listed)) for (const name of names) files[folder === '.' ? name : `${folder}/${name}`] = LISTED;
  const { files: _count, lstats: _lstats, ...facts } = head;
  return { ...facts, files, folders };
}

/**
 * Whether every folder and every hashed file of the manifest has the lstat it recorded: then
 * no file was written, added, removed or renamed, and the code is as it was.
 */
function asRecorded(head: ManifestHead, root: string): boolean {
  if (head.root !== root) return false;
  try {
    // Names are joined as text, not by path.join: thousands of them, and lstat takes `a/../b` as it is.
    for (const entry of head.lstats) {
      const folder = entry[0];
      const path = folder === '.' ? root : `${root}/${folder}`;
      if (!sameFacts(lstatSync(path), entry, 1)) return false;
      for (let at = 1 + LSTAT_FACTS; at < entry.length; at += 1 + LSTAT_FACTS) if (!sameFacts(lstatSync(`${path}/${entry[at]}`), entry, at + 1)) return false;
    }
    return true;
  } catch {
    return false;
  }
}

/** A manifest file read: its head parsed, and its rest, parsed when asked. */
type ManifestFile = { head: ManifestHead; rest: () => ManifestRest | string };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const NOT_OURS = 'not a manifest this recap writes';

/** The manifest file at `path`: undefined when there is none, a string saying why when it cannot be used. */
function readManifestFile(path: string): ManifestFile | undefined | string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // No such file, or a path to it through something that is no folder: none was written.
    return code === 'ENOENT' || code === 'ENOTDIR' ? undefined : `${code ?? (error as Error).message}`;
  }
  const end = bytes.indexOf(0x0a);
  let head: Partial<ManifestHead> | null;
  try {
    head = JSON.parse(bytes.toString('utf8', 0, end < 0 ? bytes.length : end)) as Partial<ManifestHead> | null;
  } catch {
    return 'not valid JSON';
  }
  if (isObject(head) && typeof head.format === 'number' && head.format < CODE_MANIFEST_VERSION) {
    return 'written by an earlier recap, in a form this one does not read';
  }
  const usable =
    head?.format === CODE_MANIFEST_VERSION &&
    typeof head.root === 'string' &&
    typeof head.recap === 'string' &&
    typeof head.installedBy === 'string' &&
    typeof head.files === 'number' &&
    Array.isArray(head.lstats) &&
    head.lstats.every((entry) => Array.isArray(entry) && typeof entry[0] === 'string' && (entry.length - 1) % (1 + LSTAT_FACTS) === LSTAT_FACTS);
  if (!usable) return NOT_OURS;
  const rest = (): ManifestRest | string => {
    let parsed: Partial<ManifestRest> | null;
    try {
      parsed = JSON.parse(bytes.toString('utf8', end + 1)) as Partial<ManifestRest> | null;
    } catch {
      return 'not valid JSON';
    }
    const ok = isObject(parsed?.sha256) && Object.values(parsed.sha256).every(isObject) && isObject(parsed.listed) && Object.values(parsed.listed).every(Array.isArray);
    return ok ? (parsed as ManifestRest) : NOT_OURS;
  };
  return { head: head as ManifestHead, rest };
}

/** A manifest file read, decoded whole, or why it cannot be (as readManifestFile says). */
function decodedFile(file: ManifestFile | undefined | string): CodeManifest | undefined | string {
  if (typeof file !== 'object') return file;
  const rest = file.rest();
  return typeof rest === 'string' ? rest : decode(file.head, rest);
}

/** The manifest at `path`, decoded: undefined when there is none, a string saying why when it cannot be used. */
export function readCodeManifest(path: string): CodeManifest | undefined | string {
  return decodedFile(readManifestFile(path));
}

/** Verdicts already reached in this process (bin/recap.js checks before it loads the daemon, which then need not check again). */
const CHECKED = Symbol.for('recap.codeVerdict');
type Checked = { key: string; verdict: CodeVerdict };

/** The installed code against the data folder's manifest. */
export function checkInstalledCode(env: Env = process.env, root: string = PACKAGE_ROOT): CodeVerdict {
  const path = codeManifestPath(env);
  const key = `${root}\0${path}`;
  const earlier = (globalThis as { [CHECKED]?: Checked })[CHECKED];
  if (earlier?.key === key) return earlier.verdict;
  const verdict = checkInstalledCodeNow(env, root);
  (globalThis as { [CHECKED]?: Checked })[CHECKED] = { key, verdict };
  return verdict;
}

/** The same check made again now, whatever this process found before: before recap's code is loaded after the daemon's start (a worker thread). */
function checkInstalledCodeNow(env: Env = process.env, root: string = PACKAGE_ROOT): CodeVerdict {
  const path = codeManifestPath(env);
  const file = readManifestFile(path);
  if (typeof file === 'object' && asRecorded(file.head, root)) return { state: 'verified', files: file.head.files, manifest: path };
  const manifest = decodedFile(file);
  // Nothing recorded, or nothing usable: the files need not be read to say so.
  return typeof manifest === 'object' ? codeVerdict(path, manifest, installedCode(root, manifest.files)) : codeVerdict(path, manifest, undefined);
}

/**
 * Whether recap's code may be loaded now, after the daemon's start (a worker thread's): it
 * is as recorded, or it was not recorded when the daemon started and still is not (the
 * daemon's own code ran so).
 */
export function codeStillTrusted(): boolean {
  try {
    const now = checkInstalledCodeNow().state;
    return now === 'verified' || (now === 'unverified' && checkInstalledCode().state === 'unverified');
  } catch {
    // A file gone or changing as it was checked (an install in progress).
    return false;
  }
}

/**
 * `recap install <target>` (the user's command): records the code as it is now, replacing
 * any manifest. Returns a note for the user when it replaced one the code no longer matched.
 */
export function recordInstalledCode(env: Env, target: string, root: string = PACKAGE_ROOT, now = Date.now()): string | undefined {
  const path = codeManifestPath(env);
  const before = readCodeManifest(path);
  let found: InstalledCode;
  try {
    found = installedCode(root, typeof before === 'object' ? before.files : {});
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new UserError(`recap's installed code under ${root} cannot be read (${code}); ${REINSTALL}, then run this again`);
  }
  const earlier = codeVerdict(path, before, found);
  const manifest: CodeManifest = { format: CODE_MANIFEST_VERSION, written: now, installedBy: target, ...found };
  try {
    mkdirSync(dataDir(env), { recursive: true, mode: 0o700 });
    writeWhole(path, encode(manifest), { mode: 0o600 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new UserError(`the manifest of recap's code, ${path}, could not be written (${code}); make ${dataDir(env)} writable by you, then run this again`);
  }
  if (earlier.state !== 'changed') return undefined;
  if (typeof before === 'string') return `the manifest in ${path} could not be read (${before}); it now records recap's code as it is.`;
  const files =
    earlier.files.length > 0
      ? ` (${earlier.files.length} file${earlier.files.length === 1 ? '' : 's'}, ${earlier.files.slice(0, 3).join(', ')}${earlier.files.length > 3 ? ', ...' : ''})`
      : '';
  return `recap's code did not match the manifest in ${path}${files}; it now records the code as it is. If you did not upgrade or change recap, ${REINSTALL}, and run this again.`;
}

/**
 * For recap-hook when the daemon is down: the denial to give a tool call while the daemon
 * cannot start because recap's code changed; undefined when it has not (or nothing was recorded).
 */
export function codeChanged(env: Env = process.env): string | undefined {
  try {
    const verdict = checkInstalledCode(env);
    return verdict.state === 'changed' ? codeChangedDenial(verdict.message) : undefined;
  } catch (error) {
    // The package's own files cannot be listed: the code cannot be vouched for either.
    return codeChangedDenial(`recap's installed code cannot be read (${(error as Error).message}); ${REINSTALL}, then run recap install <agent> in your own terminal.`);
  }
}
