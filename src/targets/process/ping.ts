/** Loopback HTTP GET and waiting for `/ping`: moved to `src/process/http.ts` (library code); re-exported here. */
export * from '../../process/http';
