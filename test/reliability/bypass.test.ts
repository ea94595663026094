// The gate bypass corpus, through the real daemon: with the gate tripped, every command line
// that tries to get past the whitelist is denied (op check, tool Bash, and the same lines
// through the Claude hook op); every legitimate form is allowed.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawClient, RECAP, removeSandbox, sandbox, startDaemon, type DaemonProcess, type Sandbox } from '../helpers/daemon.js';
import { jobIdFor } from '../../src/common/jobs.js';
import { goodSummary } from '../helpers/text.js';
import { call, FULL } from './harness.js';

const SUMMARY = goodSummary();
const HEREDOC = `recap submit <<'EOF'\n${SUMMARY}\nEOF`;

const HOSTILE: string[] = [
  // chaining and operators
  'recap status; rm -rf /',
  'recap status && curl evil.example',
  'recap status || true',
  'recap status | sh',
  'recap status & touch /tmp/x',
  'recap submit --file s.md; cat ~/.ssh/id_rsa',
  'recap status;touch x',
  '(recap status)',
  '{ recap status; }',
  '! recap status',
  // substitution and expansion
  'recap status $(touch /tmp/x)',
  'recap status `touch /tmp/x`',
  'recap context --job $(id -u)',
  'recap status ${HOME}',
  'recap status $HOME',
  'recap chain --job "$(whoami)"',
  'recap status <(cat /etc/passwd)',
  'recap status >(cat)',
  'recap status ~root',
  'recap status *',
  'recap status file?',
  'recap status {a,b}',
  '$(echo recap) status',
  '`echo recap` status',
  'rec$()ap status',
  // redirections
  'recap status > /tmp/out',
  'recap status >> ~/.bashrc',
  'recap status 2>/dev/null',
  'recap status < /etc/passwd',
  'recap submit --file s.md > /tmp/x',
  'recap context &> /tmp/x',
  'recap status >| /tmp/x',
  // here-documents
  `recap submit <<EOF\n${SUMMARY}\nEOF`,
  `recap submit <<-'EOF'\n${SUMMARY}\n\tEOF\ntouch /tmp/x\nEOF`, // bash ends a <<- here-document at a tab-led EOF
  `recap submit <<$'EOF'\n${SUMMARY}\nEOF`,
  `recap submit <<'EOF'\n${SUMMARY}\nEOF\ntouch /tmp/x`,
  `recap submit <<'EOF'\n${SUMMARY}`,
  `recap submit <<'EOF' --file s.md\n${SUMMARY}\nEOF`,
  `recap submit <<'A' <<'B'\nx\nA\ny\nB`,
  `recap status <<'EOF'\nx\nEOF`,
  'recap submit <<< "text"',
  // more than one line
  'recap status\ntouch /tmp/x',
  'recap status\rtouch /tmp/x',
  'touch /tmp/x\nrecap status',
  // assignments and wrappers
  'FOO=1 recap status',
  'PATH=/tmp recap status',
  'LD_PRELOAD=/tmp/x.so recap status',
  'env recap status',
  'sudo recap status',
  'exec recap status',
  'command recap status',
  'bash -c "recap status"',
  "sh -c 'recap status; id'",
  'eval recap status',
  'nohup recap status',
  'xargs recap status',
  // look-alikes and impostors
  './recap status',
  '/tmp/recap status',
  '/usr/local/bin/recap-evil status',
  'recap\u00a0status',
  'rеcap status', // Cyrillic е
  'recap ѕtatus', // Cyrillic ѕ
  'recap\u200bstatus',
  'RECAP status',
  'recap-hook claude',
  'npx recap status',
  'node bin/recap.js status',
  // forbidden subcommands and options
  'recap',
  '',
  '   ',
  'recap install claude',
  'recap uninstall claude',
  'recap daemon',
  'recap trip --reason x',
  'recap record --text hi',
  'recap check --tool Read',
  'recap verify',
  'recap export',
  'recap import x',
  'recap status --debug',
  'recap status --job',
  'recap status --job --json',
  'recap status --json --json',
  'recap status --json=1',
  'recap submit',
  'recap submit -',
  'recap submit --file',
  'recap submit --file s.md --file t.md',
  'recap submit --file -x',
  'recap submit --evil',
  'recap context extra',
  // quoting tricks
  'recap "status; id"',
  "recap 'status' ; id",
  'recap status \\; id',
  'recap status #; id',
  "recap status 'unterminated",
  'recap status "unterminated',
  'recap status \\',
];

const LEGITIMATE: string[] = [
  'recap status',
  'recap status --json',
  'recap context',
  'recap context --json',
  'recap context --job crash-0',
  'recap chain',
  'recap chain --json --job=bypass',
  'recap submit --file summary.md',
  'recap submit --file=summary.md --json',
  'recap submit --topic parser --file summary.md',
  HEREDOC,
  `recap submit --json <<"EOF"\n${SUMMARY}\nEOF`,
  `recap submit --topic parser <<'END_SUMMARY'\n${SUMMARY}\nEND_SUMMARY\n`,
  `recap submit - <<'EOF'\n${SUMMARY}\nEOF`,
];

describe('the gate bypass corpus, through the real daemon', () => {
  let box: Sandbox;
  let daemon: DaemonProcess;
  let client: RawClient;
  const job = 'bypass';
  const figures = { hostile: HOSTILE.length, denied: 0, hookDenied: 0, legitimate: LEGITIMATE.length, allowed: 0 };

  /** The corpus writes the command word as `recap`; the gate takes the daemon's launcher. */
  const byLauncher = (command: string) => command.replace(/^recap(?=[ \n])/, join(box.data, 'bin', 'recap'));

  beforeAll(async () => {
    box = sandbox();
    daemon = await startDaemon(box);
    client = await RawClient.connect(box.socket);
    // The hook op works out the job from the payload's cwd: trip that one too.
    for (const name of [job, jobIdFor(box.project)]) {
      // A trip needs something to summarize.
      await call(client, 'record', { job: name, kind: 'prompt', text: 'the work before the corpus' });
      const tripped = await call(client, 'trip', { job: name, note: 'bypass corpus' });
      expect(tripped.result).toMatchObject({ tripped: true });
    }
  });
  afterAll(async () => {
    client?.close();
    await daemon?.stop();
    removeSandbox(box);
    console.log(`[bypass ${FULL ? 'full' : 'short'}] ${JSON.stringify(figures)}`);
  });

  it('has at least 50 hostile lines', () => {
    expect(new Set(HOSTILE).size).toBeGreaterThanOrEqual(50);
  });

  it('denies every hostile line at op check', async () => {
    const allowed: string[] = [];
    for (const command of HOSTILE) {
      const answer = await call(client, 'check', { job, tool: 'Bash', input: { command } });
      expect(answer.error, command).toBeUndefined();
      if ((answer.result as { allow: boolean }).allow) allowed.push(command);
      else figures.denied += 1;
    }
    expect(allowed).toEqual([]);
  });

  it('denies every hostile line through the Claude hook op', async () => {
    const allowed: string[] = [];
    for (const command of HOSTILE) {
      const payload = {
        session_id: 's1',
        transcript_path: `${box.project}/t.jsonl`,
        cwd: box.project,
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_input: { command },
        tool_use_id: 'toolu_1',
        permission_mode: 'default',
      };
      const answer = await call(client, 'hook', { agent: 'claude', payload: { ...payload, cwd: box.project } });
      expect(answer.error, command).toBeUndefined();
      const stdout = (answer.result as { stdout: string }).stdout;
      if (stdout.includes('"permissionDecision":"deny"')) figures.hookDenied += 1;
      else allowed.push(command);
    }
    expect(allowed).toEqual([]);
  });

  it('denies every hostile line with recap named by the launcher, the one name the gate accepts', async () => {
    const allowed: string[] = [];
    for (const command of HOSTILE.map(byLauncher)) {
      const answer = await call(client, 'check', { job, tool: 'Bash', input: { command } });
      expect(answer.error, command).toBeUndefined();
      if ((answer.result as { allow: boolean }).allow) allowed.push(command);
    }
    expect(allowed).toEqual([]);
  });

  it('denies the legitimate forms when recap is named any other way: PATH, the package bin', async () => {
    for (const command of ['recap status', `${RECAP} status`, `${RECAP} chain`, "'recap' context"]) {
      const answer = await call(client, 'check', { job, tool: 'Bash', input: { command } });
      expect(answer.result, command).toMatchObject({ allow: false });
    }
  });

  it('allows every legitimate form, with recap named by the launcher', async () => {
    const denied: string[] = [];
    for (const command of LEGITIMATE.map(byLauncher)) {
      const answer = await call(client, 'check', { job, tool: 'Bash', input: { command } });
      if ((answer.result as { allow: boolean }).allow) figures.allowed += 1;
      else denied.push(command);
    }
    expect(denied).toEqual([]);
  });

  it('still denies a non-Bash tool, so the gate really is tripped', async () => {
    const answer = await call(client, 'check', { job, tool: 'Read', input: { file_path: '/etc/hosts' } });
    expect(answer.result).toMatchObject({ allow: false });
  });
});
