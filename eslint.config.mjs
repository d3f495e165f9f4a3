// @ts-check
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

/** Imports that would make a dependency run the wrong way (README, "Reading the code"). */
const composition = [
  '**/src/backends',
  '**/src/config',
  '**/src/service',
  '**/src/main',
  '**/src/projectorMain',
  '**/src/workers/**',
  '**/src/logger',
];

const CONSOLE_IMPORTS =
  'The console knows the API by its documented shapes (src/apiTypes/event.ts is the one module of the service it may import): keep its code in src/console/.';

const UNIT_PURE =
  'test/unit/ is pure (no disk, thread, child process or port): a suite that needs one goes in test/integration/ or test/http/.';

/** What no file of the service (src/, but its composition root) imports. */
const SERVICE_PATTERNS = [
  {
    regex: '(^|/)projections/(?!readmodel/readModel$)',
    message: 'Only the composition root uses projections/ beyond the read-model port.',
  },
  {
    group: ['**/scripts/**', '**/test/**', '**/bench/**'],
    message: 'The service does not depend on scripts, tests or benchmarks.',
  },
  { group: ['**/console/**'], message: 'The service serves the built console (dist/console/); it does not import its code.' },
];

export default tseslint.config(
  { ignores: ['dist/', 'packages/*/dist/', 'node_modules/', 'coverage/', 'bench/results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: {
      globals: {
        ...Object.fromEntries(
          [
            'process',
            'console',
            'Buffer',
            'setTimeout',
            'clearTimeout',
            'setInterval',
            'clearInterval',
            'setImmediate',
            '__dirname',
            'require',
            'module',
          ].map((g) => [g, 'readonly']),
        ),
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      // The lazy loads of the server clients (src/backends.ts) and of undici (src/webhooks/send.ts) are typed `require`s.
      '@typescript-eslint/no-require-imports': [
        'error',
        {
          allow: [
            '^\\./eventstore/',
            '^\\.\\./projections/readmodel/',
            '^mongodb$',
            '^\\./readmodel/',
            '^\\./webhooks/',
            '^\\./consumerGroups/',
            '^\\./usage/',
            // undici's Agent and request API, without its index (src/webhooks/send.ts).
            '^undici/lib/(dispatcher/dispatcher|dispatcher/agent|api)$',
          ],
        },
      ],
      eqeqeq: ['error', 'smart'],
    },
  },
  {
    // projections/ uses the domain's events and the event-store ports; it never composes stores.
    files: ['projections/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [...composition, '**/src/http/**', '**/scripts/**', '**/test/**'],
              message: 'projections/ depends on the domain and the ports only: compose in src/ or scripts/.',
            },
          ],
        },
      ],
    },
  },
  {
    // src/ reaches into projections/ only at the composition root and for the read-model port.
    files: ['src/**/*.ts'],
    ignores: ['src/service.ts', 'src/composition.ts', 'src/backends.ts', 'src/projectorMain.ts', 'src/workers/**', 'src/client/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: SERVICE_PATTERNS,
        },
      ],
    },
  },
  {
    // src/client/ runs in a gateway's process: the pure core (resolution, formats, the domain's events and the
    // pure projection it keeps its copy with), never the service's HTTP layer, stores or composition root.
    files: ['src/client/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)projections/(?!(presetProjection|readmodel/readModel)$)',
              message: 'The client keeps its copy with the pure projection only.',
            },
            {
              group: [
                ...composition,
                '**/src/http/**',
                '**/http/**',
                '**/eventstore/**',
                '**/sqlite/**',
                '**/webhooks/**',
                '**/auth/**',
                '**/threads/**',
              ],
              message: 'The client has no dependency on the server: its stores, HTTP layer or composition root.',
            },
            {
              group: ['**/scripts/**', '**/test/**', '**/bench/**', '**/console/**'],
              message: 'The client does not depend on scripts, tests, benchmarks or the console.',
            },
          ],
        },
      ],
    },
  },
  {
    // The events' envelope and registry are generic: each stream type registers into them, never the other way.
    files: ['src/events/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...SERVICE_PATTERNS,
            {
              group: ['**/presets/**', '**/keys/**', '**/workspaceLog/**', '**/audit/**'],
              message: 'src/events/ knows no stream type: stream types register into it (src/workspaceLog/catalog.ts).',
            },
          ],
        },
      ],
    },
  },
  {
    // A stream type's code reads its own events only: presets and keys do not import each other (src/workspaceLog/ joins them).
    files: ['src/presets/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...SERVICE_PATTERNS,
            { group: ['**/keys/**', '**/workspaceLog/**'], message: 'presets and keys are separate stream types.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/keys/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...SERVICE_PATTERNS,
            { group: ['**/presets/**', '**/workspaceLog/**'], message: 'presets and keys are separate stream types.' },
          ],
        },
      ],
    },
  },
  {
    // The web console is a client of the public API: it never imports the service's code, nor the service its;
    // only the API's shapes the service declares for its clients (src/apiTypes/event.ts, types only).
    files: ['src/console/*.{ts,tsx,mts}'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: '^\\.\\./(?!apiTypes/event$)', message: CONSOLE_IMPORTS }] }],
    },
  },
  {
    files: ['src/console/*/**/*.{ts,tsx,mts}'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: '^\\.\\./\\.\\./(?!apiTypes/event$)', message: CONSOLE_IMPORTS }] }],
    },
  },
  {
    // The API's shapes for its clients (the console, presets/client): types only, importing nothing.
    files: ['src/apiTypes/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '.', message: 'src/apiTypes/ imports nothing: its clients take it alone.' }] },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: 'Program > :not(ExportNamedDeclaration, TSTypeAliasDeclaration, TSInterfaceDeclaration)',
          message: 'src/apiTypes/ declares types only.',
        },
        {
          selector: 'ExportNamedDeclaration > :not(TSTypeAliasDeclaration, TSInterfaceDeclaration)',
          message: 'src/apiTypes/ declares types only.',
        },
      ],
    },
  },
  {
    // test/unit/ is pure: no disk, thread, child process or port (such suites live in test/integration/ or test/http/).
    files: ['test/unit/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            ...['fs', 'fs/promises', 'child_process', 'net', 'http', 'https', 'worker_threads', 'better-sqlite3'].flatMap((name) => [
              { name, message: UNIT_PURE },
              { name: `node:${name}`, message: UNIT_PURE },
            ]),
          ],
          patterns: [
            {
              group: [
                ...['service', 'process', 'reference', 'receiver', 'browser', 'consolePage', 'threads'].flatMap((name) => [
                  `**/support/${name}`,
                  `#support/${name}`,
                ]),
                '**/sqlite',
                '**/sqlite/**',
              ],
              message: UNIT_PURE,
            },
          ],
        },
      ],
    },
  },
  {
    files: ['scripts/**/*.ts', 'bench/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/test/**'], message: 'Tests may use scripts, not the other way round.' }] },
      ],
    },
  },
);
