"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.readSpecFile = readSpecFile;
/** Reading a run spec file (YAML or JSON — YAML parses both). */
const node_fs_1 = require("node:fs");
const yaml_1 = require("yaml");
/** Read and decode a spec file. @throws Error naming the file on a read or syntax error. */
function readSpecFile(file) {
    let text;
    try {
        text = (0, node_fs_1.readFileSync)(file, 'utf8');
    }
    catch (e) {
        throw new Error(`cannot read spec ${file}: ${e.code ?? e.message}`, {
            cause: e,
        });
    }
    try {
        return (0, yaml_1.parse)(text);
    }
    catch (e) {
        throw new Error(`spec ${file} is not valid YAML/JSON: ${e.message}`, { cause: e });
    }
}
//# sourceMappingURL=spec-file.js.map