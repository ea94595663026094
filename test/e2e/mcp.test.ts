// End to end: the real Claude Code with recap installed by `recap install claude --mcp`, and a
// second MCP server (test/fixtures/mcp/echo-server.mjs) registered beside recap's in
// ~/.claude.json, against a scripted model. On a tripped gate the model calls
// mcp__recap__search for a word of an earlier summary and is answered from the chain; it
// calls the other server's echo and meets recap's deny, and the echo never runs; it submits a
// summary through Bash and the gate opens.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobIdFor } from '../../src/common/jobs.js';
import { assertClaudeRuns, claudeEnv, runClaude } from '../helpers/claudeCli.js';
import { RECAP, removeSandbox, ROOT, runCli, sandbox, startDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { ATTACK_THRESHOLD, SECTION_TEXT, TRIP_PROMPTS } from '../helpers/gateAttack.js';
import { answer, bash, callTool, MockAnthropic } from '../helpers/mockAnthropic.js';
import { goodSummary, prose } from '../helpers/text.js';

const TEST_MS = 120_000;
const ECHO_SERVER = join(ROOT, 'test', 'fixtures', 'mcp', 'echo-server.mjs');
const LONG_PROMPT = TRIP_PROMPTS.join('\n\n');
/** The earlier summary, accepted through the CLI: its gist is what the search must hand back. */
const EARLIER = goodSummary();
const EARLIER_GIST = /^Gist: (.*)$/m.exec(EARLIER)![1]!;
/** The agent's summary of the tripping prompts, in its own words. */
const SUMMARY = [
  'Gist: Planned ConfigSyntaxError, the capped backoff, migrate0003 and the p95 panel source; nothing changed yet.',
  ...Object.entries(SECTION_TEXT).map(([heading, text]) => `## ${heading}\n${text}`),
].join('\n\n');

describe("the real Claude Code with recap's MCP server on a tripped gate", () => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  let mock: MockAnthropic;
  let marker: string;

  beforeAll(async () => {
    assertClaudeRuns();
    const base = sandbox();
    // The config in a folder of its own (recap protects a config folder named *recap*): the gate trips on the prompts.
    const config = join(base.dir, 'etc', 'config.conf');
    mkdirSync(dirname(config));
    writeFileSync(config, `TOKEN_THRESHOLD=${ATTACK_THRESHOLD}\n`);
    box = { ...base, config, env: { ...base.env, RECAP_CONFIG: config } };
    marker = join(box.dir, 'echo-ran.txt');
    // The user's own server, already in ~/.claude.json: recap's install keeps it.
    writeFileSync(join(box.dir, '.claude.json'), JSON.stringify({ mcpServers: { echo: { type: 'stdio', command: process.execPath, args: [ECHO_SERVER, marker] } } }));
    daemon = await startDaemon(box);
    const installed = await runCli(box, ['install', 'claude', '--mcp']);
    expect(installed.code, installed.stderr).toBe(0);
    // An earlier window, summarized through the CLI.
    for (const text of [prose(8), prose(8)]) expect((await runCli(box, ['record', '--kind', 'prompt', '--text', text], { cwd: box.project })).code).toBe(0);
    const submitted = await runCli(box, ['submit'], { cwd: box.project, input: EARLIER });
    expect(submitted.code, submitted.stderr).toBe(0);
    mock = await MockAnthropic.start();
  });

  afterAll(async () => {
    await mock?.close();
    await daemon?.stop();
    if (box) removeSandbox(box);
  });

  it('registers recap beside the user’s server in ~/.claude.json', () => {
    const servers = JSON.parse(readFileSync(join(box.dir, '.claude.json'), 'utf8')).mcpServers;
    expect(Object.keys(servers).sort()).toEqual(['echo', 'recap']);
    expect(servers.recap).toEqual({ type: 'stdio', command: process.execPath, args: [RECAP, 'mcp'] });
  });

  it(
    'answers mcp__recap__search, denies the other server’s tool before it runs, and opens on a summary',
    async () => {
      mock.script(
        callTool('mcp__recap__search', { query: 'parser' }),
        callTool('mcp__echo__echo', { text: 'the echo ran' }),
        // recap by the launcher in its data folder, as the deny names it.
        bash(`${join(box.data, 'bin', 'recap')} submit <<'EOF'\n${SUMMARY}\nEOF`, 'submit the summary'),
        bash('echo ok > ran.txt', 'write ran.txt'),
        answer('Done.'),
      );
      await runClaude(box.project, claudeEnv(box.env, mock), LONG_PROMPT, mock, 'Bash,mcp__recap__search,mcp__echo__echo');
      const ctx = mock.describe();
      const job = jobIdFor(box.project);
      expect(mock.turnsTaken, ctx).toBe(5);
      // The gate was tripped from the first request on.
      expect(mock.turnRequests[0]!.raw, ctx).toContain(`recap: job ${job} needs a summary before any other tool can run`);

      const found = mock.toolResult(0);
      expect(found, ctx).toBeDefined();
      expect(found!.isError, found!.text).toBe(false);
      expect(found!.text).toContain(EARLIER_GIST);

      // Both servers had started: Claude Code lists their tools among its deferred ones (loaded through ToolSearch).
      const deferred = mock.turnRequests[0]!.raw;
      for (const tool of ['mcp__recap__search', 'mcp__recap__get', 'mcp__echo__echo']) expect(deferred, ctx).toContain(`\\n${tool}\\n`);
      const echo = mock.toolResult(1);
      expect(echo, ctx).toBeDefined();
      expect(echo!.isError).toBe(true);
      expect(echo!.text).toContain(`recap: job ${job} needs a summary`);
      expect(existsSync(marker), 'the echo tool ran').toBe(false);

      const submit = mock.toolResult(2);
      expect(submit!.isError, submit!.text).toBe(false);
      expect(submit!.text).toContain('accepted');
      expect(mock.toolResult(3)!.isError, mock.toolResult(3)!.text).toBe(false);
      expect(readFileSync(join(box.project, 'ran.txt'), 'utf8')).toBe('ok\n');
    },
    TEST_MS,
  );
});
