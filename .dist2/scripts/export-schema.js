"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Write the run spec's JSON Schema to `schema/run-spec.schema.json` (generated from the zod schema
 * in src/schema/run-spec.ts; a test fails when the committed file is stale: run `npm run schema`).
 */
const node_fs_1 = require("node:fs");
const node_path_1 = __importDefault(require("node:path"));
const run_spec_1 = require("../src/schema/run-spec");
const config_1 = require("../src/config");
const file = node_path_1.default.join(config_1.REPO_ROOT, 'schema', 'run-spec.schema.json');
(0, node_fs_1.mkdirSync)(node_path_1.default.dirname(file), { recursive: true });
(0, node_fs_1.writeFileSync)(file, JSON.stringify((0, run_spec_1.runSpecJsonSchema)(), null, 2) + '\n');
console.log(file);
//# sourceMappingURL=export-schema.js.map