/** Every workflow the worker registers. */
export { benchmarkMatrix, matrixProgressQuery, type MatrixProgress, type MatrixResult } from './matrix';
export { benchmarkCell, cellProgressQuery, type CellProgress } from './cell';
