// What recap-hook loads when the daemon does not answer: starting it and connecting, or the
// answer from the verdict file and ON_DAEMON_DOWN (hook/fallback.ts). Bundled apart from the
// hook (dist/client/hookFallback.cjs) and loaded only on this rare path, so the hook's usual
// path neither parses nor runs it.
import { connectOrStart } from './autostart.js';
import type { Client } from './socketClient.js';

export { daemonDown, daemonFailed } from '../hook/fallback.js';

/** Starts the daemon (detached) and connects once its socket answers. */
export function startAndConnect(deadlineMs: number): Promise<Client> {
  return connectOrStart(process.env, deadlineMs);
}
