// The README is the page a newcomer reads whole, and docs/ holds the rest by topic: the README
// stays short, and no link in it or in docs/ leads nowhere (a moved file, a renamed heading).
// Anchors follow GitHub's heading slugs, so a link that works here works on GitHub.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const README_MAX_LINES = 300;

/** GitHub's anchor for a heading's text: lowercase, punctuation dropped except '-' and '_', spaces to '-'. */
export function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The text outside code: fenced blocks blanked line by line (so line numbers hold), inline code spans removed. */
function prose(text: string): string[] {
  let fence: string | undefined;
  return text.split('\n').map((line) => {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      return '';
    }
    if (marker !== undefined) {
      fence = marker;
      return '';
    }
    return line.replace(/(`+)[\s\S]*?\1/g, '``');
  });
}

/** Every anchor a page offers: its headings' slugs (a repeated one gets -1, -2, ... as on GitHub) and explicit ids. */
export function anchors(text: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      continue;
    }
    if (marker !== undefined) {
      fence = marker;
      continue;
    }
    const heading = /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)?.[1];
    if (heading !== undefined) {
      const base = slug(heading);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      found.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const id of line.matchAll(/<a\s[^>]*(?:name|id)="([^"]+)"/g)) found.add(id[1] ?? '');
  }
  return found;
}

/** The targets of a page's links and images, inline and by reference, with their line numbers. */
export function links(text: string): { target: string; line: number }[] {
  const out: { target: string; line: number }[] = [];
  prose(text).forEach((line, i) => {
    for (const m of line.matchAll(/\]\(\s*(<[^>]*>|[^\s)]+)(?:\s+"[^"]*")?\s*\)/g)) out.push({ target: (m[1] ?? '').replace(/^<|>$/g, ''), line: i + 1 });
    const ref = /^\s{0,3}\[[^\]]+\]:\s*(\S+)/.exec(line)?.[1];
    if (ref !== undefined) out.push({ target: ref, line: i + 1 });
  });
  return out;
}

/**
 * The links of `file` (a path relative to the repository) that lead nowhere: a relative path
 * that `read` does not find, or an `#anchor` that is not a heading of the .md file it names.
 * `read` gives a file's text, '' for something that exists but is not markdown (a folder, an
 * image), undefined for nothing: pure, so a planted broken link can be tested without a disk.
 */
export function brokenLinks(file: string, text: string, read: (path: string) => string | undefined): string[] {
  const broken: string[] = [];
  for (const { target, line } of links(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, ...
    const hash = target.indexOf('#');
    const pathPart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
    const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
    const path = pathPart === '' ? file : join(dirname(file), pathPart);
    const where = `${file}:${line}: ${target}`;
    const content = pathPart === '' ? text : read(path);
    if (content === undefined) {
      broken.push(`${where} (no file ${path})`);
      continue;
    }
    if (anchor !== undefined && anchor !== '' && path.endsWith('.md') && !anchors(content).has(anchor)) broken.push(`${where} (no heading #${anchor} in ${path})`);
  }
  return broken;
}

function fromDisk(path: string): string | undefined {
  const full = join(ROOT, path);
  if (!existsSync(full)) return undefined;
  return statSync(full).isFile() && full.endsWith('.md') ? readFileSync(full, 'utf8') : '';
}

function markdownUnder(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return markdownUnder(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

describe('the README and docs/', () => {
  it(`the README is at most ${README_MAX_LINES} lines, a page a newcomer reads whole`, () => {
    const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').trimEnd().split('\n').length;
    expect(lines).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it('the README links every page of docs/', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const linked = new Set(links(readme).map(({ target }) => target.split('#')[0]));
    const pages = readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md'));
    expect(pages.length).toBeGreaterThan(0);
    expect(pages.filter((name) => !linked.has(`docs/${name}`))).toEqual([]);
  });

  const files = ['README.md', ...markdownUnder('docs')];
  it.each(files.map((file) => [relative(ROOT, join(ROOT, file))]))('every link in %s leads to a file, and to a heading of it', (file) => {
    const text = readFileSync(join(ROOT, file), 'utf8');
    expect(links(text).length, `${file} has no links at all`).toBeGreaterThan(0);
    expect(brokenLinks(file, text, fromDisk)).toEqual([]);
  });
});

describe('the link checker', () => {
  const pages: Record<string, string> = {
    'README.md': '# recap\n\nSee [the CLI](docs/cli.md#recap-status) and [security](docs/security.md).\n',
    'docs/cli.md': '# The command line\n\n## recap status\n\n## `recap install <agent> --sandbox`\n\n## Notes\n\n## Notes\n',
  };
  const read = (path: string) => pages[path];

  it('slugs headings as GitHub does', () => {
    expect(slug('recap status')).toBe('recap-status');
    expect(slug('`recap install <agent> --sandbox`')).toBe('recap-install-agent---sandbox');
    expect(slug("The gate's security model")).toBe('the-gates-security-model');
    expect(slug('Recap off for one shell: `RECAP_DISABLE`')).toBe('recap-off-for-one-shell-recap_disable');
    expect([...anchors(pages['docs/cli.md'] ?? '')]).toEqual(['the-command-line', 'recap-status', 'recap-install-agent---sandbox', 'notes', 'notes-1']);
  });

  it('finds a link to a file that is not there', () => {
    expect(brokenLinks('README.md', pages['README.md'] ?? '', read)).toEqual(['README.md:3: docs/security.md (no file docs/security.md)']);
  });

  it('finds an anchor that is no heading, relative to the linking file, and in the same page', () => {
    const text = 'Go to [stop](cli.md#recap-stop), [status](cli.md#recap-status), [here](#nowhere) and [notes](#notes-1).\n\n## Notes\n\n## Notes\n';
    expect(brokenLinks('docs/memory.md', text, read)).toEqual([
      'docs/memory.md:1: cli.md#recap-stop (no heading #recap-stop in docs/cli.md)',
      'docs/memory.md:1: #nowhere (no heading #nowhere in docs/memory.md)',
    ]);
  });

  it('ignores links inside code and leaves web addresses alone', () => {
    const text = '```md\n[gone](missing.md)\n```\n\n`[gone](missing.md)` and [web](https://example.com/x.md#y)\n';
    expect(brokenLinks('README.md', text, read)).toEqual([]);
  });
});
