/**
 * Differences between two JSON-like values (objects, arrays, strings, numbers, booleans, null,
 * bigint), each with the path where it is: `designated_version.config.temperature`, `tools[0]`.
 * Key order does not matter; a key present on one side only is a difference.
 */
export interface Difference {
  path: string;
  expected: unknown;
  actual: unknown;
}

/** Marks a key (or document) one side does not have. */
export const ABSENT = Symbol('absent');

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const join = (path: string, key: string) => (path === '' ? key : `${path}.${key}`);

export const diffValues = (expected: unknown, actual: unknown, path = '', out: Difference[] = []): Difference[] => {
  if (Array.isArray(expected) && Array.isArray(actual)) {
    for (let i = 0; i < Math.max(expected.length, actual.length); i++) {
      diffValues(i < expected.length ? expected[i] : ABSENT, i < actual.length ? actual[i] : ABSENT, `${path}[${i}]`, out);
    }
  } else if (isObject(expected) && isObject(actual)) {
    const keys = [...new Set([...Object.keys(expected), ...Object.keys(actual)])].sort();
    for (const key of keys) {
      diffValues(key in expected ? expected[key] : ABSENT, key in actual ? actual[key] : ABSENT, join(path, key), out);
    }
  } else if (!Object.is(expected, actual)) {
    out.push({ path: path || '(document)', expected, actual });
  }
  return out;
};

/** A value for a one-line report: JSON (a bigint as its decimal string), cut to `max` characters. */
export const show = (value: unknown, max = 80): string => {
  if (value === ABSENT) return '(absent)';
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) ?? String(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
};
