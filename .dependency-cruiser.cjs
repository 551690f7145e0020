/**
 * Dependency rules of chbench's src/ (`npm run check:deps`, run in CI). The layers:
 *
 * - library dirs (schema, lib, clickhouse, measure, results, temporal, cloud, process, engine) are reusable code: they never
 *   import the things built on them (activities, workflows, targets, the worker/CLI/demo entry points);
 * - cloud/ (AWS facts, CloudWatch windows and metrics, cost) uses only schema/, lib/, the AWS SDK and zod;
 * - schema/ is the pure results and spec schema: only itself, zod, @temporalio/common and fastest-levenshtein;
 * - workflow code runs in Temporal's deterministic sandbox: at run time it may only use schema/,
 *   workflows/ and the workflow SDK (`import type` from anywhere is fine, it is erased);
 * - no cycles; src/ never needs a devDependency at run time, nor a package missing from package.json.
 *
 * @type {import('dependency-cruiser').IConfiguration}
 */
const LIBRARY = '^src/(schema|lib|clickhouse|measure|results|temporal|cloud|process|engine)/';
const ABOVE_LIBRARY = '^src/(activities|workflows|targets)/|^src/(worker|cli|demo)\\.ts$';

module.exports = {
  forbidden: [
    {
      name: 'library-imports-upward',
      comment:
        'Library code (schema, lib, clickhouse, measure, results, temporal) must not import activities, workflows, targets or the entry points: move the shared piece down into a library dir.',
      severity: 'error',
      from: { path: LIBRARY },
      to: { path: ABOVE_LIBRARY },
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
      from: { path: '^src/' },
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
        'Every package src/ imports is declared in package.json (a transitive dependency can vanish on any install).',
      severity: 'error',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'not-to-unresolvable',
      comment:
        'An import that does not resolve (the CLI reads ../../package.json from dist/src/ for its version: allowed).',
      severity: 'error',
      from: { path: '^src/' },
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
