import type { ValidationProblem } from '../validation';
import { badRequest } from './errors';

const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** Query parameters, each at most once; every problem is collected, then reported together. */
export const queryReader = (query: Record<string, string | string[] | undefined>) => {
  const problems: ValidationProblem[] = [];
  return {
    int(name: string, min: number, max: number, fallback: number): number {
      const raw = query[name];
      if (raw === undefined) return fallback;
      const value = typeof raw === 'string' && /^\d{1,16}$/.test(raw) ? Number(raw) : NaN;
      if (Number.isNaN(value) || value < min || value > max) {
        problems.push({ path: name, message: `must be a whole number from ${min} to ${max}, got ${JSON.stringify(raw)}` });
      }
      return value;
    },
    /** A position: a decimal integer string (EventStoreDB's can exceed 2^64, so never a JS number). */
    position(name: string, raw: string | string[] | undefined, max: bigint): bigint | undefined {
      if (raw === undefined) return undefined;
      if (typeof raw === 'string' && /^\d{1,40}$/.test(raw)) {
        const position = BigInt(raw);
        if (position <= max) return position;
        problems.push({ path: name, message: `must be an event position of at most ${max} (this store holds none larger), got ${raw}` });
        return undefined;
      }
      problems.push({ path: name, message: `must be an event position (a decimal integer string), got ${JSON.stringify(raw)}` });
      return undefined;
    },
    /** One of a few words, at most once. */
    oneOf<W extends string>(name: string, words: readonly W[], fallback: W): W {
      const raw = query[name];
      if (raw === undefined) return fallback;
      if (typeof raw === 'string' && (words as readonly string[]).includes(raw)) return raw as W;
      problems.push({ path: name, message: `must be one of ${words.join(', ')}, got ${JSON.stringify(raw)}` });
      return fallback;
    },
    /** Words from a list, given as the parameter repeated or comma-separated; undefined when absent. */
    someOf<W extends string>(name: string, words: readonly W[]): W[] | undefined {
      const raw = query[name];
      if (raw === undefined) return undefined;
      const given = (typeof raw === 'string' ? [raw] : raw).flatMap((v) => v.split(','));
      const unknown = given.filter((w) => !(words as readonly string[]).includes(w));
      if (unknown.length > 0)
        problems.push({ path: name, message: `must be among ${words.join(', ')}, got ${JSON.stringify(unknown.join(','))}` });
      return [...new Set(given)] as W[];
    },
    /** An ISO 8601 timestamp with a time zone (`2026-11-24T13:00:00Z`), at most once; undefined when absent. */
    timestamp(name: string): Date | undefined {
      const raw = query[name];
      if (raw === undefined) return undefined;
      const at = typeof raw === 'string' && ISO_TIMESTAMP.test(raw) ? new Date(raw) : undefined;
      if (at && !Number.isNaN(at.getTime())) return at;
      problems.push({
        path: name,
        message: `must be an ISO 8601 timestamp with a time zone, e.g. 2026-11-24T13:00:00Z, got ${JSON.stringify(raw)}`,
      });
      return undefined;
    },
    /** A problem found by the caller, reported with the others. */
    problem(name: string, message: string) {
      problems.push({ path: name, message });
    },
    /** A parameter that must not be given (with another that excludes it). */
    absent(name: string, why: string) {
      if (query[name] !== undefined) problems.push({ path: name, message: why });
    },
    done() {
      if (problems.length > 0) throw badRequest('invalid query parameters', problems);
    },
  };
};
