/** Every workflow the worker registers. */
export { benchmarkMatrix, matrixProgressQuery, type MatrixProgress, type MatrixResult } from './benchmark-matrix';
export { benchmarkCell, cellProgressQuery, type CellProgress } from './benchmark-cell';
export { confirmComparison } from './confirm-comparison';
export { bisectVersions, type BisectInput, type BisectResult } from './bisect-versions';
