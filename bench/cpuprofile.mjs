#!/usr/bin/env node
// Summarizes a V8 .cpuprofile (from `node --cpu-prof`, e.g. `node bench/service.mjs
// --cpu-prof=DIR`): self time by function, the largest first, with its share of the samples.
//   node bench/cpuprofile.mjs FILE.cpuprofile [--top=N]
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--'));
if (!file) {
  console.error('usage: node bench/cpuprofile.mjs FILE.cpuprofile [--top=N]');
  process.exit(2);
}
const top = Number(args.find((a) => a.startsWith('--top='))?.slice(6) ?? 30);
const profile = JSON.parse(readFileSync(file, 'utf8'));

// Each sample names the node that was running; a node's time is its samples' intervals.
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map();
for (let i = 0; i < profile.samples.length; i += 1) {
  const delta = profile.timeDeltas[i + 1] ?? 0;
  selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + delta);
}
const byFunction = new Map();
let total = 0;
for (const [id, us] of selfUs) {
  const { functionName, url, lineNumber } = byId.get(id).callFrame;
  const where = url ? `${relative(process.cwd(), url.replace(/^file:\/\//, ''))}:${lineNumber + 1}` : '';
  const key = `${functionName || '(anonymous)'} ${where}`.trim();
  byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  total += us;
}
const idle = byFunction.get('(idle)') ?? 0;
console.log(`${(total / 1000).toFixed(0)} ms sampled, ${(idle / 1000).toFixed(0)} ms idle; self time by function:`);
for (const [key, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  console.log(`${(us / 1000).toFixed(1).padStart(9)} ms ${((us / total) * 100).toFixed(1).padStart(5)}%  ${key}`);
}
