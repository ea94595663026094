// `recap mcp` through the official SDK's client over stdio, against a real daemon: the four
// tools with their schemas, each answering what the job's chain holds (index lines from
// search and timeline, the whole entry from get, the decision log), and every failure (a
// missing entry, the daemon down) a tool error that says what to do, the server still up; a
// call sent just before the client closes stdin still answered.
import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeSandbox, RECAP, runCli, sandboxWithDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { goodSummary, prose } from '../helpers/text.js';

type Entry = { seq: number; text: string; gist: string; hash: string };

const DECISION = '- Keep exports under the data folder — the user backs up that one folder';

/** A summary whose decisions section holds one `decision — reason` line besides its notes. */
const withDecision = (round: number) => goodSummary(undefined, round).replace('## Questions & Decisions\n', `## Questions & Decisions\n${DECISION}\n`);

async function connect(box: Sandbox): Promise<Client> {
  const client = new Client({ name: 'recap-test', version: '1.0.0' });
  const env = Object.fromEntries(Object.entries(box.env).filter((e): e is [string, string] => typeof e[1] === 'string'));
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [RECAP, 'mcp'], cwd: box.project, env, stderr: 'pipe' }));
  return client;
}

const text = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

describe('recap mcp', () => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  let client: Client;
  let entries: Entry[];

  beforeAll(async () => {
    ({ box, daemon } = await sandboxWithDaemon());
    // Three summaries of this project's job, as an agent working in it writes them.
    for (const round of [0, 1, 2]) {
      await runCli(box, ['record', '--text', prose(3)], { cwd: box.project });
      const submitted = await runCli(box, ['submit'], { cwd: box.project, input: round === 1 ? withDecision(round) : goodSummary(undefined, round) });
      expect(submitted.code, submitted.stderr).toBe(0);
    }
    entries = (JSON.parse((await runCli(box, ['chain', '--json'], { cwd: box.project })).stdout) as { entries: Entry[] }).entries;
    expect(entries).toHaveLength(3);
    client = await connect(box);
  });
  afterAll(async () => {
    await client?.close();
    await closeSandbox(box, daemon);
  });

  it('lists the four read-only tools, each with a description and an input schema', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['decisions', 'get', 'search', 'timeline']);
    for (const tool of tools) {
      expect(tool.description?.length).toBeGreaterThan(40);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.annotations?.readOnlyHint).toBe(true);
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.search!.inputSchema.required).toEqual(['query']);
    expect(Object.keys(byName.search!.inputSchema.properties ?? {}).sort()).toEqual(['allJobs', 'limit', 'query', 'since', 'topic']);
    expect(byName.get!.inputSchema.required).toEqual(['entry']);
    // Progressive disclosure: the index tools send the model to get for the whole entry.
    for (const name of ['search', 'timeline', 'decisions']) expect(byName[name]!.description).toContain('Call get');
  });

  it('get returns the entry whole, as the chain holds it', async () => {
    const second = entries[1]!;
    const result = (await client.callTool({ name: 'get', arguments: { entry: second.seq } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(text(result)).toContain(second.text.trimEnd());
    expect(text(result)).toContain(`hash: ${second.hash}`);
    expect(result.structuredContent).toMatchObject({ entry: { seq: second.seq, hash: second.hash }, gist: second.gist });
  });

  it('get of a number that is no entry is a tool error naming the entries there are', async () => {
    const result = (await client.callTool({ name: 'get', arguments: { entry: 9999 } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/#9999 is not a summary of job .*recap chain lists them \(the nearest: #\d+\)/);
    // The server is still up.
    expect((await client.listTools()).tools).toHaveLength(4);
  });

  it('search returns index lines of the matching entry and points to get (needs the search op)', async () => {
    const result = (await client.callTool({ name: 'search', arguments: { query: 'backs up that one folder' } })) as CallToolResult;
    expect(result.isError, text(result)).toBeFalsy();
    const first = text(result).split('\n')[1]!;
    expect(first).toMatch(new RegExp(`^#${entries[1]!.seq} \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC — .*\\(\\d+ tokens\\)$`));
    expect(text(result)).toContain('Call get');
    expect(text(result)).not.toContain(entries[1]!.text.trimEnd());
  });

  it('timeline lists the entries around one, oldest first, as index lines (needs the timeline op)', async () => {
    const result = (await client.callTool({ name: 'timeline', arguments: { entry: entries[1]!.seq, before: 1, after: 1 } })) as CallToolResult;
    expect(result.isError, text(result)).toBeFalsy();
    const lines = text(result)
      .split('\n')
      .filter((l) => l.startsWith('#'));
    expect(lines.map((l) => l.split(' ')[0])).toEqual(entries.map((e) => `#${e.seq}`));
    expect(lines[0]).toContain(entries[0]!.gist);
  });

  it('decisions lists the decision with its reason and entry (needs the decisions op)', async () => {
    const result = (await client.callTool({ name: 'decisions', arguments: {} })) as CallToolResult;
    expect(result.isError, text(result)).toBeFalsy();
    expect(text(result)).toContain(`Keep exports under the data folder — the user backs up that one folder (#${entries[1]!.seq}`);
  });

  it('answers a call sent just before the client closes its stdin', async () => {
    const env = Object.fromEntries(Object.entries(box.env).filter((e): e is [string, string] => typeof e[1] === 'string'));
    const child = spawn(process.execPath, [RECAP, 'mcp'], { cwd: box.project, env, stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const send = (message: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'eof-test', version: '1' } } });
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/call', params: { name: 'timeline', arguments: { entry: entries[1]!.seq } } });
    child.stdin.end();
    expect(await exited).toBe(0);
    const answer = out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id?: number; result?: CallToolResult })
      .find((m) => m.id === 2);
    expect(answer?.result?.isError).not.toBe(true);
    expect(text(answer?.result)).toContain(`#${entries[1]!.seq}`);
  });

  it('with the daemon down, a call is a tool error that says to start it', async () => {
    const alone = await connect({ ...box, env: { ...box.env, RECAP_SOCKET: `${box.dir}/nowhere/recapd.sock` } });
    try {
      const result = (await alone.callTool({ name: 'get', arguments: { entry: 1 } })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/^recap's daemon is not running .*start it \(recap daemon, or any recap command such as recap status\)/);
    } finally {
      await alone.close();
    }
  });
});
