// Claude Code's PreCompact through the hook commands `recap install claude` writes (the
// launcher, bin/recap-hook.sh, and recap-hook itself), fed Claude's payloads, against a real
// daemon: once a summary is accepted the answer is recap's instructions for Claude's own
// summary (exit 0, plain stdout: Claude Code appends it to the summary request), tripped gate
// or not; with no summary it is nothing; and with the daemon down it is nothing too, whatever
// ON_DAEMON_DOWN and the verdict file say: a compaction is never blocked.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobIdFor } from '../../src/common/jobs.js';
import { removeSandbox, runCli, sandbox, startDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { goodSummary, notes, prose } from '../helpers/text.js';
import { hookCommands, runHookCommand, type HookCommandRun } from '../helpers/hookCommand.js';

const run = runHookCommand;
const COMMANDS = hookCommands('claude');

const SESSION = 'sess-precompact';
const base = (box: Sandbox) => ({ session_id: SESSION, transcript_path: join(box.dir, 'transcripts', `${SESSION}.jsonl`), cwd: box.project, permission_mode: 'default' });
const preCompact = (box: Sandbox, trigger: 'auto' | 'manual') => ({
  ...base(box),
  hook_event_name: 'PreCompact',
  trigger,
  custom_instructions: trigger === 'auto' ? null : 'keep the parser work',
});
const prompt = (box: Sandbox, text: string) => ({ ...base(box), hook_event_name: 'UserPromptSubmit', prompt: text });
const readTool = (box: Sandbox) => ({
  ...base(box),
  hook_event_name: 'PreToolUse',
  tool_name: 'Read',
  tool_input: { file_path: join(box.project, 'README.md') },
  tool_use_id: 'toolu_1',
});

/** An allow that says nothing: exit 0, no stdout. */
function expectNothing(answer: HookCommandRun): void {
  expect(answer.code, answer.stderr).toBe(0);
  expect(answer.stdout).toBe('');
}

const FILES = '## Files\n- read src/parser.ts:1-2 — the parser the decisions are about\n- ref docs/config.md — where the file format is described';

describe("Claude Code's PreCompact through recap's hook commands", () => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  let job: string;

  beforeAll(async () => {
    box = sandbox();
    job = jobIdFor(box.project);
    mkdirSync(join(box.project, 'src'));
    mkdirSync(join(box.project, 'docs'));
    writeFileSync(join(box.project, 'src', 'parser.ts'), 'export function parse(text: string) {\n  return text.split("\\n");\n}\n');
    writeFileSync(join(box.project, 'docs', 'config.md'), '# The config file\n');
    daemon = await startDaemon(box);
  });
  afterAll(async () => {
    await daemon?.stop();
    if (box) removeSandbox(box);
  });

  it.each(Object.entries(COMMANDS))('with no accepted summary, a gate open or tripped, answers nothing (%s)', async (_name, command) => {
    expectNothing(await run(box, command, preCompact(box, 'auto')));
    // A prompt over the threshold trips the gate; a compaction still gets nothing to keep, and no block.
    expect((await run(box, command, prompt(box, prose(30)))).code).toBe(0);
    expectNothing(await run(box, command, preCompact(box, 'manual')));
  });

  it.each(Object.entries(COMMANDS))(
    "after an accepted summary, answers with plain text asking Claude's summary to keep its decisions, directives and files (%s)",
    async (_name, command) => {
      const status = JSON.parse((await runCli(box, ['status', '--json'])).stdout) as { summaries: number };
      if (status.summaries === 0) {
        const submitted = await runCli(box, ['submit'], { input: `${goodSummary()}\n\n${FILES}` });
        expect(submitted.code, submitted.stdout + submitted.stderr).toBe(0);
      }
      for (const trigger of ['auto', 'manual'] as const) {
        const answer = await run(box, command, preCompact(box, trigger));
        expect(answer.code, answer.stderr).toBe(0);
        // Plain text: Claude Code would take `{...}` for JSON output, and only plain stdout reaches the summary request.
        expect(answer.stdout).toMatch(/^recap: when you summarize this conversation, keep what recap's summary #\d+ \("[^"]+"\) records/);
        expect(answer.stdout.trim().startsWith('{')).toBe(false);
        expect(answer.stdout.length).toBeLessThanOrEqual(4000);
        expect(answer.stdout).toContain('The decisions and their reasons (its "Questions & Decisions" section):');
        // goodSummary's Questions & Decisions and User Requests sections, sentence by sentence.
        for (const k of [3, 4, 5]) expect(answer.stdout).toContain(`- ${notes(1, k)}`);
        expect(answer.stdout).toContain(`The user's directives (its "User Requests" section):`);
        for (const k of [0, 1, 2]) expect(answer.stdout).toContain(notes(1, k));
        expect(answer.stdout).toContain('- read src/parser.ts:1-2 — the parser the decisions are about\n- ref docs/config.md — where the file format is described');
        expect(answer.stdout).not.toContain(notes(1, 12)); // Current State: not a decision, not a directive.
      }
    },
  );

  it('still steers on a tripped gate, and the gate stays as it was', async () => {
    for (let i = 0; i < 3 && !(JSON.parse((await runCli(box, ['status', '--json'])).stdout) as { tripped: boolean }).tripped; i += 1) {
      await run(box, COMMANDS.launcher, prompt(box, prose(30)));
    }
    const before = JSON.parse((await runCli(box, ['status', '--json'])).stdout) as { tripped: boolean; summaries: number; unsummarizedInteractions: number };
    expect(before).toMatchObject({ tripped: true, summaries: 1 });
    const answer = await run(box, COMMANDS.launcher, preCompact(box, 'auto'));
    expect(answer.code).toBe(0);
    expect(answer.stdout).toContain(`- ${notes(1, 4)}`);
    expect(JSON.parse((await runCli(box, ['status', '--json'])).stdout)).toMatchObject(before);
  });

  it.each(Object.entries(COMMANDS))(
    'with the daemon down, ON_DAEMON_DOWN=closed and the job last known tripped, answers nothing where a tool call is denied (%s)',
    async (_name, command) => {
      await daemon.stop();
      writeFileSync(box.config, 'ON_DAEMON_DOWN=closed\n');
      // A data folder that is a file: the daemon recap-hook starts exits at once; the verdict file beside the socket stays.
      writeFileSync(join(box.dir, 'not-a-folder'), 'x\n');
      const down = { RECAP_DATA_DIR: join(box.dir, 'not-a-folder'), RECAP_HOOK_DEADLINE_MS: '3000' };
      const denied = await run(box, command, readTool(box), down);
      expect(denied.code).toBe(0);
      expect(JSON.parse(denied.stdout)).toMatchObject({ hookSpecificOutput: { permissionDecision: 'deny' } });
      expect(denied.stdout).toContain(`it last knew job ${job} as tripped`);
      for (const trigger of ['auto', 'manual'] as const) expectNothing(await run(box, command, preCompact(box, trigger), down));
    },
  );
});
