/**
 * Dependency rules of chbench (`npm run check:deps`, run in CI) over every entry point: src/ (the
 * package: the worker, the CLI `src/cli.ts` with its commands in `src/cli/`), the demos (`demos/`)
 * and the fault-injection suite (`chaos/`). The layers:
 *
 * - library dirs (schema, lib, clickhouse, measure, results, temporal, cloud, process, engine) are reusable code: they never
 *   import the things built on them (activities, workflows, targets, the worker and the CLI);
 * - only the CLI imports the CLI (`src/cli.ts`, `src/cli/`);
 * - src/ is what `chbench` ships: it imports nothing outside src/ (not test/, demos/, chaos/, bench/, scripts/);
 * - demos/ run on src/, and the EKS demo on the test tree's simulated EKS (test/k8s/): nothing else of test/;
 *   chaos/ runs on src/ and the test tree's helpers and simulated EKS (test/helpers/, test/k8s/);
 *   nothing imports demos/ or chaos/;
 * - cloud/ (AWS facts, CloudWatch windows and metrics, cost) uses only schema/, lib/, the AWS SDK and zod;
 * - schema/ is the pure results and spec schema: only itself, zod, @temporalio/common and fastest-levenshtein;
 * - workflow code runs in Temporal's deterministic sandbox: at run time it may only use schema/,
 *   workflows/ and the workflow SDK (`import type` from anywhere is fine, it is erased);
 * - no cycles; src/ never needs a devDependency at run time, nor a package missing from package.json.
 *
 * @type {import('dependency-cruiser').IConfiguration}
 */
const LIBRARY = '^src/(schema|lib|clickhouse|measure|results|temporal|cloud|process|engine)/';
const ABOVE_LIBRARY = '^src/(activities|workflows|targets|cli)/|^src/(worker|cli)\\.ts$';
/** The CLI: its entry file and its commands and helpers. */
const CLI = '^src/(cli\\.ts$|cli/)';
/** Every entry point's tree: the package, the demos, the fault-injection suite. */
const ENTRY_TREES = '^(src|demos|chaos)/';

module.exports = {
  forbidden: [
    {
      name: 'library-imports-upward',
      comment:
        'Library code (schema, lib, clickhouse, measure, results, temporal) must not import activities, workflows, targets, the worker or the CLI: move the shared piece down into a library dir.',
      severity: 'error',
      from: { path: LIBRARY },
      to: { path: ABOVE_LIBRARY },
    },
    {
      name: 'cli-imported-outside-cli',
      comment:
        'The CLI (src/cli.ts and src/cli/) is an entry point: nothing else in src/ imports it. A piece the worker or a demo also needs belongs in a library dir.',
      severity: 'error',
      from: { path: '^src/', pathNot: CLI },
      to: { path: CLI },
    },
    {
      name: 'src-imports-outside-src',
      comment:
        'src/ is the package `chbench` runs: it never imports test/, demos/, chaos/, bench/ or scripts/ (move the shared piece into src/).',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|demos|chaos|bench|scripts)/' },
    },
    {
      name: 'demo-imports-beyond-src',
      comment:
        'A demo runs on src/ (and the EKS demo on the simulated EKS of test/k8s/): no other part of test/, nor chaos/, bench/ or scripts/.',
      severity: 'error',
      from: { path: '^demos/' },
      to: { path: '^(test|chaos|bench|scripts)/', pathNot: '^test/k8s/' },
    },
    {
      name: 'chaos-imports-beyond-src',
      comment:
        "The fault-injection suite runs on src/ and the test tree's helpers and simulated EKS (test/helpers/, test/k8s/): no other part of test/, nor demos/, bench/ or scripts/.",
      severity: 'error',
      from: { path: '^chaos/' },
      to: { path: '^(test|demos|bench|scripts)/', pathNot: '^test/(helpers|k8s)/' },
    },
    {
      name: 'entry-point-imported',
      comment: 'demos/ is an entry point: nothing outside it imports it.',
      severity: 'error',
      from: { pathNot: '^demos/' },
      to: { path: '^demos/' },
    },
    {
      name: 'chaos-imported',
      comment: 'chaos/ is an entry point: nothing outside it imports it.',
      severity: 'error',
      from: { pathNot: '^chaos/' },
      to: { path: '^chaos/' },
    },
    {
      name: 'cloud-imports-beyond-sdk',
      comment:
        'src/cloud is library code over the AWS SDK: it imports only src/cloud, src/schema, src/lib, @aws-sdk/* and zod (the Kubernetes and target code sits above it).',
      severity: 'error',
      from: { path: '^src/cloud/' },
      to: { pathNot: '^src/(cloud|schema|lib)/|(^|/)node_modules/(@aws-sdk/[^/]+|zod)/' },
    },
    {
      name: 'schema-not-pure',
      comment:
        'src/schema is pure types and zod schemas that workflows, activities, the report and the CLI share: it imports only src/schema, zod, @temporalio/common and fastest-levenshtein (pure edit distance, for "did you mean" in spec errors).',
      severity: 'error',
      from: { path: '^src/schema/' },
      to: { pathNot: '^(src/schema/|node_modules/(zod|@temporalio/common|fastest-levenshtein)/)' },
    },
    {
      name: 'workflow-imports-non-deterministic-value',
      comment:
        'Workflow code runs in the deterministic sandbox: values only from src/schema, src/workflows, @temporalio/workflow and @temporalio/common. Use `import type` for anything else.',
      severity: 'error',
      from: { path: '^src/workflows/' },
      to: {
        pathNot: '^(src/(schema|workflows)/|node_modules/@temporalio/(workflow|common)/)',
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'no-circular',
      comment:
        'Import cycles make load order matter and layers meaningless: break the cycle by moving the shared part into its own module.',
      severity: 'error',
      from: { path: ENTRY_TREES },
      to: { circular: true },
    },
    {
      name: 'no-dev-dependency-at-run-time',
      comment:
        'src/ is what `chbench` runs: a package it imports must be in "dependencies" (type-only imports are erased and allowed).',
      severity: 'error',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-undeclared-package',
      comment:
        'Every package src/, the demos and chaos import is declared in package.json (a transitive dependency can vanish on any install).',
      severity: 'error',
      from: { path: ENTRY_TREES },
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'not-to-unresolvable',
      comment:
        'An import that does not resolve (the CLI reads ../../package.json from dist/src/ for its version: allowed).',
      severity: 'error',
      from: { path: ENTRY_TREES },
      to: { couldNotResolve: true, pathNot: '^(\\.\\./)+package\\.json$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    // See `import type` too, so the type-only exemptions above can be told apart.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['main', 'types', 'typings'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
