// What the daemon's two HTTP servers (the hook endpoint and the audit page) share: listening
// on 127.0.0.1 only, on a port that may be taken, and a secret kept in a 0600 file, compared
// in constant time.
import { hash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { keepPort, keptPort } from '../common/httpPort.js';
import { CommandRefused } from '../events/commands.js';

/** The port a server wanted is another program's: said as such, with what to do. */
export class PortBusy extends Error {}

/** Listens on 127.0.0.1 (port 0: one the system picks); a port another program holds is a PortBusy. */
export function listenOnLoopback(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new PortBusy(`port ${port} on 127.0.0.1 is taken by another program (another user's recap, perhaps)`) : error),
    );
    server.listen({ port, host: '127.0.0.1' }, () => {
      server.removeAllListeners('error');
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Where a loopback server's port comes from: the variable the user may set, its value, and the file a port is kept in. */
type PortChoice = {
  /** The user's variable (RECAP_HTTP_PORT, RECAP_UI_PORT) and the port it asks for, if set. */
  variable: string;
  asked: number | undefined;
  /** The file the port is kept in between starts. */
  file: string;
  /** Why a kept port that is taken now may not give way to a free one, and what to do; unset: it gives way. */
  keptIsPromised?: string;
};

/**
 * Listens on this user's own port: the one asked for when set, else the one kept, else a free
 * one the system picks (then kept), so two users never share one. A port asked for that is
 * taken is refused; so is a kept one that others were told of (`keptIsPromised`).
 */
export async function listenOnUsersPort(server: { listen(port: number): Promise<number> }, choice: PortChoice): Promise<number> {
  const { asked, file } = choice;
  let port: number;
  try {
    port = await server.listen(asked ?? keptPort(file) ?? 0);
  } catch (error) {
    if (!(error instanceof PortBusy)) throw error;
    if (asked !== undefined) throw new CommandRefused(`${error.message}; set ${choice.variable} to a free port, or unset it and recap chooses one`);
    if (choice.keptIsPromised !== undefined) throw new CommandRefused(`${error.message}; ${choice.keptIsPromised}`);
    port = await server.listen(0);
  }
  if (asked === undefined) keepPort(file, port);
  return port;
}

/** A token, made on first use and kept in a file only the user can read. */
export function ensureToken(file: string): string {
  if (existsSync(file)) {
    const kept = readFileSync(file, 'utf8').trim();
    if (kept.length >= MIN_TOKEN_LENGTH) return kept;
  }
  // None yet, or one too short to be a secret (an empty or cut file): a new one.
  const token = randomBytes(32).toString('base64url');
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return token;
}

/** 32 random bytes are 43 characters of base64url; a kept token shorter than this is not one recap made. */
const MIN_TOKEN_LENGTH = 43;

/** Secrets are compared as digests: equal lengths for timingSafeEqual, whatever a client sends. */
export const digest = (value: string): Buffer => hash('sha256', value, 'buffer');
