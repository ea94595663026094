// What a check's shortcuts rely on (issue 30: fewer bytes a check): a path compared with a
// protected root in place answers as `${root}/` would, a path already normal is left as
// normalize() would leave it, and an unseen job's one initial state is never what its
// events change.
import { normalize } from 'node:path/posix';
import { describe, expect, it } from 'vitest';
import { absolute, inside } from '../../src/events/pathNames.js';
import { Projection } from '../../src/daemon/projection.js';

const PATHS = ['/a/b', '/a/b/', '/a/bc', '/a/b/c', '/a', '/', '/a/b//c', '/ab', '/a/b.', ''];

describe("a check's shortcuts", () => {
  it('inside() answers as comparing with `${root}/` does, at every boundary', () => {
    for (const path of PATHS) {
      for (const root of PATHS) {
        const spelled = path === root || path.startsWith(root.endsWith('/') ? root : `${root}/`);
        expect(inside(path, root), `${path} in ${root}`).toBe(spelled);
      }
    }
  });

  it('absolute() gives what normalize() gives, for paths already normal and not', () => {
    for (const path of ['/a/b', '/a/.b', '/a/..b', '/a/...', '/a/b/', '/a//b', '/a/./b', '/a/../b', '/', '/.', '/..', 'rel/../x', './x']) {
      expect(absolute(path, '/work', '/home/u'), path).toBe(normalize(path.startsWith('/') ? path : `/work/${path}`));
    }
  });

  it("an unseen job's view is one initial state, and a view taken before its first event stays as it was", () => {
    const projection = new Projection();
    const before = projection.view('job');
    expect(projection.view('job')).toBe(before);
    projection.apply({ type: 'InteractionRecorded', data: { job: 'job', kind: 'prompt', text: 'hello', tokens: 5, counted: true, time: 1 }, seq: 1, version: 1 });
    expect(projection.view('job').unsummarizedTokens).toBe(5);
    expect(before.unsummarizedTokens).toBe(0);
    expect(before.pending).toEqual([]);
  });
});
