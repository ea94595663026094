// macOS: processes from ps(1), a socket's peer, a lock's holder and where a descriptor
// points from lsof(8), each run by its absolute path (one put early on PATH must not answer
// for the system). The parsers are pure (macos/*Output.ts) and tested against recorded output.
import { children } from './children.js';
import { psChain } from './macos/processes.js';
import { lockHolderOf, parseLsofFields, socketPeers } from './macos/lsofOutput.js';
import { PeerUnknown, type Platform } from './platform.js';

const PS = '/bin/ps';
const LSOF = '/usr/sbin/lsof';
const OSASCRIPT = '/usr/bin/osascript';
const TIMEOUT_MS = 3000;
const BUFFER = 64 * 1024 * 1024;

function runSync(program: string, args: readonly string[]): string | undefined {
  try {
    return children().execFileSync(program, args, { encoding: 'utf8', timeout: TIMEOUT_MS, maxBuffer: BUFFER, env: {}, stdio: ['ignore', 'pipe', 'ignore'] });
  } catch (error) {
    // lsof exits 1 when it lists nothing for a file, with its output still whole.
    const out = (error as { stdout?: unknown }).stdout;
    return typeof out === 'string' && (error as { status?: unknown }).status === 1 ? out : undefined;
  }
}

function run(program: string, args: readonly string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    children().execFile(program, args, { encoding: 'utf8', timeout: TIMEOUT_MS, maxBuffer: BUFFER, env: {} }, (error, stdout) => {
      resolve(error && (error as { code?: unknown }).code !== 1 ? undefined : stdout);
    });
  });
}

async function peerPids(fd: number): Promise<number[]> {
  const out = await run(LSOF, ['-n', '-P', '-w', '-U', '-F', 'pfdn']);
  if (out === undefined) throw new PeerUnknown(`${LSOF} could not list the Unix sockets`, true);
  const pids = socketPeers(parseLsofFields(out), process.pid, fd);
  if (pids === undefined) throw new PeerUnknown(`lsof does not list this connection (descriptor ${fd})`);
  if (pids.length === 0) throw new PeerUnknown('no process holds the other end of the connection');
  return pids;
}

function openedAtFrom(out: string | undefined, fd: number): string | undefined {
  const name = out === undefined ? undefined : parseLsofFields(out).find((f) => f.fd === String(fd))?.name;
  return name?.startsWith('/') ? name : undefined;
}

const descriptorArgs = (fd: number) => ['-n', '-P', '-w', '-a', '-p', String(process.pid), '-d', String(fd), '-F', 'pfn'];

export const macos: Platform = {
  name: 'macos',
  chain: (from, limit) => psChain((args) => runSync(PS, args) ?? '', { environment: '-E' }, from, limit),
  peerPids,
  lockHolder: (file) => {
    const out = runSync(LSOF, ['-n', '-P', '-w', '-F', 'pf', '--', file]);
    return out === undefined ? undefined : lockHolderOf(parseLsofFields(out));
  },
  openedAt: async (fd) => openedAtFrom(await run(LSOF, descriptorArgs(fd)), fd),
  openedAtSync: (fd) => openedAtFrom(runSync(LSOF, descriptorArgs(fd)), fd),
  // A macOS thread has no id a signal can be sent to.
  ownThreads: () => [],
  browserOpener: 'open',
  // A notification from the user's own login session: an agent's shell does not read it.
  tellUser: async (text) => (await run(OSASCRIPT, ['-e', `display notification ${appleScriptText(text)} with title "recap"`])) !== undefined,
};

/** An AppleScript string literal. */
const appleScriptText = (text: string) => `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
