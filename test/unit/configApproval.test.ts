// ConfigService with approvals: a config file applies whole only when its content is the
// approved one; otherwise only where it makes the gate stricter. The facts it decides are
// folded into a projection here, as the daemon's handler records them.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigService } from '../../src/daemon/configService.js';
import { contentHash } from '../../src/common/configLayers.js';
import { Projection } from '../../src/daemon/projection.js';
import { decodeSnapshot, encodeSnapshot } from '../../src/daemon/snapshot.js';
import { CommandRefused } from '../../src/events/commands.js';
import { CURRENT_VERSION, type StoredEvent } from '../../src/events/events.js';
import { upcast } from '../../src/events/upcast.js';

describe('ConfigService with approvals', () => {
  let dir: string;
  let userFile: string;
  let project: string;
  let projectFile: string;
  let projection = new Projection();
  const records = { approved: (scope: string) => projection.approvedConfig.get(scope), held: (scope: string) => projection.heldConfig.get(scope) };
  const service = (env: Record<string, string> = {}) => new ConfigService(userFile, env, undefined, records);
  /** What the handler does: the facts the service decided go into the log, and so the projection. */
  const recorded = (s: ConfigService) => {
    for (const event of s.drain()) projection.apply({ ...event, seq: projection.lastSeq + 1, version: CURRENT_VERSION[event.type] } as StoredEvent);
  };
  /** What the daemon does on `recap config allow` (`user`: `--user`): records the file as read now. */
  const approve = (s: ConfigService, user = false) => {
    const read = s.allow(user ? {} : { project });
    if (!read.ok) throw new Error(read.problems.join('\n'));
    recorded(s);
    return read.allowed;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'recap-approval-'));
    userFile = join(dir, 'user.conf');
    project = join(dir, 'project');
    projectFile = join(project, '.recap', 'config.conf');
    mkdirSync(join(project, '.recap'), { recursive: true });
    writeFileSync(userFile, 'TOKEN_THRESHOLD=300\n');
    projection = new Projection();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('given a file never approved (as from before approvals) that raises the threshold, then the user value stays and the change waits', () => {
    writeFileSync(projectFile, 'TOKEN_THRESHOLD=5000\nMIN_TOKENS_PER_SECTION=70\n');
    const s = service();
    expect(s.forProject(project).config).toMatchObject({ TOKEN_THRESHOLD: 300, MIN_TOKENS_PER_SECTION: 70 });
    expect(s.forProject(project).sources.TOKEN_THRESHOLD).toBe(`${userFile}:1 (held: ${projectFile} sets 5000, waiting for recap config allow)`);
    expect(s.forProject(project).sources.MIN_TOKENS_PER_SECTION).toBe(`${projectFile}:2`);
    expect(s.pending(project)).toEqual({
      file: projectFile,
      hash: contentHash(readFileSync(projectFile)),
      held: [{ key: 'TOKEN_THRESHOLD', from: 300, to: 5000, direction: 'weaker' }],
      // Its stricter part applied at once, and that counts as approved.
      neverApproved: false,
      command: 'recap config allow',
    });
  });

  it('given the file approved, then it applies whole; when edited again and re-read, the approved values stay until a new approval', () => {
    writeFileSync(projectFile, 'TOKEN_THRESHOLD=5000\n');
    const s = service();
    const approval = approve(s);
    expect(approval.changes).toEqual([{ key: 'TOKEN_THRESHOLD', from: 300, to: 5000, direction: 'weaker' }]);
    expect(s.forProject(project).config.TOKEN_THRESHOLD).toBe(5000);
    expect(s.pending(project)).toBeUndefined();

    writeFileSync(projectFile, 'TOKEN_THRESHOLD=9000\nON_DAEMON_DOWN=closed\n');
    s.reload();
    expect(s.forProject(project).config).toMatchObject({ TOKEN_THRESHOLD: 5000, ON_DAEMON_DOWN: 'closed' });
    expect(s.pending(project)).toMatchObject({ held: [{ key: 'TOKEN_THRESHOLD', from: 5000, to: 9000 }], neverApproved: false });
    approve(s);
    expect(s.forProject(project).config.TOKEN_THRESHOLD).toBe(9000);
  });

  it('given an approved stricter file, when it is deleted and re-read, then its stricter values stay until the deletion is approved', () => {
    writeFileSync(projectFile, 'TOKEN_THRESHOLD=100\n');
    const s = service();
    approve(s);
    unlinkSync(projectFile);
    s.reload();
    expect(s.forProject(project).config.TOKEN_THRESHOLD).toBe(100);
    approve(s);
    expect(s.forProject(project).config.TOKEN_THRESHOLD).toBe(300);
  });

  it('given a file whose stricter ends of the band cross the approved band, then the approved band stays whole', () => {
    writeFileSync(projectFile, 'SUMMARY_MIN_TOKENS=1200\nSUMMARY_MAX_TOKENS=1500\n');
    const s = service();
    expect(s.forProject(project).config).toMatchObject({ SUMMARY_MIN_TOKENS: 200, SUMMARY_MAX_TOKENS: 1000 });
    expect(
      s
        .pending(project)
        ?.held.map((h) => h.key)
        .sort(),
    ).toEqual(['SUMMARY_MAX_TOKENS', 'SUMMARY_MIN_TOKENS']);
  });

  it('given an approval shown for one content, when the file changed before it was given, then it is refused', () => {
    writeFileSync(projectFile, 'TOKEN_THRESHOLD=5000\n');
    const s = service();
    const shown = s.pending(project)!.hash;
    writeFileSync(projectFile, 'TOKEN_THRESHOLD=50000\n');
    expect(() => s.allow({ project }, shown)).toThrow(CommandRefused);
    expect(() => s.allow({ project }, shown)).toThrow('changed since its changes were shown');
  });

  it('given an invalid file, when approved, then it is refused naming the line', () => {
    writeFileSync(projectFile, 'TOKEN_THRESHOLD=lots\n');
    const read = service().allow({ project });
    expect(read.ok).toBe(false);
    expect(!read.ok && read.problems[0]).toContain(`${projectFile}:1: TOKEN_THRESHOLD`);
  });

  it('given an approved file that takes a value from the environment, when a daemon with another environment reads it, then the approved value stays', () => {
    writeFileSync(projectFile, 'TOKEN_THRESHOLD="${TOKEN_THRESHOLD:-800}"\n');
    approve(service());
    const elsewhere = service({ TOKEN_THRESHOLD: '99999' });
    expect(elsewhere.forProject(project).config.TOKEN_THRESHOLD).toBe(800);
    expect(elsewhere.pending(project)?.held).toEqual([{ key: 'TOKEN_THRESHOLD', from: 800, to: 99999, direction: 'weaker' }]);
  });

  it("given the user's file never seen before, then it is taken as approved (first seen) and recorded so", () => {
    writeFileSync(userFile, 'TOKEN_THRESHOLD=5000\nON_DAEMON_DOWN=open\n');
    const s = service();
    expect(s.forProject(project).config.TOKEN_THRESHOLD).toBe(5000);
    expect(s.userPending()).toBeUndefined();
    recorded(s);
    expect(projection.approvedConfig.get('')).toMatchObject({ hash: contentHash(readFileSync(userFile)), values: { TOKEN_THRESHOLD: 5000 } });
  });

  it("given the user's file approved, when a program raises its threshold and it is re-read (or read by a new daemon), then the approved value stays until allow --user", () => {
    const s = service();
    s.user();
    recorded(s);
    writeFileSync(userFile, 'TOKEN_THRESHOLD=1000000\n');
    s.reload();
    expect(s.user().config.TOKEN_THRESHOLD).toBe(300);
    expect(s.forProject(project).config.TOKEN_THRESHOLD).toBe(300);
    expect(s.userPending()).toMatchObject({ file: userFile, held: [{ key: 'TOKEN_THRESHOLD', from: 300, to: 1_000_000 }], command: 'recap config allow --user' });
    expect(s.user().sources.TOKEN_THRESHOLD).toBe(
      `${userFile} as approved (sha256 ${projection.approvedConfig.get('')!.hash.slice(0, 12)}) (held: ${userFile} sets 1000000, waiting for recap config allow --user)`,
    );
    recorded(s);
    const restarted = service();
    expect(restarted.user().config.TOKEN_THRESHOLD).toBe(300);
    expect(restarted.drain()).toEqual([]);
    expect(approve(restarted, true).changes).toEqual([{ key: 'TOKEN_THRESHOLD', from: 300, to: 1_000_000, direction: 'weaker' }]);
    expect(restarted.user().config.TOKEN_THRESHOLD).toBe(1_000_000);
    expect(restarted.userPending()).toBeUndefined();
  });

  it("given a project's stricter 400 applied at once, when the file is weakened, then the 400 stays in force (not the user's 450)", () => {
    writeFileSync(userFile, 'TOKEN_THRESHOLD=450\n');
    writeFileSync(projectFile, 'TOKEN_THRESHOLD=400\n');
    const s = service();
    expect(s.forProject(project).config.TOKEN_THRESHOLD).toBe(400);
    recorded(s);
    writeFileSync(projectFile, 'TOKEN_THRESHOLD=100000\n');
    s.reload();
    expect(s.forProject(project).config.TOKEN_THRESHOLD).toBe(400);
    expect(s.pending(project)?.held).toEqual([{ key: 'TOKEN_THRESHOLD', from: 400, to: 100000, direction: 'weaker' }]);
    recorded(s);
    expect(service().forProject(project).config.TOKEN_THRESHOLD).toBe(400);
  });
});

describe('ConfigApproved in the projection', () => {
  const approved = (seq: number, hash: string, threshold: number) => ({
    type: 'ConfigApproved' as const,
    seq,
    version: CURRENT_VERSION.ConfigApproved,
    data: { job: 'p-1', project: '/p', file: '/p/.recap/config.conf', hash, values: { TOKEN_THRESHOLD: threshold }, by: 'allow' as const, time: 0 },
  });

  it('given two approvals of a project, then the newest is in force, and a snapshot keeps it', () => {
    const projection = new Projection();
    projection.apply(approved(1, 'a'.repeat(64), 900));
    projection.apply(approved(2, 'b'.repeat(64), 700));
    expect(projection.approvedConfig.get('/p')).toEqual({ hash: 'b'.repeat(64), values: { TOKEN_THRESHOLD: 700 }, seq: 2 });
    expect(projection.jobs.size).toBe(0);
    expect(decodeSnapshot(encodeSnapshot(projection))?.approvedConfig.get('/p')).toEqual(projection.approvedConfig.get('/p'));
  });

  it("given a version 1 approval (from before the user file had one), when read, then it is the user's allow of that project's file", () => {
    const v1 = {
      type: 'ConfigApproved' as const,
      seq: 3,
      version: 1,
      data: { job: 'p-1', project: '/p', file: '/p/.recap/config.conf', hash: 'a'.repeat(64), values: {}, time: 0 },
    };
    expect(upcast(v1 as StoredEvent)).toMatchObject({ version: 2, data: { project: '/p', by: 'allow' } });
  });
});
