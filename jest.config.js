/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // Type checking is done once for the whole tree by `tsc --noEmit` (npm test runs it first),
  // so ts-jest only transpiles each file.
  transform: {
    '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
    // github-slugger (GitHub's heading anchors, for the docs' link check) and cookie (light-my-request's,
    // for the in-process specifications) ship ES modules only.
    '/node_modules/(github-slugger|cookie)/.+\\.js$': ['ts-jest', { diagnostics: false, tsconfig: { allowJs: true } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(github-slugger|cookie)/)'],
  // The tests' import names (tsconfig.json's paths).
  moduleNameMapper: {
    '^#src/(.*)$': '<rootDir>/src/$1',
    '^#projections/(.*)$': '<rootDir>/projections/$1',
    '^#scripts/(.*)$': '<rootDir>/scripts/$1',
    '^#bench/(.*)$': '<rootDir>/bench/$1',
    '^#support/(.*)$': '<rootDir>/test/support/$1',
  },
  testTimeout: 30000,
  // Builds dist/ once for the suites that run the real service as a child process.
  globalSetup: '<rootDir>/test/support/globalSetup.ts',
};
