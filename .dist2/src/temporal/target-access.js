"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.handlesIn = handlesIn;
exports.prepareTargets = prepareTargets;
exports.targetAccessInbound = targetAccessInbound;
exports.targetAccessInterceptors = targetAccessInterceptors;
/** Whether `x` looks like a {@link TargetHandle} (kind, url, runId, cellKey). */
function isHandle(x) {
    const h = x;
    return (typeof h === 'object' &&
        h !== null &&
        typeof h.kind === 'string' &&
        typeof h.url === 'string' &&
        typeof h.runId === 'string' &&
        typeof h.cellKey === 'string');
}
/** The handles among an activity's arguments: each argument itself, or its `.target`. */
function handlesIn(args) {
    const out = [];
    for (const a of args) {
        if (isHandle(a))
            out.push(a);
        else if (a && typeof a === 'object' && isHandle(a.target))
            out.push(a.target);
    }
    return out;
}
/**
 * Await `prepare(handle)` of every handle in `args` whose target has one.
 * @throws what `prepare` throws (the activity then fails with it, and Temporal retries it)
 */
async function prepareTargets(args, prepareOf) {
    for (const h of handlesIn(args))
        await prepareOf(h.kind)?.(h);
}
/** The inbound interceptor: {@link prepareTargets}, then the activity. */
function targetAccessInbound(prepareOf) {
    return {
        async execute(input, next) {
            await prepareTargets(input.args, prepareOf);
            return next(input);
        },
    };
}
/** For `Worker.create({ interceptors: { activity: [targetAccessInterceptors(prepareOf)] } })`. */
function targetAccessInterceptors(prepareOf) {
    const inbound = targetAccessInbound(prepareOf);
    return () => ({ inbound });
}
//# sourceMappingURL=target-access.js.map