"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * The report's cloud sections appear only where they apply: a run whose cells have no Kubernetes
 * facts and no `cloud-metrics.json` (the recorded embedded run) renders without them. Their content
 * is checked against real collected files in test/activities/collect-cloud-metrics.test.ts.
 */
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_path_1 = __importDefault(require("node:path"));
const config_1 = require("../../src/config");
const report_1 = require("../../src/results/report");
(0, node_test_1.test)('no Kubernetes cell, no cloud sections', () => {
    const md = (0, report_1.renderReport)(node_path_1.default.join(config_1.REPO_ROOT, 'test', 'fixtures', 'results', 'embedded-26.7'));
    strict_1.default.match(md, /^## Queries$/m, 'the report rendered');
    for (const h of ['Kubernetes', 'Cloud metrics', 'Cost'])
        strict_1.default.doesNotMatch(md, new RegExp(`^## ${h}$`, 'm'));
});
//# sourceMappingURL=report-cloud.test.js.map