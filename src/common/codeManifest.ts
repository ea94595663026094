// recap's installed code, file by file, and the manifest of it that `recap install` writes
// into the data folder: bin/recap.js checks it before it loads the daemon, the daemon at start,
// recap-hook when the daemon is down, and `recap doctor`. Node built-ins only: the hook's
// fallback bundles it.
//
// What is covered: every file the daemon, the CLI and the hook can load from the package:
// bin/, dist/, package.json, and the whole closure of its production dependencies as Node
// resolves them (each package folder, but not its own node_modules, whose packages are
// reached as dependencies). bin/ and dist/ are hashed whole; a dependency's files by what Node
// loads (.js, .cjs, .mjs, .json, .node), the rest by name only (a file added under any name
// is seen: `require('./x')` finds a file `x` first).
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
import { CODE_MANIFEST_VERSION, codeChangedDenial, codeVerdict, type CodeManifest, type CodeVerdict, type FileRecord, type InstalledCode } from '../events/codeManifest.js';

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

/** What Node loads as code or data from a dependency: by these extensions (or a file added, whatever its name). */
const LOADABLE = /\.(?:js|cjs|mjs|json|node)$/;

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
 * The manifest as it is written: its files by folder, so that a folder's name is written
 * once (the file is parsed at every check; grouped, it is half the size) and a check walks it
 * as it lstats: each folder, then its hashed files.
 */
type ManifestFile = Omit<CodeManifest, 'files' | 'folders'> & {
  folders: Record<string, { stat: string; hashed: Record<string, FileRecord>; listed: string[] }>;
};

function encode(manifest: CodeManifest): ManifestFile {
  const folders: ManifestFile['folders'] = {};
  for (const [name, stat] of Object.entries(manifest.folders)) folders[name] = { stat, hashed: {}, listed: [] };
  for (const [name, record] of Object.entries(manifest.files)) {
    const slash = name.lastIndexOf('/');
    const folder = slash < 0 ? '.' : name.slice(0, slash);
    // A folder not recorded has no lstat to match: a check then lists everything again.
    const entry = (folders[folder] ??= { stat: '', hashed: {}, listed: [] });
    if (record[1] === '') entry.listed.push(name.slice(slash + 1));
    else entry.hashed[name.slice(slash + 1)] = record;
  }
  const { files: _files, folders: _folders, ...rest } = manifest;
  return { ...rest, folders };
}

function decode(file: ManifestFile): CodeManifest {
  const files: Record<string, FileRecord> = {};
  const folders: Record<string, string> = {};
  for (const [folder, entry] of Object.entries(file.folders)) {
    const prefix = folder === '.' ? '' : `${folder}/`;
    folders[folder] = entry.stat;
    for (const [name, record] of Object.entries(entry.hashed)) files[`${prefix}${name}`] = record;
    for (const name of entry.listed) files[`${prefix}${name}`] = LISTED;
  }
  return { ...file, files, folders };
}

/**
 * Whether every folder and every hashed file of the manifest has the lstat it recorded: then
 * no file was written, added, removed or renamed, and the code is as it was.
 */
function asRecorded(file: ManifestFile, root: string): boolean {
  if (file.root !== root) return false;
  try {
    // Names are joined as text, not by path.join: thousands of them, and lstat takes `a/../b` as it is.
    for (const folder in file.folders) {
      const entry = file.folders[folder]!;
      const path = folder === '.' ? root : `${root}/${folder}`;
      if (statKey(lstatSync(path)) !== entry.stat) return false;
      for (const name in entry.hashed) if (statKey(lstatSync(`${path}/${name}`)) !== entry.hashed[name]![1]) return false;
    }
    return true;
  } catch {
    return false;
  }
}

/** The manifest file at `path`: undefined when there is none, a string saying why when it cannot be used. */
function readManifestFile(path: string): ManifestFile | undefined | string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // No such file, or a path to it through something that is no folder: none was written.
    return code === 'ENOENT' || code === 'ENOTDIR' ? undefined : `${code ?? (error as Error).message}`;
  }
  let file: Partial<ManifestFile> | null;
  try {
    file = JSON.parse(text) as Partial<ManifestFile> | null;
  } catch {
    return 'not valid JSON';
  }
  const folders = Object.values(file?.folders ?? {}) as Partial<ManifestFile['folders'][string]>[];
  const usable =
    file?.format === CODE_MANIFEST_VERSION &&
    typeof file.root === 'string' &&
    typeof file.recap === 'string' &&
    typeof file.installedBy === 'string' &&
    typeof file.folders === 'object' &&
    folders.every((entry) => typeof entry?.stat === 'string' && typeof entry.hashed === 'object' && entry.hashed !== null && Array.isArray(entry.listed));
  return usable ? (file as ManifestFile) : 'not a manifest this recap writes';
}

/** The manifest at `path`, decoded: undefined when there is none, a string saying why when it cannot be used. */
export function readCodeManifest(path: string): CodeManifest | undefined | string {
  const file = readManifestFile(path);
  return typeof file === 'object' ? decode(file) : file;
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
  const file = readManifestFile(path);
  let verdict: CodeVerdict;
  // Nothing recorded, or nothing usable: the files need not be read to say so.
  if (typeof file !== 'object') verdict = codeVerdict(path, file, undefined);
  else if (asRecorded(file, root)) {
    const files = Object.values(file.folders).reduce((sum, entry) => sum + Object.keys(entry.hashed).length + entry.listed.length, 0);
    verdict = { state: 'verified', files, manifest: path };
  } else {
    const manifest = decode(file);
    verdict = codeVerdict(path, manifest, installedCode(root, manifest.files));
  }
  (globalThis as { [CHECKED]?: Checked })[CHECKED] = { key, verdict };
  return verdict;
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
    throw new UserError(`recap's installed code under ${root} cannot be read (${code}); reinstall recap (npm install -g recap), then run this again`);
  }
  const earlier = codeVerdict(path, before, found);
  const manifest: CodeManifest = { format: CODE_MANIFEST_VERSION, written: now, installedBy: target, ...found };
  try {
    mkdirSync(dataDir(env), { recursive: true, mode: 0o700 });
    writeWhole(path, `${JSON.stringify(encode(manifest))}\n`, { mode: 0o600 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new UserError(`the manifest of recap's code, ${path}, could not be written (${code}); make ${dataDir(env)} writable by you, then run this again`);
  }
  if (earlier.state !== 'changed') return undefined;
  const files =
    earlier.files.length > 0
      ? ` (${earlier.files.length} file${earlier.files.length === 1 ? '' : 's'}, ${earlier.files.slice(0, 3).join(', ')}${earlier.files.length > 3 ? ', ...' : ''})`
      : '';
  return `recap's code did not match the manifest in ${path}${files}; it now records the code as it is. If you did not upgrade or change recap, reinstall it (npm install -g recap) and run this again.`;
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
    return codeChangedDenial(
      `recap's installed code cannot be read (${(error as Error).message}); reinstall recap (npm install -g recap), then run recap install <agent> in your own terminal.`,
    );
  }
}
