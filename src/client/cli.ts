import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { parseArgs, styleText } from 'node:util';
import { createTwoFilesPatch } from 'diff';
import { parse as parseYaml } from 'yaml';

/**
 * The `presets` command (docs/prompts-as-code.md): `push` a directory of Dotprompt files to the
 * service, creating a version only where a file differs from the designated one, and `pull` the
 * presets back as files. Everything it knows of the service is its HTTP API
 * (`…/dotprompt`, labels, the list): the file format is the service's, read and written there.
 */
export interface CliIo {
  argv: string[];
  env: Record<string, string | undefined>;
  out: (line: string) => void;
  err: (line: string) => void;
  /** Whether the output is a terminal: colours only then. */
  colour: boolean;
  fetch: typeof fetch;
}

export const USAGE = `presets: Dotprompt files in a repository, kept in step with a presets service.

Usage:
  presets push <dir> [--dry-run] [--check] [--label NAME] [--note TEXT] [--json]
  presets pull <dir> [slug...] [--label NAME] [--json]
  presets --help

push sends each *.prompt file of <dir> (the preset: metadata.presets.slug, else the file's name)
and makes a version only where the file differs from the designated version.
  --dry-run     write nothing; say what would change, with a diff of the service's file and yours
  --check       exit 2 when any file differs from the service, 0 when all match
  --label NAME  move label NAME to each file's version (a protected label: a proposal)
  --note TEXT   the note on each new version and label move
  --json        one JSON object per file, then a summary object

pull writes the designated (or --label) version of every preset, or of the slugs given, as
<dir>/<slug>.prompt.

Environment: PRESETS_URL (the service, e.g. http://localhost:8080), PRESETS_API_KEY.
Exit status: 0 done, 1 an error (each error line names its file), 2 drift under --check.`;

type Json = Record<string, unknown>;
type Status = 'unchanged' | 'new_preset' | 'new_version' | 'written' | 'skipped' | 'error';

interface FileResult {
  file: string;
  slug: string;
  status: Status;
  version?: number;
  label?: { name: string; status: 'moved' | 'proposed'; version: number; approvals_required?: number };
  diff?: string;
  error?: string;
}

/** What the service said when it refused: its message and each problem's place. */
const refusal = async (res: Response): Promise<string> => {
  const text = await res.text().catch(() => '');
  try {
    const { error } = JSON.parse(text) as { error: { message: string; metadata?: { errors?: { path: string; message: string }[] } } };
    const problems = (error.metadata?.errors ?? []).map((p) => `${p.path}: ${p.message}`);
    return [`${res.status} ${error.message}`, ...problems].join('; ');
  } catch {
    return `${res.status} ${text.slice(0, 300)}`;
  }
};

class CliError extends Error {}

const service = (io: CliIo) => {
  const base = io.env.PRESETS_URL?.replace(/\/+$/, '');
  const key = io.env.PRESETS_API_KEY;
  if (!base) throw new CliError('PRESETS_URL is not set: the service, e.g. http://localhost:8080');
  if (!key) throw new CliError('PRESETS_API_KEY is not set: a key of the service');
  return (path: string, init: RequestInit = {}) =>
    io.fetch(`${base}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, ...(init.headers as Record<string, string>) } });
};

/** The slug a file names (`metadata.presets.slug`), if its front matter reads as YAML and names one. */
const slugOf = (file: string, text: string): string => {
  const front = /^---\s*\r?\n([\s\S]*?)\r?\n---\s*(\r?\n|$)/.exec(text);
  if (front) {
    try {
      const slug = (parseYaml(front[1]!) as { metadata?: { presets?: { slug?: unknown } } } | null)?.metadata?.presets?.slug;
      if (typeof slug === 'string') return slug;
    } catch {
      // the service names the problem when the file is sent
    }
  }
  return basename(file, '.prompt');
};

const versionIn = (text: string): number | undefined => {
  const front = /^---\s*\r?\n([\s\S]*?)\r?\n---/.exec(text);
  const version = front
    ? (parseYaml(front[1]!) as { metadata?: { presets?: { version?: unknown } } })?.metadata?.presets?.version
    : undefined;
  return typeof version === 'number' ? version : undefined;
};

const paint = (io: CliIo) => (colour: Parameters<typeof styleText>[0], text: string) => (io.colour ? styleText(colour, text) : text);

const describe = (io: CliIo, r: FileResult, dryRun: boolean): string => {
  const c = paint(io);
  const would = dryRun ? 'would be ' : '';
  const what: Record<Status, string> = {
    unchanged: c('green', `unchanged${r.version ? ` (version ${r.version})` : ''}`),
    new_preset: c('cyan', `${would}new preset`),
    new_version: c('yellow', `${would}new version${r.version && !dryRun ? ` ${r.version}` : ''}`),
    written: c('cyan', `written (version ${r.version})`),
    skipped: c('dim', r.error ?? 'skipped'),
    error: c('red', `error: ${r.error}`),
  };
  const label = r.label
    ? r.label.status === 'moved'
      ? `, label ${r.label.name} → ${r.label.version}`
      : c('magenta', `, label ${r.label.name} → ${r.label.version} proposed (needs ${r.label.approvals_required} approvals)`)
    : '';
  return `${r.file}  ${what[r.status]}${label}`;
};

const report = (io: CliIo, results: FileResult[], json: boolean, dryRun: boolean, drift?: boolean) => {
  const counts: Partial<Record<Status, number>> = {};
  for (const r of results) counts[r.status] = (counts[r.status] ?? 0) + 1;
  if (json) {
    io.out(JSON.stringify({ summary: { files: results.length, ...counts, ...(drift !== undefined ? { drift } : {}) } }));
    return;
  }
  const words: Record<Status, string> = {
    new_preset: 'new preset',
    new_version: 'new version',
    unchanged: 'unchanged',
    written: 'written',
    skipped: 'skipped',
    error: 'error',
  };
  const parts = (Object.keys(words) as Status[])
    .filter((s) => counts[s])
    .map((s) => `${counts[s]} ${words[s]}${counts[s]! > 1 && s !== 'unchanged' && s !== 'written' && s !== 'skipped' ? 's' : ''}`);
  io.out(`${results.length} file${results.length === 1 ? '' : 's'}${dryRun ? ' (dry run)' : ''}: ${parts.join(', ') || 'nothing to do'}`);
};

const emit = (io: CliIo, r: FileResult, json: boolean, dryRun: boolean) => {
  if (json) return io.out(JSON.stringify(r));
  (r.status === 'error' ? io.err : io.out)(describe(io, r, dryRun));
  if (r.diff)
    for (const line of r.diff.split('\n'))
      io.out(paint(io)(line.startsWith('+') ? 'green' : line.startsWith('-') ? 'red' : 'dim', `    ${line}`));
};

const noteHeader = (note: string | undefined): Record<string, string> => (note ? { 'preset-note': encodeURIComponent(note) } : {});

const push = async (io: CliIo, dir: string, options: { dryRun: boolean; check: boolean; label?: string; note?: string; json: boolean }) => {
  const call = service(io);
  const names = (await readdir(dir, { withFileTypes: true }))
    .filter((e) => e.isFile() && e.name.endsWith('.prompt'))
    .map((e) => e.name)
    .sort();
  const results: FileResult[] = [];
  for (const name of names) {
    const text = await readFile(join(dir, name), 'utf8');
    const slug = slugOf(name, text);
    const result: FileResult = { file: join(dir, name), slug, status: 'error' };
    try {
      const path = `/api/v1/presets/${encodeURIComponent(slug)}`;
      const current = await call(`${path}/dotprompt`);
      if (current.status !== 200 && current.status !== 404) throw new CliError(`GET ${path}/dotprompt: ${await refusal(current)}`);
      const theirs = current.status === 200 ? await current.text() : null;
      const send = (query: string, headers: Record<string, string> = {}) =>
        call(`${path}/dotprompt${query}`, { method: 'POST', headers: { 'content-type': 'text/x-dotprompt', ...headers }, body: text });
      const preview = await send('?dry_run=true');
      if (preview.status !== 200) throw new CliError(await refusal(preview));
      const { unchanged } = (await preview.json()) as { unchanged: boolean };
      result.status = theirs === null ? 'new_preset' : unchanged ? 'unchanged' : 'new_version';
      if (result.status === 'new_version' && options.dryRun)
        result.diff = createTwoFilesPatch(`service: ${slug}`, `file: ${name}`, theirs!, text, '', '', { context: 2 })
          .split('\n')
          .slice(2)
          .join('\n')
          .trimEnd();
      if (!options.dryRun) {
        const written = await send('', noteHeader(options.note));
        if (written.status !== 200 && written.status !== 202) throw new CliError(await refusal(written));
        const answer = (await written.json()) as {
          data: Json & { designated_version?: { version: number }; version?: number; designation_protection?: unknown };
        };
        let version = answer.data.version ?? answer.data.designated_version?.version;
        // A protected designation does not move to a new version: the newest is the one just made.
        if (written.status === 200 && answer.data.designation_protection && result.status !== 'unchanged') {
          version = ((await (await call(`${path}/versions?limit=1`)).json()) as { total_count: number }).total_count;
        }
        result.version = version;
        if (options.label && version !== undefined) {
          const moved = await call(`${path}/labels/${encodeURIComponent(options.label)}`, {
            method: 'PUT',
            headers: { 'content-type': 'application/json', ...noteHeader(options.note) },
            body: JSON.stringify({ version }),
          });
          if (moved.status !== 200 && moved.status !== 202) throw new CliError(`label ${options.label}: ${await refusal(moved)}`);
          const data = ((await moved.json()) as { data: { status?: string; approvals_required?: number } }).data;
          result.label =
            data.status === 'proposed'
              ? { name: options.label, status: 'proposed', version, approvals_required: data.approvals_required }
              : { name: options.label, status: 'moved', version };
        }
      } else if (result.status === 'unchanged') {
        result.version = versionIn(theirs!);
      }
    } catch (error) {
      result.status = 'error';
      result.error = error instanceof CliError ? error.message : `${(error as Error).message}`;
      delete result.diff;
    }
    emit(io, result, options.json, options.dryRun);
    results.push(result);
  }
  const drift = results.some((r) => r.status === 'new_preset' || r.status === 'new_version');
  report(io, results, options.json, options.dryRun, options.check ? drift : undefined);
  if (results.some((r) => r.status === 'error')) return 1;
  return options.check && drift ? 2 : 0;
};

const pull = async (io: CliIo, dir: string, slugs: string[], options: { label?: string; json: boolean }) => {
  const call = service(io);
  const listed = slugs.length === 0;
  if (listed) {
    for (let offset = 0; ; offset += 100) {
      const res = await call(`/api/v1/presets?limit=100&offset=${offset}`);
      if (res.status !== 200) throw new CliError(`GET /api/v1/presets: ${await refusal(res)}`);
      const page = (await res.json()) as { data: { slug: string }[]; total_count: number };
      slugs.push(...page.data.map((p) => p.slug));
      if (page.data.length === 0 || offset + page.data.length >= page.total_count) break;
    }
  }
  await mkdir(dir, { recursive: true });
  const results: FileResult[] = [];
  for (const slug of slugs) {
    const file = join(dir, `${slug}.prompt`);
    const result: FileResult = { file, slug, status: 'error' };
    try {
      const query = options.label ? `?label=${encodeURIComponent(options.label)}` : '';
      const res = await call(`/api/v1/presets/${encodeURIComponent(slug)}/dotprompt${query}`);
      if (res.status === 404 && listed && options.label) {
        Object.assign(result, { status: 'skipped', error: `skipped: no label ${options.label}` });
      } else if (res.status !== 200) {
        throw new CliError(await refusal(res));
      } else {
        const text = await res.text();
        const held = await readFile(file, 'utf8').catch(() => null);
        result.version = versionIn(text);
        if (held === text) result.status = 'unchanged';
        else {
          await writeFile(file, text);
          result.status = 'written';
        }
      }
    } catch (error) {
      result.error = error instanceof CliError ? error.message : (error as Error).message;
    }
    emit(io, result, options.json, false);
    results.push(result);
  }
  report(io, results, options.json, false);
  return results.some((r) => r.status === 'error') ? 1 : 0;
};

/** Runs the command; resolves to its exit status. */
export const runCli = async (io: CliIo): Promise<number> => {
  let parsed;
  try {
    parsed = parseArgs({
      args: io.argv,
      allowPositionals: true,
      options: {
        help: { type: 'boolean', short: 'h' },
        'dry-run': { type: 'boolean' },
        check: { type: 'boolean' },
        json: { type: 'boolean' },
        label: { type: 'string' },
        note: { type: 'string' },
      },
    });
  } catch (error) {
    io.err(`presets: ${(error as Error).message}\n\n${USAGE}`);
    return 1;
  }
  const { values, positionals } = parsed;
  const [command, dir, ...rest] = positionals;
  if (values.help || command === 'help') {
    io.out(USAGE);
    return 0;
  }
  const json = values.json === true;
  try {
    if (command === 'push' && dir && rest.length === 0) {
      return await push(io, dir, {
        dryRun: values['dry-run'] === true,
        check: values.check === true,
        label: values.label,
        note: values.note,
        json,
      });
    }
    if (command === 'pull' && dir) {
      if (values['dry-run'] || values.check || values.note !== undefined) throw new CliError('pull takes --label and --json only');
      return await pull(io, dir, rest, { label: values.label, json });
    }
  } catch (error) {
    const message = error instanceof CliError ? error.message : `${(error as Error).message}`;
    io.err(json ? JSON.stringify({ error: message }) : `presets: ${message}`);
    return 1;
  }
  io.err(`presets: ${command ? `cannot read "${io.argv.join(' ')}"` : 'no command'}\n\n${USAGE}`);
  return 1;
};
