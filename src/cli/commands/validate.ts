/** `chbench validate <spec>`: check a run spec (exit 0 valid, 2 invalid) and say what each matrix version resolves to. */
import type { Command } from 'commander';
import { expandMatrix, cellKey, matrixAxes, wantsControl } from '../../schema/matrix';
import { verdictPlanLines } from '../../measure/verdicts';
import { RESULT_CACHE_SETTINGS } from '../../measure/cold-cycle';
import { resolveMatrixVersions } from '../../targets/versions';
import { validateFile } from '../spec';

/** Add `validate` to the chbench program. */
export function registerValidateCommand(program: Command): void {
  program
    .command('validate <spec>')
    .description(
      'validate a run spec (YAML or JSON) without running anything; say what each matrix version resolves to',
    )
    .option(
      '--json',
      'print the parsed spec with its defaults applied as JSON on stdout (the input of `temporal workflow start --type benchmarkMatrix --input`)',
    )
    .option('--versions', 'print only what each matrix version resolves to (with --json: {versions: [...]})')
    .addHelpText('after', '\nExit codes: 0 valid; 2 invalid (every problem is listed).\n')
    .action((file: string, o: { json?: boolean; versions?: boolean }) => {
      const { spec } = validateFile(file);
      // A valid spec resolves every label (the target's checkSpec refused the others).
      const versions = resolveMatrixVersions(spec.target, spec.matrix.version).flatMap((r) =>
        r.ok ? [r.resolution] : [],
      );
      if (o.versions && o.json) return console.log(JSON.stringify({ versions }));
      if (o.json) return console.log(JSON.stringify(spec));
      const lines = versions.map(
        (v) =>
          `  version ${v.label} → ${v.description}${v.limits?.length ? `\n      cannot: ${v.limits.join('; ')}` : ''}`,
      );
      if (o.versions) return console.log(lines.join('\n'));
      const cells = expandMatrix(spec, { control: wantsControl(spec) }).map(cellKey);
      console.log(
        `${file}: valid; workload ${spec.workload}, ${spec.scale} rows, target ${spec.target.kind}, ${cells.length} cell(s): ${cells.join(', ')}`,
      );
      console.log(lines.join('\n'));
      console.log(verdictPlanLines(spec, matrixAxes(spec), cells).join('\n'));
      for (const [where, q] of [
        ['settings.query', spec.settings.query] as const,
        ...(spec.matrix.settings ?? []).map((p) => [`profile ${p.name}`, p.query] as const),
      ])
        for (const k of RESULT_CACHE_SETTINGS)
          if (k in q)
            console.log(
              `  ${where}: ${k} = ${q[k]} is honoured (chbench otherwise sends 0): ${Number(q[k]) ? 'warm runs may be answered from what an earlier run cached, so warm times measure the cache; each cold run drops it first' : "the same as chbench's own value"}`,
            );
      console.log(
        '(checked on the worker when the run starts: local binaries, password variables, the kubeconfig, resource limits against the worker host (cores, cgroups), the results directory; the version each server runs is read back at provision)',
      );
    });
}
