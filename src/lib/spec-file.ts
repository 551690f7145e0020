/** Reading a run spec file (YAML or JSON — YAML parses both). */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

/** Read and decode a spec file. @throws Error naming the file on a read or syntax error. */
export function readSpecFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`cannot read spec ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, {
      cause: e,
    });
  }
  try {
    return parse(text);
  } catch (e) {
    throw new Error(`spec ${file} is not valid YAML/JSON: ${(e as Error).message}`, { cause: e });
  }
}
