"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.TargetRegistry = exports.registerTarget = exports.targets = exports.targetOf = exports.capabilitiesOf = void 0;
exports.provisionTarget = provisionTarget;
exports.teardownTarget = teardownTarget;
exports.teardownCellResources = teardownCellResources;
exports.otherChbenchServers = otherChbenchServers;
const process_1 = require("./process");
const registry_1 = require("./registry");
require("./embedded");
require("./local");
require("./external");
require("./kubernetes");
var registry_2 = require("./registry");
Object.defineProperty(exports, "capabilitiesOf", { enumerable: true, get: function () { return registry_2.capabilitiesOf; } });
Object.defineProperty(exports, "targetOf", { enumerable: true, get: function () { return registry_2.targetOf; } });
Object.defineProperty(exports, "targets", { enumerable: true, get: function () { return registry_2.targets; } });
Object.defineProperty(exports, "registerTarget", { enumerable: true, get: function () { return registry_2.registerTarget; } });
Object.defineProperty(exports, "TargetRegistry", { enumerable: true, get: function () { return registry_2.TargetRegistry; } });
/**
 * Start or reach the cell's ClickHouse. Idempotent: a retry adopts what an earlier attempt started.
 * @throws Error when the target cannot be provisioned (message says why).
 */
function provisionTarget(spec, req) {
    return (0, registry_1.targetOf)(spec).provision(spec, req);
}
/** Stop / drop whatever {@link provisionTarget} created. Idempotent. */
function teardownTarget(h) {
    return (0, registry_1.targetOf)(h).teardown(h);
}
/**
 * Tear down whatever an attempt to provision this cell may have created, without a handle — for a
 * cell whose provision failed or was cancelled before it returned one. Process targets: every
 * process and directory under `<workDir>/<run>/<cell>`; external: the cell's database.
 * Idempotent; nothing there is fine.
 * @returns one human line on what was removed
 */
function teardownCellResources(spec, req) {
    return (0, registry_1.targetOf)(spec).teardownCell(spec, req);
}
/**
 * Chbench servers other than `self` alive on this host, as `<run>/<cell>` (from the labels under
 * `workDir`). Empty when `self` is not on the worker's host (nothing here can disturb it).
 */
function otherChbenchServers(workDir, self) {
    if (!(0, registry_1.capabilitiesOf)(self).onWorkerHost)
        return [];
    return (0, process_1.listLabels)(workDir)
        .filter((l) => !(l.runId === self.runId && l.cellKey === self.cellKey) && (0, process_1.isAlive)(l.pid))
        .map((l) => `${l.runId}/${l.cellKey}`);
}
//# sourceMappingURL=index.js.map