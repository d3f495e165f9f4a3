import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * `presets/client` as a gateway gets it: the package's export, built (the jest globalSetup builds
 * dist/), with TypeScript declarations, and nothing of the server's stores or HTTP layer loaded,
 * nor any native module.
 */
const ROOT = join(__dirname, '..', '..');

it("loads from the package name with only the client's own dependencies", () => {
  const script = `
    const client = require('presets/client');
    const packages = new Set(Object.keys(require.cache).filter((m) => m.includes('/node_modules/'))
      .map((m) => m.split('/node_modules/').pop().split('/').slice(0, m.split('/node_modules/').pop().startsWith('@') ? 2 : 1).join('/')));
    const own = Object.keys(require.cache).filter((m) => !m.includes('/node_modules/')).map((m) => m.slice(${JSON.stringify(ROOT)}.length + 1));
    const native = Object.keys(require.cache).filter((m) => m.endsWith('.node'));
    console.log(JSON.stringify({ exports: Object.keys(client).sort(), packages: [...packages].sort(), own, native }));`;
  const out = JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' })) as {
    exports: string[];
    packages: string[];
    own: string[];
    native: string[];
  };
  expect(out.exports).toEqual(['PresetResolveError', 'PresetServiceError', 'consume', 'createPresetClient']);
  // Rendering templated versions brings Handlebars (and its source-map), ajv with ajv-formats (and
  // theirs), and re2js: all plain JavaScript, so a gateway installs the client without a native build.
  expect(out.packages).toEqual([
    'ajv',
    'ajv-formats',
    'eventsource-parser',
    'fast-deep-equal',
    'fast-uri',
    'fp-ts',
    'handlebars',
    'io-ts',
    'json-schema-traverse',
    'lru-cache',
    're2js',
    'source-map',
  ]);
  expect(out.native).toEqual([]);
  expect(out.own.filter((f) => /\/(http|eventstore|sqlite|webhooks|auth)\/|readmodel\/(sqlite|mongodb)|service|backends/.test(f))).toEqual(
    [],
  );
});

it('type-checks a gateway that imports it by name', () => {
  const dir = mkdtempSync(join(ROOT, 'dist', 'gateway-'));
  try {
    writeFileSync(
      join(dir, 'gateway.ts'),
      `
      import { createPresetClient, PresetResolveError, type PresetClient, type Resolution } from 'presets/client';
      const presets: PresetClient = createPresetClient({ baseUrl: 'http://localhost:8080', apiKey: 'pk_x', revalidateAfterMs: 5000 });
      export const send = async (body: unknown): Promise<Record<string, unknown> | number> => {
        try {
          const resolved: Resolution = await presets.resolve('chat_completions', body, { variables: { language: 'French' } });
          const unused: string[] | undefined = resolved.unused_variables;
          if (unused?.length) console.warn(unused);
          return resolved.request;
        } catch (error) {
          if (error instanceof PresetResolveError) return error.code;
          throw error;
        }
      };
    `,
    );
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    execFileSync(
      process.execPath,
      [
        tsc,
        '--ignoreConfig',
        '--noEmit',
        '--strict',
        '--module',
        'node16',
        '--moduleResolution',
        'node16',
        '--types',
        'node',
        '--skipLibCheck',
        join(dir, 'gateway.ts'),
      ],
      { cwd: ROOT, encoding: 'utf8', stdio: 'pipe' },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
