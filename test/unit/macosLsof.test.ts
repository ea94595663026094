// macOS's sockets and locks as lsof(8) prints them with -F (recorded in test/fixtures/macos,
// written from its man page and its Darwin source).
import { describe, expect, it } from 'vitest';
import { lockHolderOf, parseLsofFields, socketPeers } from '../../src/platform/macos/lsofOutput.js';
import { recorded } from '../helpers/fixture.js';

const UNIX = parseLsofFields(recorded('macos/lsof-unix.txt'));

describe('field output (lsof -F pfdn)', () => {
  it('reads each file with its process, descriptor, device and name', () => {
    expect(UNIX.find((f) => f.pid === 702)).toEqual({ pid: 702, fd: '21', device: '0x8e2c1c0a5b6f7e03', name: '->0x8e2c1c0a5b6f7e02' });
    expect(UNIX).toHaveLength(6);
  });
});

describe("a connection's peer", () => {
  it('is every process holding a socket that names ours as the one it is connected to', () => {
    expect(socketPeers(UNIX, 500, 23)).toEqual([702, 703]);
  });

  it("is found from our side too, where ours names its peer's control block", () => {
    expect(socketPeers(UNIX, 613, 3)).toEqual([613]);
  });

  it('cannot be told for a descriptor lsof does not list, and is nobody for a socket nobody is connected to', () => {
    expect(socketPeers(UNIX, 500, 99)).toBeUndefined();
    expect(socketPeers(UNIX, 500, 20)).toEqual([]);
  });
});

describe("a lock's holder (lsof -F pf -- FILE)", () => {
  it('is the one process with the file open; nobody when none has it; not known when several do', () => {
    expect(lockHolderOf(parseLsofFields(recorded('macos/lsof-lock.txt')))).toBe(500);
    expect(lockHolderOf([])).toBeNull();
    expect(lockHolderOf(parseLsofFields('p500\nf12\np501\nf3\n'))).toBeUndefined();
  });
});
