// The daemon's own ops: its version, starting the HTTP hook endpoint and the audit page,
// and the process itself (`recap status --daemon`, `recap reload`, `recap stop`).
import { recapVersion } from '../../common/version.js';
import { CommandRefused } from '../../events/commands.js';
import type { ResponseOf } from '../../protocol/protocol.js';
import type { OpsOf } from './table.js';

/** This recap's version (package.json's), read once. */
export const VERSION = recapVersion();

/** The daemon process itself, for `recap status --daemon`, `recap stop` and `recap reload`. */
export type Lifecycle = {
  info: () => ResponseOf<'daemon'>;
  /** Re-reads the user's config (as SIGHUP does): its file and its problems. */
  reload: () => Promise<ResponseOf<'reload'>>;
  /** Shuts down once the requests in flight, this one included, are answered. */
  stop: () => void;
};

export type DaemonDeps = {
  /** Starts the HTTP hook endpoint (making its token) if it is not running; its URL. */
  enableHttp: () => Promise<{ url: string; tokenFile: string }>;
  /** Starts the audit page's server if it is not running; the URL to open, with its token. */
  enableUi?: () => Promise<{ url: string }>;
  lifecycle: Lifecycle;
};

export function daemonOps(deps: DaemonDeps): OpsOf<'ping' | 'http' | 'ui' | 'daemon' | 'reload' | 'stop'> {
  return {
    ping: async () => ({ version: VERSION }),
    http: () => deps.enableHttp(),
    ui: () => {
      if (!deps.enableUi) throw new CommandRefused('this daemon serves no audit page');
      return deps.enableUi();
    },
    daemon: async () => deps.lifecycle.info(),
    reload: () => deps.lifecycle.reload(),
    stop: async () => {
      deps.lifecycle.stop();
      return { pid: process.pid };
    },
  };
}
