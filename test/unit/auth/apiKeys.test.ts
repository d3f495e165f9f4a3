import { createKeyRing, decodeKeysFile, parseBearer } from '#src/auth/apiKeys';

const WS = '6f1c2a3e-9b4d-4c1a-8e2f-0a1b2c3d4e5f';
const PLAIN = 'pk_plaintext-key-0123456789abcdefghij';

const entry = (over: Record<string, unknown> = {}) => ({
  key: PLAIN,
  user_id: 'alice',
  workspace_id: WS,
  scopes: ['presets:read', 'presets:write'],
  ...over,
});

describe('createKeyRing', () => {
  it('rejects duplicate entries built in code', () => {
    const keys = decodeKeysFile({ keys: [entry()] }, 'test');
    expect(() => createKeyRing([...keys, ...keys])).toThrow(/repeats an earlier key/);
  });

  it('an empty ring authenticates nothing', () => {
    expect(createKeyRing([]).authenticate(PLAIN)).toBeNull();
  });
});

describe('parseBearer', () => {
  it.each([
    ['Bearer abc.DEF-_~+/=', 'abc.DEF-_~+/='],
    ['bearer abc', 'abc'],
    ['BEARER abc', 'abc'],
  ])('%s → token', (header, token) => {
    expect(parseBearer(header)).toBe(token);
  });

  it.each([
    undefined,
    '',
    'Bearer',
    'Bearer ',
    'Bearer  abc',
    'Bearer abc def',
    'Bearer abc ',
    ' Bearer abc',
    'Bearerabc',
    'Basic YWxhZGRpbjpvcGVuc2VzYW1l',
    'Token abc',
    'Bearer abc\tdef',
    'Bearer abcé',
    'Bearer\tabc',
  ])('%p → null', (header) => {
    expect(parseBearer(header)).toBeNull();
  });
});
