// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * Module boundaries (docs/ARCHITECTURE.md, decision 0041): code outside `src/modules/<name>/` imports
 * that module only through its `index.ts`. The patterns match the import as written, so each depth
 * below a module's folder gets its own block: from `src/modules/a/x.ts`, `../b/y.ts` is module b's
 * file; from `src/modules/a/sub/x.ts` it is a's own `b/` folder and `../../b/y.ts` is module b's.
 */
const boundaryMessage = "Import another module through its index.ts (docs/ARCHITECTURE.md, 'Module boundaries').";
const intoModuleFolder = String.raw`(^|/)modules/[^/]+/(?!index\.ts$)`;
// Package entry points that cost every start far more than what we use of them (issue 19).
const heavyEntries = [
  { name: 'i18n-iso-countries', message: "Import 'i18n-iso-countries/index.js' and register the languages you need: the main entry parses about 80 languages' names at every start." },
];
const moduleBoundaries = (regexes) => ({
  'no-restricted-imports': ['error', { paths: heavyEntries, patterns: regexes.map((regex) => ({ regex, message: boundaryMessage })) }],
});
const moduleDepths = [0, 1, 2, 3, 4].map((depth) => ({
  files: [`src/modules/*/${'*/'.repeat(depth)}*.{ts,tsx}`],
  rules: moduleBoundaries([intoModuleFolder, String.raw`^(\.\./){${depth + 1}}[^./][^/]*/(?!index\.ts$)`]),
}));

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'data/', 'coverage/', 'test-artifacts/', 'src/db/migrations/', '.scratch/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      curly: ['error', 'all'],
      'no-console': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': ['error', { selector: 'ExportDefaultDeclaration', message: 'Use named exports.' }],
    },
  },
  { files: ['src/**/*.{ts,tsx}'], ignores: ['src/modules/**'], rules: moduleBoundaries([intoModuleFolder]) },
  ...moduleDepths,
  {
    files: ['src/cli.ts', 'src/cli/**', 'src/main.ts', 'bench/**', 'bin/**', 'scripts/**', 'eslint.config.js', 'drizzle.config.ts'],
    rules: { 'no-console': 'off', 'no-restricted-syntax': 'off' },
  },
);
