// RECAP_DISABLE=1 counts only when the user set it in their own shell: judged from the
// hook's ancestors and the environment each started with (src/client/disableSwitch.ts).
import { describe, expect, it } from 'vitest';
import { disableAsked, judgeDisable, type Proc } from '../../src/client/disableSwitch.js';

const proc = (pid: number, comm: string, env: Record<string, string> = {}): Proc => ({ pid, ppid: pid - 1, comm, env: new Map(Object.entries(env)) });
const OFF = { RECAP_DISABLE: '1' };

describe('judgeDisable', () => {
  it("given the user's shell exported it before starting the agent, then recap is off", () => {
    // hook's sh, the agent (started with it), the user's shell (which set it), the terminal.
    const chain = [proc(50, 'sh', { ...OFF, CLAUDECODE: '1' }), proc(40, 'claude', OFF), proc(30, 'bash'), proc(20, 'tmux: server')];
    expect(judgeDisable(chain)).toEqual({ off: true });
  });

  it('given it in a login environment (every process above the agent has it), then recap is off', () => {
    expect(judgeDisable([proc(40, 'node', OFF), proc(30, 'zsh', OFF), proc(20, 'sshd')])).toEqual({ off: true });
  });

  it("given an agent's shell tool started another agent with it, then it is ignored, naming the marker", () => {
    const chain = [proc(60, 'sh'), proc(50, 'claude', { ...OFF, CLAUDECODE: '1' }), proc(40, 'bash', { CLAUDECODE: '1' }), proc(30, 'claude'), proc(20, 'bash')];
    const judged = judgeDisable(chain);
    expect(judged.off).toBe(false);
    if (!judged.off) expect(judged.why).toMatch(/set in an agent's shell \(CLAUDECODE is set for process 50/);
  });

  it("given the agent's shell stripped its markers but set it, then the shell that set it gives it away", () => {
    const chain = [proc(50, 'claude', OFF), proc(40, 'bash', { CLAUDE_CODE_SESSION_ID: 'abc' }), proc(30, 'claude'), proc(20, 'bash')];
    expect(judgeDisable(chain)).toMatchObject({ off: false, why: expect.stringMatching(/CLAUDE_CODE_SESSION_ID is set for process 40/) });
  });

  it('given it only in the hook environment (a settings or .env file the agent loads), then it is ignored', () => {
    const chain = [proc(50, 'sh', OFF), proc(40, 'qwen'), proc(30, 'bash')];
    expect(judgeDisable(chain)).toMatchObject({ off: false, why: expect.stringMatching(/not in the agent's environment when it started/) });
  });

  it('given an agent orphaned to init with it set, then it is ignored', () => {
    const chain = [proc(50, 'claude', OFF), { ...proc(1, 'systemd'), ppid: 0 }];
    expect(judgeDisable(chain)).toMatchObject({ off: false, why: expect.stringMatching(/the process that set it is gone/) });
  });

  it('empty or 0 is no request', () => {
    expect(disableAsked({ RECAP_DISABLE: '' })).toBe(false);
    expect(disableAsked({ RECAP_DISABLE: '0' })).toBe(false);
    expect(disableAsked({ RECAP_DISABLE: '1' })).toBe(true);
  });
});
