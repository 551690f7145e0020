/**
 * Write the run spec's JSON Schema to `schema/run-spec.schema.json` (generated from the zod schema
 * in src/schema/run-spec.ts; a test fails when the committed file is stale: run `npm run schema`).
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { runSpecJsonSchema } from '../src/schema/run-spec';
import { REPO_ROOT } from '../src/config';

const file = path.join(REPO_ROOT, 'schema', 'run-spec.schema.json');
mkdirSync(path.dirname(file), { recursive: true });
writeFileSync(file, JSON.stringify(runSpecJsonSchema(), null, 2) + '\n');
console.log(file);
