// Given recap's protection rules with every agent's launch facts, when the agent's shell
// starts a known agent with its hooks switched off, then the command is refused; started
// normally, it passes.
import { describe, expect, it } from 'vitest';
import { AGENT_FACTS } from '../../src/agents/known.js';
import { claudeToolCall } from '../../src/agents/claude/facts.js';
import { EXTENSION_NAME } from '../../src/agents/gemini/extension.js';
import { protectionRefusal, type ProtectedState } from '../../src/events/protection.js';
import { nestedAgentRefusal } from '../../src/events/nestedAgents.js';

const HOME = '/home/ann';
const LAUNCHES = Object.values(AGENT_FACTS).map((f) => f.launch);
const STATE: ProtectedState = { paths: [`${HOME}/.local/share/recap`], home: HOME, agentLaunches: LAUNCHES };
const bash = (command: string) => protectionRefusal(claudeToolCall('Bash', { command }), `${HOME}/src/app`, STATE, new Set());

/** [what, command, the agent named in the refusal, a word of its reason] */
const REFUSED: [string, string, string, string][] = [
  // Claude Code
  ['claude --bare', 'claude --bare -p "do it"', 'Claude Code', '--bare'],
  ['claude --safe-mode', 'claude --safe-mode -p hi', 'Claude Code', '--safe-mode'],
  ['claude --restricted', 'claude --restricted -p hi', 'Claude Code', '--restricted'],
  ['inline settings with disableAllHooks', `claude --settings '{"disableAllHooks":true}' -p hi`, 'Claude Code', 'disableAllHooks'],
  ['inline settings with hooks', `claude --settings='{"hooks":{}}' -p hi`, 'Claude Code', '--settings'],
  ['inline settings disabling plugins', `claude --settings '{"enabledPlugins":{"recap@recap-local":false}}' -p hi`, 'Claude Code', '--settings'],
  ['a settings file recap cannot read', 'claude --settings /tmp/s.json -p hi', 'Claude Code', 'a file recap cannot read'],
  ['computed settings', 'claude --settings "$S" -p hi', 'Claude Code', 'computes'],
  ['setting sources without user', 'claude --setting-sources project,local -p hi', 'Claude Code', '--setting-sources'],
  ['setting sources empty', "claude --setting-sources '' -p hi", 'Claude Code', '--setting-sources'],
  ['another config folder', 'CLAUDE_CONFIG_DIR=$(mktemp -d) claude -p hi', 'Claude Code', 'CLAUDE_CONFIG_DIR'],
  ['another home', 'HOME=/tmp/h claude -p hi', 'Claude Code', 'HOME'],
  ['CLAUDE_CODE_SIMPLE', 'CLAUDE_CODE_SIMPLE=1 claude -p hi', 'Claude Code', 'CLAUDE_CODE_SIMPLE'],
  ['exported earlier in the line', 'export CLAUDE_CONFIG_DIR=/tmp/c; claude -p hi', 'Claude Code', 'CLAUDE_CONFIG_DIR'],
  ['assigned earlier in the line', 'HOME=/tmp/h && claude -p hi', 'Claude Code', 'HOME'],
  ['unset earlier in the line', 'unset CLAUDE_CONFIG_DIR; claude -p hi', 'Claude Code', 'CLAUDE_CONFIG_DIR'],
  ['env with an assignment', 'env CLAUDE_CONFIG_DIR=/tmp/c claude -p hi', 'Claude Code', 'CLAUDE_CONFIG_DIR'],
  ['env -i', 'env -i PATH=/usr/bin claude -p hi', 'Claude Code', 'emptied'],
  ['env -u HOME', 'env -u HOME claude -p hi', 'Claude Code', 'HOME'],
  ['coproc', 'coproc claude --bare -p hi', 'Claude Code', '--bare'],
  ['a wrapper recap does not list (taskset)', 'taskset 1 claude --bare -p hi', 'Claude Code', '--bare'],
  ['a tracer (strace) with options of its own', 'strace -f -o /dev/null claude --bare -p hi', 'Claude Code', '--bare'],
  ['a debugger (gdb --args)', 'gdb -batch -ex run --args claude --bare', 'Claude Code', '--bare'],
  ['setarch', 'setarch x86_64 claude --bare -p hi', 'Claude Code', '--bare'],
  ['inline settings with an escaped key', `claude --settings '{"disableAllHoo\\u006bs":true}' -p hi`, 'Claude Code', '--settings'],
  ['inline settings with an escaped plugin key', `claude --settings '{"enabledPlu\\u0067ins":{}}' -p hi`, 'Claude Code', '--settings'],
  ['codex -c with escaped TOML keys', `codex exec -c '"fe\\u0061tures"."ho\\u006fks"=false' x`, 'Codex', '-c'],
  ['printf -v into an exported variable', 'printf -v HOME %s /tmp/h; claude -p hi', 'Claude Code', 'HOME'],
  ['printf -v run together', 'printf -vHOME %s /tmp/h; claude -p hi', 'Claude Code', 'HOME'],
  ['read into an exported variable', 'read -r HOME <<< /tmp/h; claude -p hi', 'Claude Code', 'HOME'],
  ['mapfile into a marker', 'mapfile -t CLAUDE_CONFIG_DIR <<< /tmp/c; export CLAUDE_CONFIG_DIR; claude -p hi', 'Claude Code', 'CLAUDE_CONFIG_DIR'],
  ['a name reference', 'declare -n r=HOME; r=/tmp/h; claude -p hi', 'Claude Code', 'HOME'],
  ['printf -v into a computed name', 'printf -v "$n" %s /tmp/h; claude -p hi', 'Claude Code', 'run time'],
  ['a computed argument', 'claude $FLAGS -p hi', 'Claude Code', 'computes'],
  ['a glob as an argument', 'claude * -p hi', 'Claude Code', 'computes'],
  ['a quoted switch', "claude '--bare' -p hi", 'Claude Code', '--bare'],
  ['nohup and timeout', 'nohup timeout 60 claude --bare -p hi &', 'Claude Code', '--bare'],
  ['setsid and exec', 'setsid exec claude --bare -p hi', 'Claude Code', '--bare'],
  ['npx with the package', 'npx -y @anthropic-ai/claude-code@latest --bare -p hi', 'Claude Code', '--bare'],
  ['pnpm dlx', 'pnpm dlx @anthropic-ai/claude-code --bare -p hi', 'Claude Code', '--bare'],
  ['npm exec', 'npm exec -- @anthropic-ai/claude-code --bare -p hi', 'Claude Code', '--bare'],
  ['the platform binary by path', '/x/node_modules/@anthropic-ai/claude-code-linux-x64/claude --bare -p hi', 'Claude Code', '--bare'],
  ['the package bin', './node_modules/@anthropic-ai/claude-code/bin/claude.exe --bare', 'Claude Code', '--bare'],
  ['bash -c', "bash -c 'claude --bare -p hi'", 'Claude Code', '--bare'],
  ['a command substitution in quotes', 'out="$(claude --bare -p hi)"', 'Claude Code', '--bare'],
  ['eval', 'eval claude --bare -p hi', 'Claude Code', '--bare'],
  ['xargs', 'echo hi | xargs claude --bare -p', 'Claude Code', '--bare'],
  ['tmux', "tmux new -d 'claude --bare'", 'Claude Code', '--bare'],
  ['screen', 'screen -dm claude --bare', 'Claude Code', '--bare'],
  ['find -exec', 'find . -maxdepth 0 -exec claude --bare -p hi \\;', 'Claude Code', '--bare'],
  ['python starting it', `python3 -c "import subprocess; subprocess.run(['claude', '--bare', '-p', 'hi'])"`, 'Claude Code', '--bare'],
  ['node starting it with another home', `node -e "require('child_process').execSync('claude -p hi', {env: {HOME: '/tmp'}})"`, 'Claude Code', 'HOME'],
  // Codex
  ['codex --disable hooks', 'codex exec --disable hooks "x"', 'Codex', '--disable hooks'],
  ['codex --disable=hooks', 'codex exec --disable=hooks "x"', 'Codex', '--disable'],
  ['codex -c features.hooks=false', "codex exec -c features.hooks=false 'x'", 'Codex', '-c'],
  ['codex -c with a table', "codex exec -c 'features={hooks=false}' x", 'Codex', '-c'],
  ['codex -c run together', 'codex exec -cfeatures.hooks=false x', 'Codex', '-c'],
  ['codex --config hooks', "codex --config 'hooks={}' exec x", 'Codex', '--config'],
  ['codex profile', 'codex exec -p quiet x', 'Codex', '-p'],
  ['codex --profile=', 'codex exec --profile=quiet x', 'Codex', '--profile'],
  ['codex --ignore-user-config', 'codex exec --ignore-user-config x', 'Codex', '--ignore-user-config'],
  ['CODEX_HOME', 'CODEX_HOME=$(mktemp -d) codex exec x', 'Codex', 'CODEX_HOME'],
  ['codex through node', 'node /x/lib/node_modules/@openai/codex/bin/codex.js exec --disable hooks x', 'Codex', '--disable'],
  ['codex through npx', 'npx @openai/codex exec --disable hooks x', 'Codex', '--disable'],
  // Gemini CLI
  ['gemini -e none', 'gemini -e none -p hi', 'Gemini CLI', '-e none'],
  ['gemini --extensions none', 'gemini --extensions none -p hi', 'Gemini CLI', '--extensions'],
  ['gemini --extensions=other', 'gemini --extensions=other -p hi', 'Gemini CLI', '--extensions'],
  ['gemini -e run together', 'gemini -enone -p hi', 'Gemini CLI', '-e'],
  ['gemini -ye', 'gemini -ye none -p hi', 'Gemini CLI', '-e'],
  ['GEMINI_CLI_HOME', 'GEMINI_CLI_HOME=/tmp/g gemini -p hi', 'Gemini CLI', 'GEMINI_CLI_HOME'],
  ['gemini system settings', 'GEMINI_CLI_SYSTEM_SETTINGS_PATH=/tmp/s.json gemini -p hi', 'Gemini CLI', 'GEMINI_CLI_SYSTEM_SETTINGS_PATH'],
  ['gemini bundle by node', 'node /usr/lib/node_modules/@google/gemini-cli/bundle/gemini.js -e none -p hi', 'Gemini CLI', '-e'],
  // Qwen Code
  ['qwen --bare', 'qwen --bare -p hi', 'Qwen Code', '--bare'],
  ['qwen --safe-mode', 'qwen --safe-mode hi', 'Qwen Code', '--safe-mode'],
  ['QWEN_HOME', 'QWEN_HOME=/tmp/q qwen hi', 'Qwen Code', 'QWEN_HOME'],
  ['qwen system settings', 'QWEN_CODE_SYSTEM_SETTINGS_PATH=/tmp/s.json qwen hi', 'Qwen Code', 'QWEN_CODE_SYSTEM_SETTINGS_PATH'],
  ['qwen by bunx', 'bunx @qwen-code/qwen-code --safe-mode hi', 'Qwen Code', '--safe-mode'],
  // opencode
  ['opencode run --pure', 'opencode run --pure hi < /dev/null', 'opencode', '--pure'],
  ['OPENCODE_PURE', 'OPENCODE_PURE=1 opencode run hi', 'opencode', 'OPENCODE_PURE'],
  ['XDG_CONFIG_HOME', 'XDG_CONFIG_HOME=/tmp/x opencode run hi', 'opencode', 'XDG_CONFIG_HOME'],
  ['OPENCODE_CONFIG_DIR', 'OPENCODE_CONFIG_DIR=/tmp/plugins opencode run hi', 'opencode', 'OPENCODE_CONFIG_DIR'],
  ['opencode-ai by npx', 'npx opencode-ai run --pure hi', 'opencode', '--pure'],
  // GitHub Copilot CLI
  ['COPILOT_HOME', 'COPILOT_HOME=/tmp/c copilot -p hi', 'GitHub Copilot CLI', 'COPILOT_HOME'],
  ['copilot --trust-folder', 'cd /tmp/evil && copilot --trust-folder -p hi', 'GitHub Copilot CLI', '--trust-folder'],
  ['COPILOT_ALLOW_ALL', 'COPILOT_ALLOW_ALL=true copilot -p hi', 'GitHub Copilot CLI', 'COPILOT_ALLOW_ALL'],
  ['copilot by its loader', 'node ~/.npm-global/lib/node_modules/@github/copilot/npm-loader.js --trust-folder -p hi', 'GitHub Copilot CLI', '--trust-folder'],
];

const ALLOWED: [string, string][] = [
  ['claude -p', 'claude -p "hi"'],
  ['claude with a model and tools', 'claude -p "fix the test" --model sonnet --allowedTools Bash --output-format json'],
  ['claude with inline settings that name no hooks', `claude --settings '{"model":"sonnet"}' -p hi`],
  ['claude with every setting source', 'claude --setting-sources user,project,local -p hi'],
  ['claude with a plugin folder added', 'claude --plugin-dir ./my-plugin -p hi'],
  ['claude --bare as the prompt after --', 'claude -p -- --bare'],
  ['claude --version', 'claude --version'],
  ['claude reading its prompt from a file', 'claude -p < prompt.txt'],
  ['a prompt with a variable inside', 'claude -p "fix $FILE"'],
  ['another variable set for it', 'ANTHROPIC_BASE_URL=http://127.0.0.1:9 claude -p hi'],
  ['codex exec', 'codex exec "x"'],
  ['codex exec with a model override', 'codex exec -c model=\'"o3"\' --skip-git-repo-check x'],
  ['codex --enable', 'codex exec --enable web_search x'],
  ['codex --disable of another feature', 'codex exec --disable plugins x'],
  ['gemini -p', 'gemini -p hi -m gemini-2.5-flash --approval-mode yolo'],
  ['qwen', 'qwen -p hi --approval-mode yolo'],
  ['opencode run', 'opencode run hi < /dev/null'],
  ['copilot -p', 'copilot -p hi --allow-all-tools'],
  ['npx codex', 'npx @openai/codex exec x'],
  ['HOME changed for another program', 'HOME=/tmp/h npm test'],
  ['printf with a format and read into other variables', 'printf "%s\\n" hi; read -r line < notes.txt; mapfile -t lines < notes.txt; claude -p hi'],
  ['a commit message naming a switch', 'git commit -m "document claude --bare"'],
  ['grep for a switch', 'grep -rn -- --bare docs'],
  ['which', 'which claude codex gemini'],
  ['a wrapper recap does not list, starting it normally', 'taskset 1 claude -p hi'],
  ['echo naming a switch', 'echo run claude --bare to skip hooks'],
  ['another CLI named like a path', './scripts/claude-helper --bare'],
];

describe('given every agent’s launch facts', () => {
  it.each(REFUSED)('when the shell starts an agent with its hooks off (%s), then it is refused', (_what, command, title, why) => {
    const refusal = bash(command);
    expect(refusal).toContain(`starts ${title} without recap's hooks`);
    expect(refusal).toContain(why);
  });

  it.each(ALLOWED)('when the shell starts an agent normally (%s), then it passes', (_what, command) => {
    expect(bash(command)).toBeUndefined();
  });

  // Through the whole rule set, `-e recap` names recap and is refused for that (runsRecap.ts).
  it("then gemini's launch keeps the extension recap installs", () => {
    expect(nestedAgentRefusal(`gemini -e ${EXTENSION_NAME},other -p hi`, LAUNCHES)).toBeUndefined();
    expect(nestedAgentRefusal('gemini -e none -p hi', LAUNCHES)).toBeDefined();
  });

  it('then an agent started before the variable is changed passes', () => {
    expect(bash('claude -p hi; export HOME=/tmp/h')).toBeUndefined();
  });

  it('then with no launch facts nothing is refused', () => {
    expect(nestedAgentRefusal('claude --bare -p hi', [])).toBeUndefined();
  });

  it('then the refusal says what was refused and why', () => {
    expect(bash('opencode run --pure hi')).toBe(
      "the command starts opencode without recap's hooks (--pure: no plugins, recap's among them), so that session would answer to no gate; start it without that, or leave it to the user",
    );
  });
});
