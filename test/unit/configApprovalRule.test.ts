// The rule for every config file recap reads (the user's and each project's): given what the
// log says of its approved content, when the daemon reads the file (or the user approves
// it), then what applies, what waits, and the facts recorded.
import { describe, expect, it } from 'vitest';
import { CommandRefused } from '../../src/events/commands.js';
import { DEFAULT_CONFIG } from '../../src/events/config.js';
import { allowConfigFile, evolveFileRecord, NO_FILE_HASH, settleConfigFile, type FileContent, type FileRecord, type InForce } from '../../src/events/configApproval.js';
import type { ConfigApproved, ConfigHeld } from '../../src/events/events.js';

const T = Date.UTC(2026, 0, 5, 9, 0, 0);
const USER_FILE = '/home/dev/.config/recap/config.conf';
const PROJECT = '/home/dev/app';
const PROJECT_FILE = `${PROJECT}/.recap/config.conf`;
/** The user's configuration in force beneath a project's file. */
const USER_450 = { ...DEFAULT_CONFIG, TOKEN_THRESHOLD: 450 };

type Fact = ConfigApproved | ConfigHeld;
type Scope = { file: string; project?: string; beneath: Record<string, unknown> };
const user: Scope = { file: USER_FILE, beneath: {} };
const project: Scope = { file: PROJECT_FILE, project: PROJECT, beneath: USER_450 };

/** A file's content: its hash stands for its bytes. */
const content = (hash: string, values: Record<string, unknown>): FileContent => ({ hash: hash.repeat(64).slice(0, 64), values });

function approvedEvent(scope: Scope, c: FileContent, by: ConfigApproved['data']['by']): ConfigApproved {
  return { type: 'ConfigApproved', data: { ...(scope.project ? { project: scope.project } : {}), file: scope.file, hash: c.hash, values: c.values, by, time: T } };
}

function heldEvent(scope: Scope, c: FileContent, held: { key: string; from: unknown; to: unknown }[]): ConfigHeld {
  return { type: 'ConfigHeld', data: { ...(scope.project ? { project: scope.project } : {}), file: scope.file, hash: c.hash, held, time: T } };
}

/** given the facts on record for the file, when it is read, then what applies and what is recorded. */
function given(scope: Scope, facts: Fact[]) {
  const { approved, heldHash } = facts.reduce<FileRecord>(evolveFileRecord, {});
  const ref = { file: scope.file, ...(scope.project ? { project: scope.project } : {}) };
  return {
    whenRead: (read: FileContent) => ({
      then(expected: Fact[]): InForce {
        const [inForce, events] = settleConfigFile({ type: 'SettleConfigFile', ...ref, read, approved, heldHash, beneath: scope.beneath, now: T });
        expect(events).toEqual(expected);
        return inForce;
      },
    }),
    whenAllowed: (read: FileContent, expectedHash?: string) => {
      const run = () => allowConfigFile({ type: 'AllowConfigFile', ...ref, read, approved, ...(expectedHash ? { expectedHash } : {}), now: T });
      return {
        then(expected: ConfigApproved[]): { already: boolean } {
          const [answer, events] = run();
          expect(events).toEqual(expected);
          return answer;
        },
        thenRefused(message: string): void {
          expect(run).toThrow(CommandRefused);
          expect(run).toThrow(message);
        },
      };
    },
  };
}

describe('a project file read by the daemon', () => {
  const strict400 = content('a', { TOKEN_THRESHOLD: 400 });
  const loose5000 = content('b', { TOKEN_THRESHOLD: 5000 });

  it('given nothing on record, when a file only makes the gate stricter, then it applies whole and counts as approved', () => {
    const inForce = given(project, [])
      .whenRead(strict400)
      .then([approvedEvent(project, strict400, 'stricter')]);
    expect(inForce).toEqual({ values: { TOKEN_THRESHOLD: 400 }, held: [], neverApproved: false });
  });

  it("given a stricter 400 that applied at once, when the file raises it, then the 400 stays (not the user's 450) and the change waits", () => {
    const inForce = given(project, [approvedEvent(project, strict400, 'stricter')])
      .whenRead(loose5000)
      .then([heldEvent(project, loose5000, [{ key: 'TOKEN_THRESHOLD', from: 400, to: 5000 }])]);
    expect(inForce.values).toEqual({ TOKEN_THRESHOLD: 400 });
    expect(inForce.held).toEqual([{ key: 'TOKEN_THRESHOLD', from: 400, to: 5000, direction: 'weaker' }]);
  });

  it('given the weakening held once, when the same content is read again (reload, restart), then nothing new is recorded', () => {
    const facts = [approvedEvent(project, strict400, 'stricter'), heldEvent(project, loose5000, [{ key: 'TOKEN_THRESHOLD', from: 400, to: 5000 }])];
    expect(given(project, facts).whenRead(loose5000).then([]).values).toEqual({ TOKEN_THRESHOLD: 400 });
  });

  it('given an approved content, when the same content is read, then it applies whole and nothing is recorded (no-op)', () => {
    const inForce = given(project, [approvedEvent(project, loose5000, 'allow')])
      .whenRead(loose5000)
      .then([]);
    expect(inForce).toEqual({ values: { TOKEN_THRESHOLD: 5000 }, held: [], neverApproved: false });
  });

  it('given nothing on record and no file, when read, then nothing applies and nothing is recorded', () => {
    expect(given(project, []).whenRead({ hash: NO_FILE_HASH, values: {} }).then([])).toEqual({ values: {}, held: [], neverApproved: true });
  });

  it('given an approved stricter file, when the file is removed, then its values stay and the removal waits', () => {
    const none = { hash: NO_FILE_HASH, values: {} };
    const inForce = given(project, [approvedEvent(project, strict400, 'allow')])
      .whenRead(none)
      .then([heldEvent(project, none, [{ key: 'TOKEN_THRESHOLD', from: 400, to: 450 }])]);
    expect(inForce.values).toEqual({ TOKEN_THRESHOLD: 400 });
  });

  it('given a mixed change, when read, then the stricter key applies and is recorded as approved, and the weaker key waits', () => {
    const mixed = content('c', { TOKEN_THRESHOLD: 9000, MIN_TOKENS_PER_SECTION: 70 });
    const partial = { hash: mixed.hash, values: { TOKEN_THRESHOLD: 400, MIN_TOKENS_PER_SECTION: 70 } };
    const inForce = given(project, [approvedEvent(project, strict400, 'stricter')])
      .whenRead(mixed)
      .then([approvedEvent(project, partial, 'stricter'), heldEvent(project, mixed, [{ key: 'TOKEN_THRESHOLD', from: 400, to: 9000 }])]);
    expect(inForce.values).toEqual({ TOKEN_THRESHOLD: 400, MIN_TOKENS_PER_SECTION: 70 });
    // Read again: the partial approval and the held change are on record; nothing new.
    given(project, [approvedEvent(project, partial, 'stricter'), heldEvent(project, mixed, [{ key: 'TOKEN_THRESHOLD', from: 400, to: 9000 }])])
      .whenRead(mixed)
      .then([]);
  });

  it('given a file approved weaker, when an edit drops that key (back to the stricter user value), then the drop applies at once', () => {
    const dropped = content('d', { MIN_TOKENS_PER_SECTION: 70 });
    const inForce = given(project, [approvedEvent(project, loose5000, 'allow')])
      .whenRead(dropped)
      .then([approvedEvent(project, dropped, 'stricter')]);
    expect(inForce.values).toEqual({ MIN_TOKENS_PER_SECTION: 70 });
  });
});

describe("the user's file read by the daemon", () => {
  const mine = content('e', { TOKEN_THRESHOLD: 450 });
  const raised = content('f', { TOKEN_THRESHOLD: 1_000_000 });

  it('given nothing on record (a fresh install), when it is read, then it is taken as approved, recorded as first seen', () => {
    const inForce = given(user, [])
      .whenRead(raised)
      .then([approvedEvent(user, raised, 'firstSeen')]);
    expect(inForce).toEqual({ values: { TOKEN_THRESHOLD: 1_000_000 }, held: [], neverApproved: false });
  });

  it('given its content approved, when a program raises the threshold to 1,000,000, then 450 stays and the change waits', () => {
    const inForce = given(user, [approvedEvent(user, mine, 'firstSeen')])
      .whenRead(raised)
      .then([heldEvent(user, raised, [{ key: 'TOKEN_THRESHOLD', from: 450, to: 1_000_000 }])]);
    expect(inForce.values).toEqual({ TOKEN_THRESHOLD: 450 });
  });

  it('given its content approved, when the user lowers the threshold, then it applies at once and counts as approved', () => {
    const lowered = content('g', { TOKEN_THRESHOLD: 300 });
    expect(
      given(user, [approvedEvent(user, mine, 'firstSeen')])
        .whenRead(lowered)
        .then([approvedEvent(user, lowered, 'stricter')]).values,
    ).toEqual({ TOKEN_THRESHOLD: 300 });
  });

  it('given a key the approved content did not set, when the file sets it weaker than the default, then it waits against the default', () => {
    const off = content('h', { TOKEN_THRESHOLD: 450, MIN_TOKENS_PER_SECTION: 0 });
    const inForce = given(user, [approvedEvent(user, mine, 'firstSeen')])
      .whenRead(off)
      .then([heldEvent(user, off, [{ key: 'MIN_TOKENS_PER_SECTION', from: 50, to: 0 }])]);
    expect(inForce.values).toEqual({ TOKEN_THRESHOLD: 450 });
  });
});

describe('the user approves a file (recap config allow, --user for theirs)', () => {
  const raised = content('f', { TOKEN_THRESHOLD: 1_000_000 });
  const mine = content('e', { TOKEN_THRESHOLD: 450 });

  it('given a held change, when the user approves it, then it is recorded as approved by the user', () => {
    const answer = given(user, [approvedEvent(user, mine, 'firstSeen'), heldEvent(user, raised, [])])
      .whenAllowed(raised)
      .then([approvedEvent(user, raised, 'allow')]);
    expect(answer).toEqual({ already: false });
  });

  it('given the content approved already, when approved again, then nothing is recorded (no-op)', () => {
    expect(
      given(project, [approvedEvent(project, raised, 'stricter')])
        .whenAllowed(raised)
        .then([]),
    ).toEqual({ already: true });
    expect(given(project, []).whenAllowed({ hash: NO_FILE_HASH, values: {} }).then([])).toEqual({ already: true });
  });

  it('given the change shown with one hash, when the file changed before the approval, then it is refused', () => {
    given(user, [approvedEvent(user, mine, 'firstSeen')])
      .whenAllowed(raised, mine.hash)
      .thenRefused('changed since its changes were shown to you');
  });
});

it('is deterministic: the same reading twice gives the same answer and facts', () => {
  const read = content('c', { TOKEN_THRESHOLD: 9000, MIN_TOKENS_PER_SECTION: 70 });
  const once = () =>
    settleConfigFile({ type: 'SettleConfigFile', file: PROJECT_FILE, project: PROJECT, read, approved: undefined, heldHash: undefined, beneath: USER_450, now: T });
  expect(once()).toEqual(once());
});
