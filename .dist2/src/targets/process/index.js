"use strict";
var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    o[k2] = m[k];
}));
var __exportStar = (this && this.__exportStar) || function(m, exports) {
    for (var p in m) if (p !== "default" && !Object.prototype.hasOwnProperty.call(exports, p)) __createBinding(exports, m, p);
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Lifecycle of the server processes chbench starts for a cell (the embedded chdb server and a local
 * ClickHouse binary), one concern per file:
 *
 * | file                   | concern                                                                  |
 * | ---------------------- | ------------------------------------------------------------------------ |
 * | `cell-dir.ts`          | the cell directory, its label / owner / pid files, listing them          |
 * | `spawn.ts`             | detached spawning, log tails                                             |
 * | `proc.ts`              | `/proc` checks, stopping a server safely                                 |
 * | `ping.ts`              | loopback HTTP GET, waiting for `/ping`                                    |
 * | `cell-lock.ts`         | one provision attempt per cell at a time                                 |
 * | `adopt.ts`             | adopting the server of an earlier attempt                                |
 * | `provision-process.ts` | the provisioning skeleton both process targets use                       |
 * | `process-target.ts`    | teardown verbs both process targets share                                |
 *
 * Safety rules every function keeps: a pid is only signalled when `/proc/<pid>/cmdline` names the
 * cell's `dataDir`; everything listens on, and is reached through, 127.0.0.1 only. Linux only.
 */
__exportStar(require("./cell-dir"), exports);
__exportStar(require("./spawn"), exports);
__exportStar(require("./proc"), exports);
__exportStar(require("./ping"), exports);
__exportStar(require("./cell-lock"), exports);
__exportStar(require("./adopt"), exports);
__exportStar(require("./provision-process"), exports);
__exportStar(require("./process-target"), exports);
//# sourceMappingURL=index.js.map