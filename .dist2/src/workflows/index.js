"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.confirmComparison = exports.cellProgressQuery = exports.benchmarkCell = exports.matrixProgressQuery = exports.benchmarkMatrix = void 0;
/** Every workflow the worker registers. */
var benchmark_matrix_1 = require("./benchmark-matrix");
Object.defineProperty(exports, "benchmarkMatrix", { enumerable: true, get: function () { return benchmark_matrix_1.benchmarkMatrix; } });
Object.defineProperty(exports, "matrixProgressQuery", { enumerable: true, get: function () { return benchmark_matrix_1.matrixProgressQuery; } });
var benchmark_cell_1 = require("./benchmark-cell");
Object.defineProperty(exports, "benchmarkCell", { enumerable: true, get: function () { return benchmark_cell_1.benchmarkCell; } });
Object.defineProperty(exports, "cellProgressQuery", { enumerable: true, get: function () { return benchmark_cell_1.cellProgressQuery; } });
var confirm_comparison_1 = require("./confirm-comparison");
Object.defineProperty(exports, "confirmComparison", { enumerable: true, get: function () { return confirm_comparison_1.confirmComparison; } });
//# sourceMappingURL=index.js.map