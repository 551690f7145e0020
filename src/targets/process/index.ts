/**
 * Lifecycle of the server processes chbench starts for a cell (the embedded chdb server and a local
 * ClickHouse binary), one concern per file:
 *
 * | file                   | concern                                                                  |
 * | ---------------------- | ------------------------------------------------------------------------ |
 * | `cell-dir.ts`          | the cell directory, its label / owner / pid files, listing them          |
 * | `spawn.ts`             | detached spawning, log tails (re-exported from `src/process/spawn.ts`)    |
 * | `proc.ts`              | `/proc` checks (from `src/process/proc.ts`), stopping a cell's server    |
 * | `ping.ts`              | loopback HTTP GET, waiting for `/ping` (from `src/process/http.ts`)      |
 * | `cell-lock.ts`         | one provision attempt per cell at a time                                 |
 * | `adopt.ts`             | adopting the server of an earlier attempt                                |
 * | `provision-process.ts` | the provisioning skeleton both process targets use                       |
 * | `process-target.ts`    | teardown verbs both process targets share                                |
 *
 * The generic process helpers live in `src/process/` (library code the engine launcher
 * `src/engine/launch.ts` and the results database use too); the embedded server is started by that
 * launcher. Safety rules every function keeps: a pid is only signalled when `/proc/<pid>/cmdline` names the
 * cell's `dataDir`; everything listens on, and is reached through, 127.0.0.1 only. Linux only.
 */
export * from './cell-dir';
export * from './spawn';
export * from './proc';
export * from './ping';
export * from './cell-lock';
export * from './adopt';
export * from './provision-process';
export * from './process-target';
