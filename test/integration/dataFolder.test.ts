// recap's data folder cannot be used: a file stands where it should be (a folder the user
// may not write: test/unit/dataFolder.test.ts). Given it, when a command starts the daemon or the user starts it, then
// each says in recap's words what stands in the way and what to do, with a code of its own in
// --json, and no stack trace; nothing starts.
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { removeSandbox, runCli, sandbox, type Sandbox } from '../helpers/daemon.js';

describe("given recap's data folder cannot be used", () => {
  const boxes: Sandbox[] = [];
  afterEach(() => {
    for (const box of boxes.splice(0)) removeSandbox(box);
  });
  const fresh = () => {
    const box = sandbox();
    boxes.push(box);
    return box;
  };

  it('when a file stands where it should be, then status and daemon say so and what to do', async () => {
    const box = fresh();
    writeFileSync(box.data, 'not a folder');
    for (const args of [['status'], ['daemon']]) {
      const run = await runCli(box, args);
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.stderr).toBe(
        `recap: recap's data folder ${box.data} is a file, or lies under one, not a folder: move that file away, or set RECAP_DATA_DIR to a folder of yours\n`,
      );
    }
    const json = await runCli(box, ['status', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { code: 'data_folder_unusable' } });
  });
});
