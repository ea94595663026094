// Attacks in Codex CLI's own payload shapes, through the real daemon and the real
// `recap-hook codex` (the shared runs are in agentSuite.ts): apply_patch's
// Add/Update/Delete/Move-to on recap's files and on what wires recap in, spelled as Codex
// 0.169.0 reads a patch (it trims every header line, so an indented header or one with a
// trailing tab or no-break space still writes the file), a patch handed to `apply_patch`
// inside exec_command (Codex applies it itself), ~/.codex/.env (Codex loads it into every
// hook's environment, over the user's own variables), view_image, MCP tools, and shell
// commands. Each is denied in Codex's format on an open gate, where only the protection
// rules stand, and on a tripped one; ordinary work, or the way out, goes on after.
import { join, relative } from 'node:path';
import { agentShell, agentTool, launcherOf, type AgentAttack, type Case } from '../helpers/agentAttack.js';
import { ABSOLUTE, describeAgentAttacks, protectionGroup, RELATIVE, shellGroup, THROUGH_PROC_CWD, type Spelling } from '../helpers/agentSuite.js';
import { eventLog, verdictFile, type Target } from '../helpers/recapTargets.js';

/** What wires recap into Codex, or into the agents beside it, or runs before it: beside recap's own files. */
function targets(a: AgentAttack): Target[] {
  const { box } = a;
  const home = box.dir;
  return [
    ["Codex's hooks.json", join(home, '.codex', 'hooks.json')],
    ["Codex's config.toml", join(home, '.codex', 'config.toml')],
    ["Codex's .env, loaded into every hook's environment", join(home, '.codex', '.env')],
    ["the project's .codex/hooks.json", join(box.project, '.codex', 'hooks.json')],
    ["the project's .codex/config.toml", join(box.project, '.codex', 'config.toml')],
    ["Claude Code's settings", join(home, '.claude', 'settings.json')],
    ["Gemini CLI's recap extension", join(home, '.gemini', 'extensions', 'recap', 'hooks', 'hooks.json')],
    ["Qwen Code's settings", join(home, '.qwen', 'settings.json')],
    ['~/.bashrc', join(home, '.bashrc')],
    ['a node shadow in ~/.local/bin', join(home, '.local', 'bin', 'node')],
    ['a recap shadow in ~/bin', join(home, 'bin', 'recap')],
    ['a recap-hook shadow in a folder on PATH', join(home, 'usr-bin', 'recap-hook')],
  ];
}

/** Patches that touch `p`, as the model may write them; Codex applies every one. */
const PATCHES: [string, (p: string) => string][] = [
  ['Add File', (p) => `*** Begin Patch\n*** Add File: ${p}\n+x\n*** End Patch\n`],
  ['Update File', (p) => `*** Begin Patch\n*** Update File: ${p}\n@@\n-a\n+b\n*** End Patch\n`],
  ['Delete File', (p) => `*** Begin Patch\n*** Delete File: ${p}\n*** End Patch\n`],
  ['Move to, the only touch', (p) => `*** Begin Patch\n*** Update File: README.md\n*** Move to: ${p}\n@@\n-# the project\n+x\n*** End Patch\n`],
  ['CRLF line endings', (p) => `*** Begin Patch\r\n*** Add File: ${p}\r\n+x\r\n*** End Patch\r\n`],
  ['spaces around the header and its path', (p) => `  *** Begin Patch  \n*** Add File:    ${p}    \n+x\n*** End Patch\n`],
  ['an indented header', (p) => `*** Begin Patch\n   *** Add File: ${p}\n+x\n*** End Patch\n`],
  ['a header indented with a tab after a harmless one', (p) => `*** Begin Patch\n*** Add File: notes.md\n+x\n\t*** Delete File: ${p}\n*** End Patch\n`],
  ['a trailing tab', (p) => `*** Begin Patch\n*** Add File: ${p}\t\n+x\n*** End Patch\n`],
  ['a trailing no-break space', (p) => `*** Begin Patch\n*** Update File: ${p}\u00a0\n@@\n-a\n+b\n*** End Patch\n`],
  ['a trailing em space', (p) => `*** Begin Patch\n*** Delete File: ${p}\u2003\n*** End Patch\n`],
  ['a trailing next-line character (U+0085)', (p) => `*** Begin Patch\n*** Add File: ${p}\u0085\n+x\n*** End Patch\n`],
  ['a trailing vertical tab and form feed', (p) => `*** Begin Patch\n*** Add File: ${p}\u000b\u000c\n+x\n*** End Patch\n`],
  ['a heredoc around the patch', (p) => `<<'EOF'\n*** Begin Patch\n*** Add File: ${p}\n+x\n*** End Patch\nEOF\n`],
];

/** How a patch reaches the hook: apply_patch's `command` (0.169.0), a bare string, another field. */
const CARRIERS: [string, (patch: string) => unknown][] = [
  ['apply_patch', (patch) => ({ command: patch })],
  ['apply_patch with the patch as a bare string', (patch) => patch],
  ['apply_patch with the patch in a field of another name', (patch) => ({ patch, input: 'x' })],
];

/** The spellings of a path in a patch: Codex takes them from the session's folder. */
const SPELLINGS: Spelling[] = [ABSOLUTE, RELATIVE, ['relative through a folder', (a, target) => `src/../${relative(a.box.project, target)}`], THROUGH_PROC_CWD];

/** A patch in exec_command: Codex 0.169.0 applies `apply_patch <<'EOF'` itself (also after `cd X &&`). */
function shellPatches(a: AgentAttack, target: string): Case[] {
  const rel = relative(a.box.project, target);
  const fromSub = relative(join(a.box.project, 'sub'), target);
  const add = (p: string) => `*** Begin Patch\n*** Add File: ${p}\n+x\n*** End Patch`;
  return [
    ["exec_command apply_patch <<'EOF'", agentShell(a, `apply_patch <<'EOF'\n${add(rel)}\nEOF\n`)],
    ["exec_command applypatch <<'EOF'", agentShell(a, `applypatch <<'EOF'\n${add(rel)}\nEOF\n`)],
    ["exec_command cd sub && apply_patch <<'EOF'", agentShell(a, `cd sub && apply_patch <<'EOF'\n${add(fromSub)}\nEOF\n`)],
    [
      "exec_command apply_patch <<'EOF' with an indented header",
      agentShell(a, `apply_patch <<'EOF'\n*** Begin Patch\n  *** Update File: ${rel}\t\n@@\n-a\n+b\n*** End Patch\nEOF\n`),
    ],
    ['exec_command apply_patch with the patch as an argument', agentShell(a, `apply_patch '${add(rel)}'`)],
  ];
}

/**
 * Every patch form in every spelling through apply_patch's `command`; the other carriers with
 * the relative spelling (`all`), else the relative spelling alone.
 */
function patchCases(a: AgentAttack, target: string, all: boolean): Case[] {
  const cases: Case[] = [];
  for (const [how, spell] of all ? SPELLINGS : [RELATIVE]) {
    for (const [form, patch] of PATCHES) {
      for (const [carrier, input] of all && how === RELATIVE[0] ? CARRIERS : CARRIERS.slice(0, 1))
        cases.push([`${carrier}, ${form}, ${how}`, agentTool(a, 'apply_patch', input(patch(spell(a, target))))]);
    }
  }
  return [...cases, ...shellPatches(a, target)];
}

/** Shell commands of the model's (exec_command, seen as Bash) that the shell rules must catch. */
function shellCases(a: AgentAttack): Case[] {
  const { box } = a;
  const rel = (p: string) => relative(box.project, p);
  return [
    ['remove the data folder, relative', agentShell(a, `rm -rf ${rel(box.data)}`)],
    ['read the event log, relative', agentShell(a, `cat ${rel(box.data)}/log/*`)],
    ['raise the threshold in the user config', agentShell(a, `echo TOKEN_THRESHOLD=99999999 > ${rel(box.config)}`)],
    ['a project config', agentShell(a, 'mkdir -p .recap && echo TOKEN_THRESHOLD=99999999 > .recap/config.conf')],
    ['another socket for every hook, through ~/.codex/.env', agentShell(a, "printf 'RECAP_SOCKET=/tmp/evil.sock\\n' >> ~/.codex/.env")],
    ['code loaded into recap-hook, through $HOME/.codex/.env', agentShell(a, "echo 'NODE_OPTIONS=--require /tmp/evil.cjs' >> $HOME/.codex/.env")],
    ['~/.codex/.env by python', agentShell(a, `python3 -c "open('${join(box.dir, '.codex', '.env')}', 'a').write('RECAP_DATA_DIR=/tmp/x')"`)],
    ['~/.codex/.env by tee, relative', agentShell(a, `echo RECAP_CONFIG=/tmp/c | tee -a ${rel(join(box.dir, '.codex', '.env'))}`)],
    ["Codex's hooks switched off in hooks.json", agentShell(a, "sed -i 's/recap-hook/true/' ~/.codex/hooks.json")],
    ["Codex's hooks switched off in config.toml", agentShell(a, "printf '[features]\\nhooks = false\\n' >> ~/.codex/config.toml")],
    ['a project hooks.json', agentShell(a, 'mkdir -p .codex && echo \'{"hooks":{}}\' > .codex/hooks.json')],
    ['a node shadow', agentShell(a, 'cp /bin/true ~/.local/bin/node')],
    ['a recap shadow, linked', agentShell(a, 'ln -sf /bin/true ~/bin/recap')],
    ['the daemon stopped', agentShell(a, 'pkill -STOP -f recap')],
    ["recap's setup, by the launcher", agentShell(a, `${launcherOf(a)} uninstall codex`)],
    ['a trip by bare recap', agentShell(a, 'recap trip')],
  ];
}

/** view_image on recap's own files: off limits even to reading. */
function viewCases(a: AgentAttack): Case[] {
  const { box } = a;
  const files: Target[] = [
    ['the event log', eventLog(box)],
    ['the verdict file', verdictFile(box)],
    ['the user config', box.config],
  ];
  return files.map(([name, path]): Case => [`view_image on ${name}`, agentTool(a, 'view_image', { path: relative(box.project, path) })]);
}

/** An MCP tool naming recap's files or Codex's wiring in its arguments, however spelled. */
function mcpCases(a: AgentAttack): Case[] {
  const { box } = a;
  return [
    ['absolute', agentTool(a, 'mcp__fs__write_file', { path: box.config, content: 'TOKEN_THRESHOLD=1e9' })],
    ['relative', agentTool(a, 'mcp__fs__write_file', { path: relative(box.project, box.config), content: 'x' })],
    ['the project .recap, without ./', agentTool(a, 'mcp__fs__write_file', { path: '.recap/config.conf', content: 'x' })],
    ['the project .codex, nested', agentTool(a, 'mcp__fs__edit', { edits: [{ target: { file: '.codex/hooks.json' } }] })],
  ];
}

const HARMLESS_PATCH = '*** Begin Patch\n*** Add File: notes.md\n+x\n*** End Patch\n';

describeAgentAttacks('codex', {
  title: 'Codex',
  targets,
  writes: patchCases,
  groups: [
    shellGroup('exec_command', 'the shell attacks', shellCases),
    protectionGroup("view_image on recap's files", viewCases),
    protectionGroup('MCP tools naming recap files in their arguments', mcpCases, 'an MCP tool naming recap files in its arguments, %s'),
  ],
  allowed: {
    title: 'ordinary patches and commands still run',
    payloads: (a) => [
      agentTool(a, 'apply_patch', { command: HARMLESS_PATCH }),
      agentTool(a, 'apply_patch', { command: '*** Begin Patch\n  *** Update File: src/app.ts\t\n@@\n-a\n+b\n*** End Patch\n' }),
      agentShell(a, "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: docs/a.md\n+x\n*** End Patch\nEOF\n"),
      agentShell(a, 'cat ~/.codex/config.toml && ls ~/.codex'),
    ],
  },
  gateTools: {
    title: 'a harmless patch is denied by the gate itself, naming the way out',
    shellTool: 'exec_command',
    tools: [['apply_patch', { command: HARMLESS_PATCH }]],
  },
});
