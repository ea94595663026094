// One attack suite for every agent, through the real daemon and the real `recap-hook <agent>`:
// recap's own files (recapTargets.ts) and the runs all agents share are written here once,
// on an open gate, where only the protection rules stand and ordinary work must go on after
// each attack, and on a tripped one, where every attack is denied and the way out stays open.
// Each agent's file names only its own tools, spellings, files and cases.
import { relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HookRun } from './gateAttack.js';
import {
  agentTool,
  agentUser,
  allowedAs,
  deniedAs,
  endAgentAttack,
  expectEveryDenied as expectEach,
  fakeAttack,
  gateDenied,
  hook,
  PROFILES,
  proveAgentWayOut,
  protectionDenied,
  stillWorking,
  trippedAgent,
  wayOutOpen,
  type AgentAttack,
  type AgentName,
  type Case,
} from './agentAttack.js';
import { recapTargets, type Target } from './recapTargets.js';

/** A way of spelling a path in a tool's input: its name, and the spelling of `target`. */
export type Spelling = [how: string, spell: (a: AgentAttack, target: string) => string];

export const ABSOLUTE: Spelling = ['absolute', (_a, target) => target];
export const RELATIVE: Spelling = ['relative', (a, target) => relative(a.box.project, target)];
export const THROUGH_PROC_CWD: Spelling = ['through /proc/self/cwd', (a, target) => `/proc/self/cwd/${relative(a.box.project, target)}`];
export const FROM_HOME: Spelling = ['from home', (a, target) => `~/${relative(a.box.dir, target)}`];

/** The spellings most agents' file tools are attacked in. */
export const FILE_SPELLINGS: Spelling[] = [ABSOLUTE, RELATIVE, THROUGH_PROC_CWD, FROM_HOME];

/** A tool of the agent's that changes the file at `p`: its name in the test, and its call. */
export type WriteTool = [what: string, make: (p: string) => [tool: string, input: unknown]];

/** The writes aimed at `target`: every form (`all`, on the open gate), or a few of them. */
export type WriteCases = (a: AgentAttack, target: string, all: boolean) => Case[];

/** Every tool in every spelling (all), else every tool in the `tripped` spelling alone. */
export function writesBySpelling(tools: WriteTool[], spellings: Spelling[], tripped: Spelling): WriteCases {
  return (a, target, all) =>
    (all ? spellings : [tripped]).flatMap(([how, spell]) =>
      tools.map(([what, make]): Case => {
        const [tool, input] = make(spell(a, target));
        return [`${what}, ${how}`, agentTool(a, tool, input)];
      }),
    );
}

/** Attacks of one kind: each a test of its own on the open gate, all in one on the tripped gate. */
export type CaseGroup = {
  /** The open gate's title for one case, `%s` its name. */
  each: string;
  /** The tripped gate's title for them all. */
  together: string;
  cases: (a: AgentAttack) => Case[];
  /** Whether the open gate refuses each by the protection rules as such, not only in the agent's format. */
  protection: boolean;
};

/** Attacks the protection rules refuse as such: reads of recap's state, tools naming its files. */
export const protectionGroup = (together: string, cases: CaseGroup['cases'], each = '%s'): CaseGroup => ({ each, together, cases, protection: true });

/** Shell commands, which the shell's own rules may deny before the protection rules: `<tool>: <name>` each. */
export const shellGroup = (tool: string, together: string, cases: CaseGroup['cases']): CaseGroup => ({ each: `${tool}: %s`, together, cases, protection: false });

/** A case of the agent's own, run with the attack of its describe block. */
export type OwnCase = [title: string, run: (a: AgentAttack) => Promise<void>];

export type AgentSuite = {
  /** The agent as the describe blocks name it. */
  title: string;
  /** What wires recap into the agent or loads code into it: changed by none of its tools, like recap's own files. */
  targets: (a: AgentAttack) => Target[];
  writes: WriteCases;
  /** Reads, searches, shell commands, MCP tools...: the agent's attacks other than writes. */
  groups: CaseGroup[];
  /** What the open gate lets through (reading the wiring, ordinary work), and anything more each answer must show. */
  allowed: { title: string; payloads: (a: AgentAttack) => Record<string, unknown>[]; check?: (run: HookRun) => void };
  /** Tools no protection rule stops, denied on the tripped gate by the gate itself, naming the agent's shell tool. */
  gateTools: { title: string; shellTool: string; tools: [tool: string, input: unknown][] };
  /** The agent's own cases, after the shared ones: on the open gate, and on the tripped gate before the way out is taken. */
  open?: OwnCase[];
  tripped?: OwnCase[];
};

/** Every case denied, as `check` says; an agent's suite with no cases of a kind is a mistake, not a pass. */
async function expectEveryDenied(a: AgentAttack, cases: Case[], check?: Parameters<typeof expectEach>[2]): Promise<void> {
  expect(cases.length, 'attacks to run').toBeGreaterThan(0);
  await expectEach(a, cases, check);
}

/** The names of `items`, with their place, for it.each before the sandbox exists. */
const named = (items: [string, unknown][]): (readonly [string, number])[] => items.map(([name], i) => [name, i] as const);

/** The two describe blocks of `agent`'s attack suite: an open gate and a tripped one. */
export function describeAgentAttacks(agent: AgentName, suite: AgentSuite): void {
  const fake = fakeAttack(agent);
  const targets = (a: AgentAttack): Target[] => [...recapTargets(a), ...suite.targets(a)];

  describe(`${suite.title} on an open gate: the protection rules hold in its shapes`, () => {
    let a: AgentAttack;
    beforeAll(async () => {
      a = await agentUser(agent);
    });
    afterAll(() => endAgentAttack(a));

    it.each(named(targets(fake)))('every write tool and spelling on %s', async (name, index) => {
      const [shown, path] = targets(a)[index]!;
      expect(shown).toBe(name);
      await expectEveryDenied(a, suite.writes(a, path, true), protectionDenied);
      await stillWorking(a);
    });

    for (const group of suite.groups) {
      it.each(named(group.cases(fake)))(group.each, async (name, index) => {
        const [shown, payload] = group.cases(a)[index]!;
        expect(shown).toBe(name);
        const run = await hook(a, payload);
        if (group.protection) protectionDenied(a, run);
        else deniedAs(agent, run);
        await stillWorking(a);
      });
    }

    it(suite.allowed.title, async () => {
      const payloads = suite.allowed.payloads(a);
      expect(payloads.length).toBeGreaterThan(0);
      for (const payload of payloads) {
        const run = await hook(a, payload);
        allowedAs(run);
        suite.allowed.check?.(run);
      }
    });

    for (const [title, run] of suite.open ?? []) it(title, () => run(a));
  });

  describe(`${suite.title} on a tripped gate: every attack is denied in its format, and the way out stays open`, () => {
    let a: AgentAttack;
    beforeAll(async () => {
      a = await trippedAgent(agent);
    });
    afterAll(() => endAgentAttack(a));

    it.each(named(targets(fake)))('writes on %s', async (name, index) => {
      const [shown, path] = targets(a)[index]!;
      expect(shown).toBe(name);
      await expectEveryDenied(a, suite.writes(a, path, false));
      await wayOutOpen(a);
    });

    for (const group of suite.groups) {
      it(group.together, async () => {
        await expectEveryDenied(a, group.cases(a));
        await wayOutOpen(a);
      });
    }

    it(suite.gateTools.title, async () => {
      expect(suite.gateTools.tools.length).toBeGreaterThan(0);
      for (const [tool, input] of suite.gateTools.tools) {
        const reason = gateDenied(a, await hook(a, agentTool(a, tool, input)));
        expect(reason, tool).toContain(`job ${a.job} needs a summary`);
        expect(reason, tool).toContain(suite.gateTools.shellTool);
      }
      await wayOutOpen(a);
    });

    for (const [title, run] of suite.tripped ?? []) it(title, () => run(a));

    const where = PROFILES[agent].wayOutInHook ? 'run by the hook' : 'run in a real shell with the session';
    it(`after the whole family, the deny message's exact command, ${where}, opens the gate`, async () => {
      await proveAgentWayOut(a);
    });
  });
}
