/** Detached spawning and log tails: moved to `src/process/spawn.ts` (library code); re-exported here. */
export * from '../../process/spawn';
