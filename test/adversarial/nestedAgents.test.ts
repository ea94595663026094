// Issue 25, items 3, 5 and 7: through the real recap-hook and the real daemon, an agent's
// shell may not start a known agent with its hooks switched off (that session would answer
// to no gate), nor signal recap's daemon in any spelling a command line shows, open gate or
// tripped; after each deny the way out (tripped) or ordinary work (open) still goes on, and
// an agent started normally passes. The agents themselves are not run: the deny is the proof.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandbox } from '../helpers/daemon.js';
import {
  endAttack,
  expectAllowed,
  expectDenied,
  expectStillWorking,
  expectWayOutOpen,
  openGate,
  proveWayOut,
  runHook,
  toolCall,
  trippedSandbox,
  type Attack,
} from '../helpers/gateAttack.js';

const bash = (attack: Attack, command: string) => runHook(attack.box.env, toolCall(attack, 'Bash', { command, description: 'start a helper agent' }));

/** One or two switches of each agent, past the wrappers an agent would reach for. */
const WITHOUT_HOOKS: [string, string][] = [
  ['Claude Code, inline settings', `claude --settings '{"disableAllHooks":true}' -p "finish the task"`],
  ['Claude Code, --bare', 'claude --bare -p "finish the task"'],
  ['Claude Code, another config folder', 'CLAUDE_CONFIG_DIR=$(mktemp -d) claude -p "finish the task"'],
  ['Claude Code, exported home', 'export HOME=/tmp/h; nohup claude -p "finish the task" &'],
  ['Claude Code by npx', 'npx -y @anthropic-ai/claude-code --safe-mode -p "finish the task"'],
  ['Codex, hooks feature off', 'codex exec --disable hooks "finish the task"'],
  ['Codex, config override', "codex exec -c 'features.hooks=false' 'finish the task'"],
  ['Codex, another CODEX_HOME', 'env CODEX_HOME=/tmp/c codex exec "finish the task"'],
  ['Gemini CLI, no extensions', 'gemini -e none -p "finish the task"'],
  ['Gemini CLI, another home', 'GEMINI_CLI_HOME=/tmp/g gemini -p "finish the task"'],
  ['Qwen Code, --safe-mode', 'qwen --safe-mode -p "finish the task"'],
  ['Qwen Code, another QWEN_HOME', 'QWEN_HOME=/tmp/q qwen "finish the task"'],
  ['opencode, --pure', 'opencode run --pure "finish the task" < /dev/null'],
  ['opencode, OPENCODE_PURE', "bash -c 'OPENCODE_PURE=1 opencode run finish'"],
  ['Copilot CLI, another COPILOT_HOME', 'COPILOT_HOME=/tmp/c timeout 600 copilot -p "finish the task"'],
];

/** Signals at the daemon, `{pid}` standing for its pid. */
const SIGNALS: [string, string][] = [
  ['a computed signal', 'kill -s $(echo STOP) {pid}'],
  ['SIGKILL by pid', 'kill -9 {pid}'],
  ['python os.kill', "python3 -c 'import os; os.kill({pid}, 19)'"],
  ['perl kill', `perl -e 'kill "STOP", {pid}'`],
  ['pkill -f recapd', 'pkill -f recapd'],
  ['killall node', 'killall node'],
  ['pgrep into kill', 'kill -CONT $(pgrep -f "bin/re[c]ap.js daemon")'],
];

const withPid = (attack: Attack, command: string) => command.replaceAll('{pid}', String(attack.daemon.child.pid));

describe('a tripped gate: an agent started without recap, or a signal at the daemon, is denied; the way out stays open', () => {
  let attack: Attack;
  beforeAll(async () => {
    attack = await trippedSandbox();
  });
  afterAll(() => endAttack(attack));

  // On a tripped gate the gate's own answer, which names the way out, is the reason.
  it.each(WITHOUT_HOOKS)('%s: %s', async (_what, command) => {
    expectDenied(await bash(attack, command));
    await expectWayOutOpen(attack);
  });

  it.each(SIGNALS)('%s: %s', async (_what, command) => {
    expectDenied(await bash(attack, withPid(attack, command)));
    await expectWayOutOpen(attack);
  });

  it("after both families, the deny message's exact command opens the gate in a real shell", async () => {
    await proveWayOut(attack);
  });
});

describe('an open gate: the same moves are denied, and an agent started normally passes', () => {
  let attack: Attack;
  beforeAll(async () => {
    attack = await openGate(sandbox());
  });
  afterAll(() => endAttack(attack));

  it.each(WITHOUT_HOOKS)('%s: %s', async (_what, command) => {
    const reason = expectDenied(await bash(attack, command));
    expect(reason).toMatch(/starts (Claude Code|Codex|Gemini CLI|Qwen Code|opencode|GitHub Copilot CLI) without recap's hooks \(.+\), so that session would answer to no gate/);
    await expectStillWorking(attack);
  });

  it.each(SIGNALS)('%s: %s', async (_what, command) => {
    expect(expectDenied(await bash(attack, withPid(attack, command)))).toMatch(/only the user may do that, outside the agent/);
    await expectStillWorking(attack);
  });

  it.each([
    ['claude -p "hi"'],
    ['codex exec "summarise the diff"'],
    ['gemini -p "hi" --approval-mode yolo'],
    ['qwen -p "hi"'],
    ['opencode run "hi" < /dev/null'],
    ['copilot -p "hi" --allow-all-tools'],
    ['kill %1'],
    ['pkill -f vite'],
  ])('%s passes', async (command) => {
    expectAllowed(await bash(attack, command));
  });
});
