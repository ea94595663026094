// The HTTP hook endpoint's port is each user's own: chosen free at `recap install claude
// --http` and kept beside the token, so two users of one machine never collide; a port taken
// by another program is reported as a busy port, never as a failed write to the log.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, trackedSandboxes, type Sandbox } from '../helpers/daemon.js';

const { newBox, start } = trackedSandboxes(afterEach);
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

type Hook = { type: string; url?: string; headers?: Record<string, string> };

function preToolUseHook(box: Sandbox): Hook {
  const settings = JSON.parse(readFileSync(join(box.dir, '.claude', 'settings.json'), 'utf8')) as { hooks: Record<string, { hooks: Hook[] }[]> };
  return settings.hooks.PreToolUse![0]!.hooks[0]!;
}

const portOf = (url: string | undefined) => Number(/:(\d+)\//.exec(url ?? '')?.[1]);

/** A prompt through the hook's URL, as Claude Code posts it. */
async function post(box: Sandbox, hook: Hook): Promise<number> {
  const response = await fetch(hook.url!, {
    method: 'POST',
    headers: { ...hook.headers, 'content-type': 'application/json' },
    body: JSON.stringify({ hook_event_name: 'UserPromptSubmit', cwd: box.project, session_id: 's', prompt: 'hello' }),
  });
  return response.status;
}

/** Another program on `port` of 127.0.0.1. */
async function occupy(port: number): Promise<void> {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
}

async function install(box: Sandbox, env: NodeJS.ProcessEnv = {}) {
  return runCli(box, ['install', 'claude', '--http', '--json'], { env });
}

describe('the HTTP hook port', () => {
  it('is chosen free per user at install and kept with the token: two users get two ports, each answering', async () => {
    const users = [newBox(), newBox()];
    for (const box of users) {
      delete box.env.RECAP_HTTP_PORT;
      await start(box);
      const installed = await install(box);
      expect(installed.code, installed.stderr).toBe(0);
    }
    const hooks = users.map(preToolUseHook);
    const ports = hooks.map((h) => portOf(h.url));
    expect(ports[0]).not.toBe(ports[1]);
    for (const [i, box] of users.entries()) {
      expect(Number(readFileSync(join(box.data, 'http-port'), 'utf8'))).toBe(ports[i]);
      expect(await post(box, hooks[i]!)).toBe(200);
    }
  });

  it('taken by another program after install: the daemon says so at start; installing again moves to a free port and rewrites the hooks', async () => {
    const box = newBox();
    const first = await start(box);
    expect((await install(box)).code).toBe(0);
    const port = portOf(preToolUseHook(box).url);
    await first.stop();
    await occupy(port);

    const again = await start(box);
    const said = await again.waitForLog((l) => /HTTP hook endpoint could not start/.test(l.msg));
    expect(said.msg).toBe(
      `the HTTP hook endpoint could not start: port ${port} on 127.0.0.1 is taken by another program (another user's recap, perhaps); run recap install claude --http again: it chooses a free port and rewrites the hooks`,
    );
    const doctor = await runCli(box, ['doctor']);
    expect(doctor.stdout).not.toContain('event log could not be written');

    const moved = await install(box);
    expect(moved.code, moved.stderr).toBe(0);
    const hook = preToolUseHook(box);
    expect(portOf(hook.url)).not.toBe(port);
    expect(Number(readFileSync(join(box.data, 'http-port'), 'utf8'))).toBe(portOf(hook.url));
    expect(await post(box, hook)).toBe(200);
  });

  it('RECAP_HTTP_PORT naming a busy port: install fails saying the port is busy, and writes no hooks', async () => {
    const box = newBox();
    const busy = createServer();
    servers.push(busy);
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as { port: number }).port;
    await start(box, { RECAP_HTTP_PORT: String(port) });
    const failed = await install(box);
    expect(failed.code).toBe(1);
    // With --json the failure is one JSON object on stdout.
    expect(JSON.parse(failed.stdout)).toEqual({
      error: {
        code: 'refused',
        message: `port ${port} on 127.0.0.1 is taken by another program (another user's recap, perhaps); set RECAP_HTTP_PORT to a free port, or unset it and recap chooses one`,
      },
    });
    expect(() => readFileSync(join(box.dir, '.claude', 'settings.json'))).toThrow();
  });
});
