// Where a path really leads on this disk, symlinks followed: the protection rules judge a
// path both as spelled and where it leads (ln -s / r; then r/home/u/.config/recap/...).
import { lstatSync, readdirSync, readlinkSync, realpathSync } from 'node:fs';
import { PathUnknown } from '../events/protection.js';

/** Links followed per judged call at most, as the kernel's own limit (MAXSYMLINKS). */
const MAX_LINKS = 40;

/**
 * Names looked up one by one per judged call; past them (an MCP input of a thousand
 * strings), a folder is listed once and its names read from the listing.
 */
const MAX_LSTATS = 128;

type Budget = { links: number; lstats: number; listings: Map<string, Map<string, boolean> | undefined> | undefined };

/**
 * A follower for one judged call: its memo of the places already found lives only as long as
 * the call, so a link made or removed between two calls is seen by the next. Each path costs
 * one lstat per component not seen before in the call, none past the first missing one.
 * Another process's links in /proc are read once, at the start of the path.
 */
export function linkFollower(): (path: string) => string {
  // Made on the first path that needs them: most calls' paths hold no link (withoutLinks).
  let memo: Map<string, string> | undefined;
  const budget: Budget = { links: MAX_LINKS, lstats: MAX_LSTATS, listings: undefined };
  return (path) => {
    const through = procLink(path, budget);
    return withoutLinks(through, budget) ?? follow(through, (memo ??= new Map()), budget);
  };
}

/**
 * Another process's link in /proc (`/proc/<pid>/fd/3`, its cwd, root or program, a mapped
 * file), followed to the file it names: the same file by another name, for any process of
 * this user. `self` is left as it is (it would be the daemon's), and so is what is no path
 * (a socket, a pipe) or a link that cannot be read.
 */
function procLink(path: string, budget: Budget): string {
  const match = PROC_LINK.exec(path);
  if (!match) return path;
  if (budget.links-- <= 0) throw new PathUnknown(`more than ${MAX_LINKS} links`);
  let target: string;
  try {
    target = readlinkSync(match[1]!);
  } catch {
    return path;
  }
  return target.startsWith('/') ? `${target}${match[2] ?? ''}` : path;
}

const PROC_LINK = /^(\/proc\/\d+(?:\/task\/\d+)?\/(?:fd\/\d+|cwd|root|exe|map_files\/[^/]+))(\/.*)?$/;

/** A path as the kernel spells it when it holds no links: absolute, no `.`, `..` or `//`, no trailing `/`. */
const PLAIN = /^(?:\/(?!\.\.?(?:\/|$))[^/]+)+$/;

/**
 * The common case in one call: a plain path whose folder is its own real path (no link in it,
 * which realpath(3) tells in one call, without a Stats object per part) and whose last part is
 * not a link leads where it is spelled. Anything else (a link, a missing folder, /proc, a
 * folder it cannot enter) is for `follow`, part by part. Counted against the budget as `follow` would be.
 */
function withoutLinks(path: string, budget: Budget): string | undefined {
  if (!PLAIN.test(path) || path === '/proc' || path.startsWith('/proc/')) return undefined;
  // Counted in place, not by a split: every judged path comes here.
  let parts = 0;
  for (let at = path.indexOf('/'); at >= 0; at = path.indexOf('/', at + 1)) parts += 1;
  if (budget.lstats < parts) return undefined;
  const folder = path.slice(0, path.lastIndexOf('/'));
  try {
    if (folder !== '' && realpathSync.native(folder) !== folder) return undefined;
    if (lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() === true) return undefined;
  } catch {
    return undefined;
  }
  budget.lstats -= parts;
  return path;
}

/** Whether `name` in `folder` is a link (true), something else (false), or not there (undefined). */
function entry(folder: string, name: string, budget: Budget): boolean | undefined {
  const path = folder === '/' ? `/${name}` : `${folder}/${name}`;
  if (budget.lstats-- > 0) return lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink();
  const listings = (budget.listings ??= new Map());
  let listing = listings.get(folder);
  if (!listings.has(folder)) {
    try {
      listing = new Map(readdirSync(folder, { withFileTypes: true }).map((e) => [e.name, e.isSymbolicLink()]));
    } catch {
      listing = undefined;
    }
    listings.set(folder, listing);
  }
  // A folder it can enter but not list (chmod 311): what is in it cannot be told.
  if (listing === undefined) throw new PathUnknown(`${folder} cannot be listed`);
  return listing.get(name);
}

/**
 * The path with every symlink in it followed, its `..` taken physically (after a link, as
 * the kernel does); past the deepest part that exists, the rest as written. A dangling link
 * leads where its target would be written. /proc is not followed: its links are the
 * daemon's (its cwd, its fds), not the agent's; the rules read /proc spellings themselves.
 */
function follow(path: string, memo: Map<string, string>, budget: Budget): string {
  let current = '/';
  let exists = true;
  for (const name of path.split('/')) {
    if (name === '' || name === '.') continue;
    if (name === '..') {
      current = current.slice(0, current.lastIndexOf('/')) || '/';
      continue;
    }
    const next = current === '/' ? `/${name}` : `${current}/${name}`;
    if (!exists || next === '/proc' || next.startsWith('/proc/')) {
      current = next;
      continue;
    }
    let real = memo.get(next);
    if (real === undefined) {
      real = next;
      try {
        const link = entry(current, name, budget);
        if (link === undefined) exists = false;
        else if (link) {
          // Past the kernel's own limit a path leads nowhere the rules can judge (ELOOP): refused.
          if (budget.links-- <= 0) throw new PathUnknown(`more than ${MAX_LINKS} links`);
          const target = readlinkSync(next);
          real = follow(target.startsWith('/') ? target : `${current}/${target}`, memo, budget);
        }
      } catch (error) {
        if (error instanceof PathUnknown) throw error;
        // Not a folder on the way, or not ours to look at: the rest as written.
        exists = false;
      }
      memo.set(next, real);
    }
    current = real;
  }
  return current;
}
