// The Node versions recap supports are said once in package.json's engines field: the
// versions every locked dependency recap installs accepts. The README says the same, CI
// checks its Node against it, and the Node the tests run on is one it allows.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { satisfies, subset, validRange } from 'semver';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const engines = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
type Locked = { dev?: boolean; engines?: { node?: string } | string[] };
const locked = (JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, Locked> }).packages;

/** The Node range of each package a user's install gets (not the test-only ones). */
const installed = Object.entries(locked).flatMap(([path, pkg]) => {
  const node = !pkg.dev && path !== '' && !Array.isArray(pkg.engines) ? pkg.engines?.node : undefined;
  return node !== undefined ? [[path.replace(/^.*node_modules\//, ''), node] as const] : [];
});

describe('the supported Node versions', () => {
  it('are a valid range that every locked dependency recap installs accepts', () => {
    expect(validRange(engines), engines).not.toBeNull();
    expect(installed.length).toBeGreaterThan(0);
    const refusing = installed.filter(([, range]) => !subset(engines, range)).map(([name, range]) => `${name} (${range})`);
    expect(refusing, `${engines} admits Node versions these refuse`).toEqual([]);
  });

  it("are the README's, and CI checks its Node against the same field", () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain(`\`${engines}\``);
    expect(readFileSync(join(ROOT, '.ci', 'run'), 'utf8')).toContain('require("semver").satisfies(process.version, range)');
  });

  it('include the Node these tests run on', () => {
    expect(satisfies(process.version, engines), `Node ${process.version} is not ${engines}`).toBe(true);
  });
});
