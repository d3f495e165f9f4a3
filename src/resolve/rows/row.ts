import type { SourceFormat } from '../../presets/events';

/**
 * A row of the translation table (../translation.ts) and what a row works with: the version's
 * config it reads from (each field, or key of an object field, taken once), and the translation
 * under way it writes to.
 */

export type Json = Record<string, unknown>;
export const isObject = (u: unknown): u is Json => typeof u === 'object' && u !== null && !Array.isArray(u);

/** What one row reads from the version's config: each field, or one key of an object field, at most once. */
export class Source {
  private readonly taken = new Set<string>();
  constructor(readonly config: Json) {}

  take(field: string, key?: string): unknown {
    const value = this.config[field];
    if (key === undefined) {
      this.taken.add(field);
      return value;
    }
    this.taken.add(`${field}.${key}`);
    return isObject(value) ? value[key] : undefined;
  }

  /** The keys of an object field no row has taken, taken now. */
  rest(field: string): Array<[string, unknown]> {
    const value = this.config[field];
    if (!isObject(value) || this.taken.has(field)) return [];
    const keys = Object.keys(value).filter((k) => !this.taken.has(`${field}.${k}`));
    for (const k of keys) this.taken.add(`${field}.${k}`);
    return keys.map((k) => [k, value[k]]);
  }

  /** What no row took: whole fields, and the keys of object fields of which rows took only some. */
  untaken(): string[] {
    const left: string[] = [];
    for (const [field, value] of Object.entries(this.config)) {
      if (this.taken.has(field)) continue;
      const someTaken = [...this.taken].some((t) => t.startsWith(`${field}.`));
      if (!someTaken || !isObject(value)) left.push(field);
      else for (const k of Object.keys(value)) if (!this.taken.has(`${field}.${k}`)) left.push(`${field}.${k}`);
    }
    return left;
  }
}

/** One translation under way: from one format's config to another's. */
export interface Step {
  from: SourceFormat;
  to: SourceFormat;
  src: Source;
  /** Sets a field (or one key of an object field) of the translated config, from `origin`. */
  put(path: string, value: unknown, origin: string): void;
  /** A field of the translated config as rows so far have set it. */
  placed(field: string): unknown;
  drop(field: string, reason: string): void;
}

export interface Row {
  /** The setting, as the README names it. */
  setting: string;
  /** Where each format keeps it, as the README shows it; absent: the format has none. */
  at: Partial<Record<SourceFormat, string>>;
  /** How the value changes between formats. */
  how: string;
  /** The top-level fields of each format's config this row reads (a test checks every config field is read by some row). */
  reads: Partial<Record<SourceFormat, readonly string[]>>;
  translate(step: Step): void;
}

export const present = (v: unknown) => v !== undefined && v !== null;
export const code = (s: string) => `\`${s}\``;
