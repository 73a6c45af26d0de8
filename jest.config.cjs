// Three projects: pure unit tests, integration tests that boot TiddlyWiki in Node, and
// browser end-to-end tests (Chromium via playwright-core). The global setup builds the
// plugins once, so every test exercises the shipped artifacts.
const transform = {
  '^.+\\.(t|j|mj)s$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
};
const common = {
  testEnvironment: 'node',
  transform,
  moduleNameMapper: {
    '^\\$:/plugins/tiddlyagent/agent/lib\\.js$': '<rootDir>/src/agent/lib.ts',
    // UI library modules required on first use (ui/reply-extras.ts, ui/add-trigger-form.ts).
    '^\\$:/plugins/tiddlyagent/agent/ui/(.*)\\.js$': '<rootDir>/src/agent/ui/$1.ts',
    // zod's English words (store/schemas.ts): the ES module is bundled; jest, which runs CommonJS, takes its twin.
    '^zod/v4/locales/en\\.js$': '<rootDir>/node_modules/zod/v4/locales/en.cjs',
  },
  setupFiles: ['<rootDir>/test/helpers/owner-config.cjs'],
};
module.exports = {
  globalSetup: '<rootDir>/test/helpers/global-setup.cjs',
  globalTeardown: '<rootDir>/test/helpers/global-teardown.cjs',
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    { ...common, displayName: 'integration', testMatch: ['<rootDir>/test/integration/**/*.test.ts'] },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.test.ts'], testTimeout: 60000 },
    // The long variants (`npm run test:soak`): more trials, crashes and chats than `npm test` has time for.
    ...(process.env.TIDDLYAGENT_SOAK ? [{ ...common, displayName: 'soak', testMatch: ['<rootDir>/test/soak/**/*.test.ts'] }] : []),
  ],
};
