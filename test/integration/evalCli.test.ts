// recap eval as a user runs it: the known corpus's figures on the terminal and in JSON, exit
// code 2 when a case is misjudged, 0 on the project's own corpus, a folder that is no corpus
// refused with what it needs, and an install without recap's own corpus said as that. It
// needs no daemon: the sandbox has none running.
import { copyFileSync, cpSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT, runAsUser, runCli, trackedSandboxes } from '../helpers/daemon.js';
import { CORPUS, SMALL_CORPUS } from '../helpers/summaryCorpus.js';

const { newBox } = trackedSandboxes(afterEach);

describe('recap eval', () => {
  it("prints the known corpus's precision and recall, its misjudged cases, and exits 2", async () => {
    const { code, stdout } = await runCli(newBox(), ['eval', '--corpus', SMALL_CORPUS]);
    expect(code).toBe(2);
    expect(stdout).toContain('8 cases (4 genuine, 4 junk)');
    expect(stdout).toMatch(/^all +4 +4 +0\.750 +0\.750 +\d+ +\d+$/m);
    expect(stdout).toMatch(/^domain code +2 +3 +1\.000 +0\.667 /m);
    expect(stdout).toContain('Genuine rejected (1):\n  genuine/research-wrong-window.md: the summary names 0 of');
    expect(stdout).toContain('Junk accepted (1):\n  junk/code-passes.md');
  });

  it('gives the same figures and every verdict with --json', async () => {
    const { stdout } = await runCli(newBox(), ['eval', '--json', '--corpus', SMALL_CORPUS]);
    const result = JSON.parse(stdout) as { all: { precision: number; recall: number }; verdicts: { name: string; accepted: boolean; memoryTokens?: number }[] };
    expect(result.all).toMatchObject({ precision: 0.75, recall: 0.75 });
    expect(result.verdicts).toHaveLength(8);
    expect(result.verdicts.find((v) => v.name === 'genuine/legal-saas-contract.md')).toMatchObject({ accepted: true, memoryTokens: expect.any(Number) });
  });

  it("judges the project's corpus as labelled by default, and exits 0", async () => {
    const { code, stdout } = await runCli(newBox(), ['eval']);
    expect(stdout).toContain(`from ${CORPUS}`);
    expect(stdout).toMatch(/^all +\d+ +\d+ +1\.000 +1\.000 /m);
    expect(stdout).toContain('Every case judged as labelled.');
    expect(code).toBe(0);
  });

  it("says where recap's own corpus comes from when an install has none (a packed one ships no tests)", async () => {
    const box = newBox();
    const copy = join(box.dir, 'recap');
    for (const folder of ['bin', 'dist']) cpSync(join(ROOT, folder), join(copy, folder), { recursive: true, preserveTimestamps: true });
    copyFileSync(join(ROOT, 'package.json'), join(copy, 'package.json'));
    symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
    const { code, stderr } = await runAsUser(box, [process.execPath, join(copy, 'bin', 'recap.js'), 'eval']);
    expect(code).toBe(1);
    expect(stderr.trim()).toBe("recap: recap's own corpus is not installed here (it comes with a clone of recap, in test/fixtures/summaries): pass --corpus DIR");
  });

  it('refuses a folder that is no corpus, saying what it needs', async () => {
    const box = newBox();
    const folder = join(box.dir, 'empty');
    mkdirSync(folder);
    const { code, stderr } = await runCli(box, ['eval', '--corpus', folder]);
    expect(code).toBe(1);
    expect(stderr.trim()).toBe(`recap: ${folder} is no corpus: it needs a genuine/ and a junk/ folder of cases (docs/cli.md#recap-eval describes them)`);
  });
});
