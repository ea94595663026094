// recap sync: this machine's summaries of the project's repository pushed to its git remote,
// the other machines' fetched into the memory (docs/sync.md).
import type { SyncReport } from '../../protocol/answers.js';
import { call, output, target, UsageError, type Builder, type Global } from '../jobCommands.js';
import { documented } from './docs.js';
import { counted } from '../present/counted.js';

type SyncArgs = Global & { pushOnly?: boolean | undefined; fetchOnly?: boolean | undefined; last?: boolean | undefined };

async function sync(argv: SyncArgs): Promise<void> {
  const result = await call('sync', { ...target(argv), push: argv.fetchOnly !== true, fetch: argv.pushOnly !== true, last: argv.last === true });
  output(argv, result, () => process.stdout.write(syncText(result)));
  // A sync that did not finish fails the command, in JSON too: a script sees it.
  if (result.error !== undefined) process.exitCode = 1;
}

/** A sync's report as people read it: one line per thing done, and what stopped it. */
export function syncText(r: SyncReport): string {
  if (r.never) return `no sync of job ${r.job} since the daemon started (SYNC=${r.mode})\n`;
  const lines = [`job ${r.job}${r.repo ? `, repository ${r.repo.name} (${r.repo.key})` : ''}${r.remote !== undefined ? ` with ${r.remote}` : ''}, SYNC=${r.mode}`];
  for (const chain of r.fetched ?? []) {
    const whose = `${chain.author ?? 'no author'} on ${chain.host}`;
    if (chain.refused !== undefined) lines.push(`  refused ${whose}'s chain: ${chain.refused}`);
    else if (chain.skipped !== undefined) lines.push(`  left out ${whose}'s chain (${chain.skipped})`);
    else lines.push(`  fetched ${whose}: ${chain.imported} new, ${chain.updated} updated`);
  }
  if (r.fetched !== undefined && r.fetched.length === 0) lines.push('  fetched: nothing new from other machines');
  if (r.pushed !== undefined)
    lines.push(`  pushed this machine's ${counted(r.pushed.entries, 'summary', 'summaries')}${r.pushed.unchanged ? ' (the remote had them already)' : ''}`);
  if (r.error !== undefined) lines.push(`  stopped: ${r.error}`);
  lines.push(`  took ${r.ms} ms`);
  return `${lines.join('\n')}\n`;
}

export const syncCommands: Builder = (y) =>
  y.command(
    'sync',
    'share summaries between machines through git',
    (a) =>
      documented(a, 'sync')
        .option('push-only', { type: 'boolean', describe: "push this machine's summaries, fetch nothing" })
        .option('fetch-only', { type: 'boolean', describe: "fetch the other machines' summaries, push nothing" })
        .option('last', { type: 'boolean', describe: 'what the last sync did, doing nothing now' })
        .conflicts('push-only', 'fetch-only')
        .check((argv) => {
          if (argv.last === true && (argv.pushOnly === true || argv.fetchOnly === true)) throw new UsageError('--last does nothing now: give it alone');
          return true;
        }),
    (argv) => sync(argv as SyncArgs),
  );
