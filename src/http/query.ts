import type { ValidationProblem } from '../validation';
import { badRequest } from './errors';

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
    position(name: string, raw: string | string[] | undefined): bigint | undefined {
      if (raw === undefined) return undefined;
      if (typeof raw === 'string' && /^\d{1,40}$/.test(raw)) return BigInt(raw);
      problems.push({ path: name, message: `must be an event position (a decimal integer string), got ${JSON.stringify(raw)}` });
      return undefined;
    },
    done() {
      if (problems.length > 0) throw badRequest('invalid query parameters', problems);
    },
  };
};
