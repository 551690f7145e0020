"use strict";
/** Number formats shared by the report's sections (report.md and report.html). */
Object.defineProperty(exports, "__esModule", { value: true });
exports.fmtBytes = fmtBytes;
exports.fmtMs = fmtMs;
exports.fmtInt = fmtInt;
/** Format bytes as GiB/MiB/KiB with 2 decimals. */
function fmtBytes(b) {
    if (b === null || b === undefined || !Number.isFinite(b))
        return 'n/a';
    const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let i = 0;
    let v = b;
    while (v >= 1024 && i < u.length - 1)
        [v, i] = [v / 1024, i + 1];
    return `${i === 0 ? v : v.toFixed(2)} ${u[i]}`;
}
/**
 * Format ms: 2 decimals under 10 ms, 1 under 1 s, seconds above; never finer than `resolutionMs`
 * (the source's step): whole ms for a 1 ms source, and `< 1 ms` for a value below it.
 */
function fmtMs(ms, resolutionMs = null) {
    if (ms === null || ms === undefined || !Number.isFinite(ms))
        return 'n/a';
    // Never finer than the source: below its resolution the figure is "< resolution".
    if (resolutionMs !== null && resolutionMs > 0 && ms < resolutionMs)
        return `< ${resolutionMs} ms`;
    // A source that counts whole milliseconds (query_log.query_duration_ms) is printed without decimals.
    if (resolutionMs === 1 && ms < 1000)
        return `${Math.round(ms)} ms`;
    if (ms < 10)
        return `${ms.toFixed(2)} ms`;
    if (ms < 1000)
        return `${ms.toFixed(1)} ms`;
    return `${(ms / 1000).toFixed(2)} s`;
}
/** An integer with thousands separators (en-US); `n/a` for null or non-finite. */
function fmtInt(n) {
    return n === null || n === undefined || !Number.isFinite(n) ? 'n/a' : Math.round(n).toLocaleString('en-US');
}
//# sourceMappingURL=format.js.map