// `sync`: this machine's summaries of the job's repository pushed, the other machines'
// fetched and imported (sync/syncService.ts); with `last`, what the last sync did (doctor).
import type { CommandService } from '../commandService.js';
import type { SyncService } from '../sync/syncService.js';
import type { OpsOf } from './table.js';

export function syncOps(s: CommandService, sync: SyncService): OpsOf<'sync'> {
  return {
    sync: async (r) => {
      const where = s.where(r);
      if (r.last) return sync.lastOf(where);
      // A session's binding or the config facts a read found go to the log first, as a command's would.
      await s.recordPending(where);
      return sync.sync(where, { push: r.push, fetch: r.fetch });
    },
  };
}
