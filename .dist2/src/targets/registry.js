"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.targets = exports.TargetRegistry = exports.CAPABILITY_VALUES = void 0;
exports.capabilityProblems = capabilityProblems;
exports.registerTarget = registerTarget;
exports.targetOf = targetOf;
exports.capabilitiesOf = capabilitiesOf;
const statement_watch_1 = require("../clickhouse/statement-watch");
const server_verbs_1 = require("./server-verbs");
/** The allowed values of every capability flag; `-?` makes a flag added to the interface a compile error here. */
exports.CAPABILITY_VALUES = {
    onWorkerHost: [true, false],
    canKillRunning: [true, false],
    countersWithoutQueryLog: ['system.events', 'none'],
    summaryReadSource: ['http summary', 'output statistics'],
    runningStatementsFrom: ['system.processes', 'target endpoint'],
    restartable: [true, false],
    statementArchive: [true, false],
};
/**
 * Problems of a capability set: each flag missing, out of range, or unknown.
 * @returns one line per problem (empty when complete)
 */
function capabilityProblems(c) {
    const problems = [];
    for (const [flag, allowed] of Object.entries(exports.CAPABILITY_VALUES)) {
        if (!(flag in c))
            problems.push(`capability ${flag} is not declared (allowed: ${allowed.map((v) => JSON.stringify(v)).join(', ')})`);
        else if (!allowed.includes(c[flag]))
            problems.push(`capability ${flag} = ${JSON.stringify(c[flag])} is not one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}`);
    }
    for (const flag of Object.keys(c))
        if (!(flag in exports.CAPABILITY_VALUES))
            problems.push(`capability ${flag} is unknown`);
    return problems;
}
/** A set of targets keyed by kind. The process has one ({@link targets}); tests build their own. */
class TargetRegistry {
    byKind = {};
    /**
     * Add a target.
     * @throws Error when its kind is registered already, or its capabilities are incomplete
     */
    register(t) {
        if (this.byKind[t.kind])
            throw new Error(`target kind "${t.kind}" is registered twice`);
        const problems = capabilityProblems(t.capabilities);
        if (problems.length)
            throw new Error(`target kind "${t.kind}": ${problems.join('; ')}`);
        this.byKind[t.kind] = t;
    }
    /** The target of `kind`. @throws Error when no target of that kind is registered */
    get(kind) {
        const t = this.byKind[kind];
        if (!t)
            throw new Error(`no target of kind "${kind}" is registered (registered: ${this.kinds().join(', ') || 'none'})`);
        return t;
    }
    /** The target of a kind read from unvalidated input, or `undefined`. */
    find(kind) {
        return typeof kind === 'string' && Object.prototype.hasOwnProperty.call(this.byKind, kind)
            ? this.byKind[kind]
            : undefined;
    }
    /** Registered kinds, in registration order. */
    kinds() {
        return Object.keys(this.byKind);
    }
}
exports.TargetRegistry = TargetRegistry;
/** The registry of this process. */
exports.targets = new TargetRegistry();
/** Register a target in {@link targets}. @throws Error as {@link TargetRegistry.register} */
function registerTarget(t) {
    exports.targets.register(t);
}
/** The target behind a handle or a spec. @throws Error when its kind is not registered */
function targetOf(x) {
    return exports.targets.get(x.kind);
}
/**
 * What the target behind `handle` can do (see {@link TargetCapabilities}): the target's
 * `capabilitiesFor(handle)` when it has one and `handle` is a whole handle, else its declared set.
 */
function capabilitiesOf(handle) {
    const t = targetOf(handle);
    return t.capabilitiesFor && 'url' in handle ? t.capabilitiesFor(handle) : t.capabilities;
}
// A kind whose module was not loaded (a test importing one target) is watched as a real server.
(0, statement_watch_1.useTargetVerbs)((h) => exports.targets.find(h.kind) ?? { statementProgress: server_verbs_1.progressFromProcesses, kill: server_verbs_1.killOnServer });
//# sourceMappingURL=registry.js.map