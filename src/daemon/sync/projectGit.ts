// What sync reads of the user's own repository (never writes): the remote's URL and the git
// author, as the user's git configuration says them.
import { isAbsolute, resolve } from 'node:path';
import { git, GitFailed } from './git.js';

/** A sync that cannot go on, in words that say what to do. */
export class SyncProblem extends Error {}

const LOCAL_MS = 5_000;

/** A remote as sync uses it: its URL, and whether it is a path on this machine's disk. */
export type Remote = { url: string; local: boolean };

/**
 * The URL of the project's remote `name`, as git resolves it (`insteadOf` rules applied); a
 * path on disk made absolute, since recap's own repository is elsewhere. The project's config
 * is the agent's to write: a URL that git would read as an option is refused.
 */
export async function remoteUrl(project: string, name: string, env: NodeJS.ProcessEnv): Promise<Remote> {
  let url: string;
  try {
    url = (await git(['remote', 'get-url', name], { cwd: project, timeoutMs: LOCAL_MS, env })).toString('utf8').trim();
  } catch (error) {
    if (error instanceof GitFailed && /No such remote/i.test(error.message)) {
      throw new SyncProblem(`${project} has no git remote named ${name}: add one (git remote add ${name} URL), or name another in SYNC_REMOTE`);
    }
    throw error;
  }
  if (url === '' || url.startsWith('-') || /[\x00-\x1f\x7f]/.test(url)) {
    throw new SyncProblem(`the URL of ${project}'s git remote ${name} (${JSON.stringify(url)}) is not one recap syncs with: it must not start with - or hold control characters`);
  }
  const local = isLocalPath(url) || url.startsWith('file://');
  return { url: isLocalPath(url) && !isAbsolute(url) ? resolve(project, url) : url, local };
}

/** Not a URL (scheme://) nor scp-like (host:path): a path on disk. */
function isLocalPath(url: string): boolean {
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(url)) return false;
  const colon = url.indexOf(':');
  const slash = url.indexOf('/');
  return colon === -1 || (slash !== -1 && slash < colon);
}

/** The project's git author (user.email, else user.name), if the user set one. */
export async function gitAuthor(project: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  for (const key of ['user.email', 'user.name']) {
    try {
      const value = (await git(['config', '--get', key], { cwd: project, timeoutMs: LOCAL_MS, env })).toString('utf8').trim();
      if (value !== '') return value;
    } catch {
      // Not set: the next key, or none.
    }
  }
  return undefined;
}
