"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.assertFailureType = assertFailureType;
/**
 * One assertion for typed failures: the promise rejects and an `ApplicationFailure` of `type` is in
 * the error's cause chain (a `WorkflowFailedError` → `ActivityFailure` → `ApplicationFailure`, or the
 * failure itself when an activity function is called directly).
 */
const strict_1 = __importDefault(require("node:assert/strict"));
const common_1 = require("@temporalio/common");
/**
 * Assert that `promise` rejects with a failure of `type` somewhere in its cause chain.
 * @param message when given, the failure's message must match it.
 * @returns the `ApplicationFailure` found, for further assertions (details, nonRetryable).
 */
async function assertFailureType(promise, type, message) {
    let found;
    await strict_1.default.rejects(promise, (err) => {
        const chain = [];
        for (let e = err, n = 0; e && n < 20; e = e.cause, n++) {
            chain.push(e instanceof common_1.ApplicationFailure ? `ApplicationFailure(${e.type})` : (e.name ?? typeof e));
            if (e instanceof common_1.ApplicationFailure && e.type === type) {
                found = e;
                break;
            }
        }
        strict_1.default.ok(found, `expected a failure of type ${type}; got ${chain.join(' → ')}: ${String(err?.message ?? err)}`);
        if (message)
            strict_1.default.match(found.message, message);
        return true;
    });
    return found;
}
//# sourceMappingURL=assert-failure.js.map