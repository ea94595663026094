// recap's own bare git repository for one repository's chains (`<data>/sync/<key>.git`): the
// agent's project is never written to (not its branches, index, working tree or refs). This
// machine's chain is one commit without parents under `refs/recap/<key>/<machine>`, whose
// tree is the chain's files (chainFormat.ts): a redacted text leaves the ref's history with
// the next push. Other machines' refs are fetched to `refs/fetched/<key>/<machine>`.
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { git, GitFailed } from './git.js';
import type { Remote } from './projectGit.js';

/** Where this machine's chain of repository `key` is, here and on the remote. */
export const chainRef = (key: string, machine: string) => `refs/recap/${key}/${machine}`;
const fetchedPrefix = (key: string) => `refs/fetched/${key}/`;

/** How long git may take here and with the remote, and what stops it at once. */
export type Deadlines = { localMs: number; remoteMs: number; signal?: AbortSignal };

export class ChainRepo {
  private constructor(
    readonly dir: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly deadlines: Deadlines,
  ) {}

  /** The repository for chains of `key` under `syncDir`, made on first use. */
  static async open(syncDir: string, key: string, env: NodeJS.ProcessEnv, deadlines: Deadlines): Promise<ChainRepo> {
    const dir = join(syncDir, `${key}.git`);
    const repo = new ChainRepo(dir, env, deadlines);
    if (!existsSync(join(dir, 'HEAD'))) {
      mkdirSync(dirname(dir), { recursive: true, mode: 0o700 });
      await git(['init', '--bare', '--quiet', dir], { timeoutMs: deadlines.localMs, env, ...signalOf(deadlines) });
    }
    return repo;
  }

  private local(args: string[], input?: string | Buffer): Promise<Buffer> {
    return git(args, { gitDir: this.dir, timeoutMs: this.deadlines.localMs, env: this.env, ...signalOf(this.deadlines), ...(input !== undefined ? { input } : {}) });
  }

  /**
   * Writes `files` as the one commit of `ref` (no parent), dated `time` (seconds), and gives
   * its id: the same files on the same date make the same commit, so an unchanged chain is
   * seen to be unchanged.
   */
  async write(ref: string, files: ReadonlyMap<string, string>, time: number): Promise<string> {
    const parts: Buffer[] = [];
    const data = (text: string) => {
      const bytes = Buffer.from(text, 'utf8');
      parts.push(Buffer.from(`data ${bytes.length}\n`), bytes, Buffer.from('\n'));
    };
    parts.push(Buffer.from(`commit ${ref}\ncommitter recap <recap@localhost> ${Math.floor(time)} +0000\n`));
    data('recap: a chain of summaries (recap sync)');
    parts.push(Buffer.from('deleteall\n'));
    for (const [path, text] of files) {
      parts.push(Buffer.from(`M 100644 inline ${path}\n`));
      data(text);
    }
    parts.push(Buffer.from('done\n'));
    await this.local(['fast-import', '--quiet', '--force', '--done'], Buffer.concat(parts));
    return (await this.local(['rev-parse', '--verify', `${ref}^{commit}`])).toString('utf8').trim();
  }

  /**
   * Pushes `ref` to the same ref on the remote, replacing what is there (it is this machine's
   * alone). A repository on this disk runs no hook of its own for it: its hooks and config are
   * anyone's to write, and the daemon runs outside any sandbox the agent is in.
   */
  async push(remote: Remote, ref: string): Promise<void> {
    const noHooks = remote.local ? [`--receive-pack=git -c core.hooksPath=/dev/null receive-pack`] : [];
    await git(['push', '--quiet', '--no-verify', ...noHooks, '--', remote.url, `+${ref}:${ref}`], {
      gitDir: this.dir,
      timeoutMs: this.deadlines.remoteMs,
      env: this.env,
      ...signalOf(this.deadlines),
    });
  }

  /** Fetches every machine's ref of repository `key` from the remote; refs gone there are dropped here. */
  async fetch(remote: Remote, key: string): Promise<void> {
    await git(['fetch', '--quiet', '--no-tags', '--prune', '--no-write-fetch-head', '--', remote.url, `+refs/recap/${key}/*:${fetchedPrefix(key)}*`], {
      gitDir: this.dir,
      timeoutMs: this.deadlines.remoteMs,
      env: this.env,
      ...signalOf(this.deadlines),
    });
  }

  /** The fetched refs of repository `key`: machine → commit id. */
  async fetched(key: string): Promise<Map<string, string>> {
    const out = (await this.local(['for-each-ref', '--format=%(refname) %(objectname)', fetchedPrefix(key)])).toString('utf8');
    const refs = new Map<string, string>();
    for (const line of out.split('\n')) {
      const [name, id] = line.split(' ');
      if (name === undefined || id === undefined || !name.startsWith(fetchedPrefix(key))) continue;
      refs.set(name.slice(fetchedPrefix(key).length), id);
    }
    return refs;
  }

  /** A value recap keeps in this repository's config (`recap.<name>`), if set. */
  async setting(name: string): Promise<string | undefined> {
    try {
      return (await this.local(['config', '--get', `recap.${name}`])).toString('utf8').trim() || undefined;
    } catch (error) {
      if (error instanceof GitFailed && !error.timedOut) return undefined;
      throw error;
    }
  }

  async setSetting(name: string, value: string): Promise<void> {
    await this.local(['config', `recap.${name}`, value]);
  }

  /** Drops every object no ref reaches now: a redacted text's old copies leave this disk. */
  async collect(): Promise<void> {
    await this.local(['reflog', 'expire', '--expire=now', '--all']);
    await this.local(['gc', '--quiet', '--prune=now']);
  }

  /** The commit `ref` points at here, if any. */
  async head(ref: string): Promise<string | undefined> {
    try {
      return (await this.local(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`])).toString('utf8').trim() || undefined;
    } catch (error) {
      if (error instanceof GitFailed && !error.timedOut) return undefined;
      throw error;
    }
  }

  /**
   * The files of a commit's tree (blobs only, at most `maxFiles` and `maxBytes` in all), by
   * path: read in one `cat-file --batch`, whatever the remote put there.
   */
  async files(commit: string, maxFiles: number, maxBytes: number): Promise<Map<string, string>> {
    const listing = (await this.local(['ls-tree', '-r', '-z', '--full-tree', '-l', commit])).toString('utf8');
    const blobs: { path: string; id: string }[] = [];
    let bytes = 0;
    for (const line of listing.split('\0')) {
      if (line === '') continue;
      const tab = line.indexOf('\t');
      const [, type, id, size] = line.slice(0, tab).split(/\s+/);
      if (type !== 'blob' || id === undefined) throw new GitFailed(`the chain's tree holds a ${type ?? 'thing'} at ${line.slice(tab + 1)}: a chain holds files only`);
      bytes += Number(size);
      if (blobs.length >= maxFiles || bytes > maxBytes) throw new GitFailed(`the chain holds more than ${maxFiles} files or ${maxBytes} bytes: it is not read`);
      blobs.push({ path: line.slice(tab + 1), id });
    }
    const files = new Map<string, string>();
    if (blobs.length === 0) return files;
    const out = await this.local(['cat-file', '--batch'], `${blobs.map((b) => b.id).join('\n')}\n`);
    let at = 0;
    for (const blob of blobs) {
      const eol = out.indexOf(10, at);
      const [, , size] = out.subarray(at, eol).toString('utf8').split(' ');
      const length = Number(size);
      files.set(blob.path, out.subarray(eol + 1, eol + 1 + length).toString('utf8'));
      at = eol + 1 + length + 1;
    }
    return files;
  }
}

const signalOf = (d: Deadlines) => (d.signal !== undefined ? { signal: d.signal } : {});
