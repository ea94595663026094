// Every command's --help names the docs page that explains more, from one map
// (src/client/commands/docs.ts): a command added without a page, or a page not among docs/'s,
// fails here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildCli } from '../../src/client/cli.js';
import { COMMAND_DOCS, DOC_PAGES, moreLine } from '../../src/client/commands/docs.js';

const ROOT = new URL('../../', import.meta.url);

const side = { runDaemon: async () => {}, importLog: async () => 0, exportLines: async () => (records: Buffer) => records };

/** What `recap <args> --help` prints, caught by yargs's parse callback (which also keeps it from exiting). */
async function help(args: string[]): Promise<string> {
  let printed = '';
  await buildCli([], side).parseAsync([...args, '--help'], {}, (_error, _argv, output) => {
    printed = output;
  });
  return printed;
}

describe('the docs page of each command', () => {
  it('is in the map for every command, and is one of the pages under docs/', async () => {
    const commands = [...(await help([])).matchAll(/^ {2}recap (\S+)/gm)].map((m) => m[1]!);
    expect(commands.length).toBeGreaterThan(20);
    for (const command of commands) expect(Object.keys(COMMAND_DOCS), command).toContain(command);
    for (const page of Object.values(COMMAND_DOCS)) expect(DOC_PAGES).toContain(page);
  });

  it('leads to a section of docs/cli.md that is there, one per command', () => {
    const headings = new Set([...readFileSync(new URL('docs/cli.md', ROOT), 'utf8').matchAll(/^## recap (\S+)$/gm)].map((m) => m[1]));
    for (const command of Object.keys(COMMAND_DOCS).filter((c) => c !== 'recap')) expect(headings, command).toContain(command);
    for (const page of DOC_PAGES) expect(() => readFileSync(new URL(page, ROOT)), page).not.toThrow();
  });

  it("is named in recap --help and in each command's own", async () => {
    expect(await help([])).toContain(moreLine('recap'));
    for (const command of ['log', 'install', 'context', 'status'] as const) {
      expect(await help(command === 'install' ? [command, 'systemd'] : [command]), command).toMatch(new RegExp(`\\n${moreLine(command)}$`));
    }
    expect(await help(['config', 'allow'])).toMatch(/\nMore: docs\/cli\.md#recap-config and docs\/configuration\.md$/);
  });
});
