"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.SEARCH_ATTRIBUTES = exports.VERDICT = exports.SCHEDULE = exports.PHASE = exports.CODEC = exports.VERSION = exports.RUN_ID = void 0;
/**
 * Custom search attributes chbench sets on its workflows (registered on the dev server by the test
 * harness and the demo with `--search-attribute`, and by `chbench worker` if missing).
 */
const common_1 = require("@temporalio/common");
exports.RUN_ID = (0, common_1.defineSearchAttributeKey)('ChbenchRunId', common_1.SearchAttributeType.KEYWORD);
exports.VERSION = (0, common_1.defineSearchAttributeKey)('ChbenchVersion', common_1.SearchAttributeType.KEYWORD);
exports.CODEC = (0, common_1.defineSearchAttributeKey)('ChbenchCodec', common_1.SearchAttributeType.KEYWORD);
exports.PHASE = (0, common_1.defineSearchAttributeKey)('ChbenchPhase', common_1.SearchAttributeType.KEYWORD);
/**
 * The Temporal Schedule that started a run (its schedule id), set on every run a chbench schedule
 * starts (the schedule action's `typedSearchAttributes`); absent on runs started by hand.
 * Web UI / `temporal workflow list --query 'ChbenchSchedule="q-regress"'`.
 */
exports.SCHEDULE = (0, common_1.defineSearchAttributeKey)('ChbenchSchedule', common_1.SearchAttributeType.KEYWORD);
/**
 * A compared run's verdict against its baseline (`regression`, `improvement`, `unchanged`,
 * `unstable`), so the Web UI lists regressed runs: `ChbenchVerdict="regression"`.
 */
exports.VERDICT = (0, common_1.defineSearchAttributeKey)('ChbenchVerdict', common_1.SearchAttributeType.KEYWORD);
/** Name → type, for registration (`temporal server start-dev --search-attribute Name=Keyword`). */
exports.SEARCH_ATTRIBUTES = {
    ChbenchRunId: 'Keyword',
    ChbenchVersion: 'Keyword',
    ChbenchCodec: 'Keyword',
    ChbenchPhase: 'Keyword',
    ChbenchSchedule: 'Keyword',
    ChbenchVerdict: 'Keyword',
};
//# sourceMappingURL=search-attributes.js.map