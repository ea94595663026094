// `recap log` says in a few words what each event was: every event type has its line (the
// samples are typed over every type, so a new one needs its own), and a user's command shows
// the process that ran it.
import { describe, expect, it } from 'vitest';
import { eventGist } from '../../src/client/present/gist.js';
import { EVENT_TYPES, type EventType, type RecapEvent } from '../../src/events/events.js';

const by = { pid: 4242, program: 'recap', ancestry: 'recap 4242 ← bash 17 ← sshd 3' };
const SAMPLES: { [T in EventType]: Extract<RecapEvent, { type: T }>['data'] } = {
  InteractionRecorded: { job: 'j', kind: 'prompt', text: 'fix the flaky test', tokens: 5, counted: true, time: 1 },
  UsageRecorded: { job: 'j', session: 's', agent: 'claude', key: 'k', model: 'opus', input: 10, output: 20, cacheCreation: 0, cacheRead: 30, time: 1 },
  GateTripped: { job: 'j', reason: 'threshold', unsummarizedTokens: 900, limit: 800, time: 1 },
  ToolDenied: { job: 'j', tool: 'Read', cause: 'gate', time: 1 },
  SummaryRejected: { job: 'j', problems: ['too short'], tokens: 9, time: 1 },
  SummaryAccepted: { job: 'j', level: 0, sections: [], text: 't', tokens: 300, coversThrough: 12, prevHash: '0', hash: 'abcdef0123456789', time: 1 },
  ConfigApplied: { values: { TOKEN_THRESHOLD: 800, SUMMARY_MIN_TOKENS: 200, SUMMARY_MAX_TOKENS: 600 }, sources: {}, time: 1 },
  SessionBound: { session: 's', job: 'j', project: '/p', cwd: '/p/src', time: 1 },
  ConfigApproved: { file: '/p/.recap/config.conf', hash: 'abcdef0123456789', values: {}, by: 'allow', caller: by, time: 1 },
  ConfigHeld: { file: '/p/.recap/config.conf', hash: 'abcdef0123456789', held: [{ key: 'TOKEN_THRESHOLD', from: 800, to: 9000 }], time: 1 },
  TripCancelled: { job: 'j', reason: 'threshold', by, time: 1 },
  GatePaused: { job: 'j', until: Date.parse('2026-11-27T12:00:00Z'), by, time: 1 },
  GateResumed: { job: 'j', by, time: 1 },
  NoticeShown: { job: 'j', about: 7, kind: 'tripped', text: 'recap: the gate tripped', time: 1 },
  RecapDisabled: { job: 'j', agent: 'claude', session: 's', time: 1 },
  SummaryAmended: { job: 'j', entry: 12, text: 't', sections: [], tokens: 300, gist: 'the parser, fixed', gistBy: 'agent', by, entryHash: 'a', hash: 'b', time: 1 },
  EntryRedacted: { job: 'j', seq: 12, what: 'summary', hash: 'a', reason: 'a key', by, time: 1 },
  SessionEnded: {
    job: 'j',
    session: 's',
    from: 'claude',
    reason: 'other',
    started: 0,
    input: 3,
    output: 5,
    cacheCreation: 0,
    cacheRead: 0,
    byModel: [],
    byAgent: [],
    toolCalls: 2,
    denials: 1,
    interactions: 1,
    countedTokens: 4,
    time: 1,
  },
  JobIdentified: { job: 'j', project: '/p', repo: { key: 'k', root: 'c'.repeat(40), sub: '', name: 'p' }, time: 1 },
  SummaryImported: {
    job: 'j',
    origin: { machine: 'm', host: 'laptop', author: 'alice@example.com' },
    index: 0,
    originSeq: 7,
    entry: { job: 'k', level: 0, sections: [], text: 'their summary', tokens: 3, coversThrough: 2, prevHash: '0'.repeat(64), hash: 'a'.repeat(64), time: 1 },
    time: 1,
  },
  FirstCallsRecorded: { job: 'j', session: 's', agent: 'claude', calls: [{ kind: 'read', paths: ['/p/src/a.ts'] }], time: 1 },
};

describe('the gist of each event in recap log', () => {
  it.each(EVENT_TYPES)('%s has a line of its own', (type) => {
    expect(eventGist(type, SAMPLES[type])).not.toBe('');
  });

  it.each(['TripCancelled', 'GatePaused', 'GateResumed', 'ConfigApproved', 'SummaryAmended', 'EntryRedacted'] as const)('%s names the process that ran the command', (type) => {
    expect(eventGist(type, SAMPLES[type])).toContain('by process 4242 (recap 4242 ← bash 17 ← sshd 3)');
  });

  it('an event type it does not know, or an older event without a field, reads as nothing rather than failing', () => {
    expect(eventGist('SomethingNew', { job: 'j' })).toBe('');
    expect(eventGist('ConfigHeld', { file: 'f' })).toBe('');
  });
});
