"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.CODECS = void 0;
exports.cellKey = cellKey;
exports.expandMatrix = expandMatrix;
exports.cellInputs = cellInputs;
var run_spec_1 = require("./run-spec");
Object.defineProperty(exports, "CODECS", { enumerable: true, get: function () { return run_spec_1.CODECS; } });
const run_spec_2 = require("./run-spec");
/**
 * Stable, readable cell key, e.g. `v26.7-zstd3`, `v18.16-lz4`, `v26.7-delta-zstd1` (`Delta, ZSTD(1)`),
 * or `v26.7-lz4-r2` for the second repetition. Used in workflow ids and file names.
 */
function cellKey(c) {
    const codec = (0, run_spec_2.codecKey)(c.codec);
    return `v${c.version}-${codec}${c.profile ? `-${c.profile}` : ''}${c.repetition ? `-r${c.repetition}` : ''}`;
}
/**
 * Expand the matrix into cells: versions outer, then codecs, settings profiles, repetitions
 * innermost, in spec order.
 */
function expandMatrix(spec) {
    const out = [];
    const n = spec.matrix.repeat ?? 1;
    const profiles = spec.matrix.settings?.map((p) => p.name) ?? [undefined];
    for (const version of spec.matrix.version)
        for (const entry of spec.matrix.codec)
            for (const profile of profiles)
                for (let r = 1; r <= n; r++)
                    out.push({
                        version,
                        codec: (0, run_spec_2.codecProfileOf)(entry).name,
                        codecProfile: (0, run_spec_2.codecProfileOf)(entry),
                        ...(profile ? { profile } : {}), ...(n > 1 ? { repetition: r } : {}),
                    });
    return out;
}
/**
 * The input of every cell of a validated spec, in matrix order (see {@link expandMatrix}).
 * @param indexQueries the selected queries that use the skip index: the index steps run only when
 *   the spec asks for the index and at least one selected query uses it.
 */
function cellInputs(spec, runId, indexQueries) {
    return expandMatrix(spec).map((c) => {
        const profile = spec.matrix.settings?.find((p) => p.name === c.profile);
        return {
            runId,
            cellKey: cellKey(c),
            version: c.version,
            codec: c.codec,
            // Only a named profile travels: a plain expression is its own profile (and the input of a 0.6.0 spec stays the same).
            ...(c.codecProfile.name !== c.codecProfile.default || Object.keys(c.codecProfile.columns).length
                ? { codecProfile: { default: c.codecProfile.default, columns: c.codecProfile.columns } }
                : {}),
            workload: spec.workload,
            scale: spec.scale,
            ...(spec.queries ? { queries: spec.queries } : {}),
            skipIndex: spec.skipIndex && indexQueries.length > 0,
            protocol: spec.protocol,
            target: spec.target,
            teardown: spec.teardown,
            resultsDir: spec.resultsDir,
            settings: profile
                ? {
                    query: { ...spec.settings.query, ...profile.query },
                    mergeTree: { ...spec.settings.mergeTree, ...profile.mergeTree },
                    optional: spec.settings.optional,
                }
                : spec.settings,
            ...(profile ? { profile: profile.name } : {}),
            ...(spec.grids ? { grids: spec.grids } : {}),
            hostLossTimeoutS: spec.hostLossTimeoutS,
        };
    });
}
//# sourceMappingURL=matrix.js.map