// JSON from outside recap: lone surrogates (only a \u escape can make one) become U+FFFD,
// so what is decided on is what the log stores.
import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/common/json.js';

describe('parseJson', () => {
  it('turns lone surrogate escapes into U+FFFD, in values and keys, at any depth', () => {
    expect(parseJson('{"text":"a \\ud800 b \\uDFFF c","list":["\\udbff"],"\\ud800key":{"deep":"x\\ud800"}}')).toEqual({
      text: 'a \ufffd b \ufffd c',
      list: ['\ufffd'],
      '\ufffdkey': { deep: 'x\ufffd' },
    });
  });

  it('keeps surrogate pairs, escaped or not, and everything else as JSON.parse does', () => {
    const text = '{"emoji":"\\ud83d\\ude00 😀","slash":"\\\\ud800 is text","n":[1,true,null]}';
    expect(parseJson(text)).toEqual(JSON.parse(text));
  });
});
