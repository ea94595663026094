// The baseline every attack family ends on: on a freshly tripped gate, the deny message's
// exact command with a real summary is accepted through the real hook and a real shell.
import { afterEach, describe, it } from 'vitest';
import { trackedSandboxes } from '../helpers/daemon.js';
import { expectWayOutOpen, proveWayOut, trippedGate } from '../helpers/gateAttack.js';

const { newBox, start } = trackedSandboxes(afterEach);

describe('the way out of a tripped gate', () => {
  it("the deny message's exact command, with a real summary, opens the gate", async () => {
    const attack = await trippedGate(newBox(), start);
    await proveWayOut(attack);
  });
});

describe('the way out, checked without taking it', () => {
  it('the hook lets the exact command through and the gate stays tripped', async () => {
    const attack = await trippedGate(newBox(), start);
    await expectWayOutOpen(attack);
    await expectWayOutOpen(attack);
    await proveWayOut(attack);
  });
});
