/** The run spec file a command is given, read and checked as `chbench validate` does. */
import { checkSpec } from '../targets/check-spec';
import { readSpecFile } from '../lib/spec-file';
import { EXIT, fail } from './exit-codes';

/**
 * Read `file` (YAML or JSON) and check it as a run spec.
 * @returns the file's content as read (`raw`) and the parsed spec with its defaults applied
 * @throws exits {@link EXIT.invalid} when the file cannot be read or the spec is refused (every problem listed)
 */
export function validateFile(file: string) {
  let raw: unknown;
  try {
    raw = readSpecFile(file);
  } catch (e) {
    fail(EXIT.invalid, (e as Error).message);
  }
  // The worker checks the rest (binaries, password variables, results directory) on its own host.
  const { spec, problems } = checkSpec(raw);
  if (!spec || problems.length) fail(EXIT.invalid, `${file}: invalid run spec:\n  - ${problems.join('\n  - ')}`);
  return { raw, spec };
}
