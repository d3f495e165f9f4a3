import * as t from 'io-ts';
import * as E from 'fp-ts/Either';
import { formatErrors } from '#src/validation';
import { named, nullable, oneOf, refine } from '#src/formats/codecs';
import { problemsOf } from './helpers';

// The paths formatErrors gives for the codec shapes the formats use: wrappers are seen through,
// union and intersection member indexes never show.
const pathsOf = (codec: t.Mixed, value: unknown) => {
  const result = codec.decode(value);
  return E.isLeft(result) ? formatErrors(result.left).map((p) => p.path) : [];
};

describe('error paths', () => {
  it('step into the list under a refinement', () => {
    const four = refine(t.array(t.string), (a) => a.length <= 4, 'at most 4');
    expect(pathsOf(t.type({ stop: four }), { stop: ['a', 1] })).toEqual(['$.stop[1]']);
    expect(pathsOf(t.type({ l: named('list', t.array(t.type({ a: t.string }))) }), { l: [{ a: 'x' }, {}] })).toEqual(['$.l[1].a']);
  });

  it('keep the keys under io-ts exact and readonly', () => {
    expect(pathsOf(t.exact(t.type({ a: t.array(t.string) })), { a: [1] })).toEqual(['$.a[0]']);
    expect(pathsOf(t.type({ e: t.exact(t.type({ a: t.array(t.string) })) }), { e: { a: [1] } })).toEqual(['$.e.a[0]']);
    expect(pathsOf(t.readonlyArray(t.readonly(t.type({ a: t.string }))), [{ a: 1 }])).toEqual(['$[0].a']);
  });

  it('leave member indexes of unions out, through nullable and oneOf', () => {
    const codec = t.type({ n: nullable(t.array(t.string)), o: oneOf('s or list', { string: t.string, array: t.array(t.number) }) });
    expect(pathsOf(codec, { n: ['a', 2], o: [1, 'x'] })).toEqual(['$.n[1]', '$.o[1]']);
    expect(pathsOf(t.union([t.string, t.array(t.string)]), ['a', 1])).toContain('$[1]');
  });

  it('report one problem for a wrong kind in oneOf, named by the union', () => {
    const codec = t.type({ o: oneOf('string or list', { string: t.string, array: t.array(t.number) }) });
    const result = codec.decode({ o: 3 });
    expect(E.isLeft(result) && formatErrors(result.left)).toEqual([{ path: '$.o', message: 'expected string or list, got number 3' }]);
  });

  it('are right for the format codecs', () => {
    expect(problemsOf('chat_completions', { messages: [{ role: 'system', content: [{ type: 'text', text: 1 }] }] })).toEqual([
      { path: '$.messages[0].content[0]', message: 'expected content part (a text part needs a string text), got an object' },
    ]);
    expect(problemsOf('chat_completions', { messages: [], tools: [{}, 1] })).toEqual([
      { path: '$.tools[1]', message: 'expected object, got number 1' },
    ]);
    expect(problemsOf('chat_completions', { messages: [], stop: ['a', 'b', 'c', 'd', 'e'] })).toEqual([
      { path: '$.stop', message: 'expected string, list of at most 4 strings, or null, got an array of 5' },
    ]);
    expect(problemsOf('chat_completions', { messages: [], temperature: 2.0001 })).toEqual([
      { path: '$.temperature', message: 'expected number from 0 to 2 or null, got number 2.0001' },
    ]);
  });
});
