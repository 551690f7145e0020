"use strict";
var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    o[k2] = m[k];
}));
var __setModuleDefault = (this && this.__setModuleDefault) || (Object.create ? (function(o, v) {
    Object.defineProperty(o, "default", { enumerable: true, value: v });
}) : function(o, v) {
    o["default"] = v;
});
var __importStar = (this && this.__importStar) || (function () {
    var ownKeys = function(o) {
        ownKeys = Object.getOwnPropertyNames || function (o) {
            var ar = [];
            for (var k in o) if (Object.prototype.hasOwnProperty.call(o, k)) ar[ar.length] = k;
            return ar;
        };
        return ownKeys(o);
    };
    return function (mod) {
        if (mod && mod.__esModule) return mod;
        var result = {};
        if (mod != null) for (var k = ownKeys(mod), i = 0; i < k.length; i++) if (k[i] !== "default") __createBinding(result, mod, k[i]);
        __setModuleDefault(result, mod);
        return result;
    };
})();
Object.defineProperty(exports, "__esModule", { value: true });
exports.watchTotals = void 0;
exports.waitForObject = waitForObject;
/**
 * Waiting on one Kubernetes object: list it (fieldSelector `metadata.name=<name>`), then watch from
 * the list's resourceVersion with bookmarks, and decide after every change and on a tick whether the
 * wait is over. A watch is never trusted to be alive: no event and no bookmark for `silenceMs` aborts
 * it and re-lists (counted in {@link WaitStats.silentWatches}); a watch that ends (server timeout,
 * reset) or sends `ERROR` (410 Expired) re-lists too. Re-listing is the resync.
 */
const k8s = __importStar(require("@kubernetes/client-node"));
/** Totals of every wait of this process (for diagnostics and tests), by the fields of {@link WaitStats}. */
exports.watchTotals = { lists: 0, silentWatches: 0, endedWatches: 0, errorEvents: 0 };
/**
 * Wait until `decide` returns a value.
 * @throws what `decide` throws; Error when the list itself fails
 */
async function waitForObject(o) {
    const stats = { lists: 0, silentWatches: 0, endedWatches: 0, errorEvents: 0 };
    const watch = new k8s.Watch(o.kc);
    const fieldSelector = `metadata.name=${o.name}`;
    let current;
    const list = async () => {
        const body = await o.list(fieldSelector);
        stats.lists++;
        exports.watchTotals.lists++;
        current = body.items[0];
        return body.metadata?.resourceVersion ?? '';
    };
    for (;;) {
        const rv = await list();
        const first = await o.decide(current, stats);
        if (first !== undefined)
            return first;
        // One watch from rv; resolves 'resync' when it must be replaced, or with the decision.
        const outcome = await new Promise((resolve) => {
            let settled = false;
            let controller;
            let silence;
            let deciding = Promise.resolve();
            const finish = (v) => {
                if (settled)
                    return;
                settled = true;
                clearTimeout(silence);
                clearInterval(tick);
                controller?.abort();
                resolve(v);
            };
            const judge = () => {
                deciding = deciding.then(async () => {
                    if (settled)
                        return;
                    try {
                        const r = await o.decide(current, stats);
                        if (r !== undefined)
                            finish({ done: r });
                    }
                    catch (e) {
                        finish({ error: e });
                    }
                });
            };
            const armSilence = () => {
                clearTimeout(silence);
                silence = setTimeout(() => {
                    stats.silentWatches++;
                    exports.watchTotals.silentWatches++;
                    finish('resync');
                }, o.silenceMs);
            };
            const tick = setInterval(judge, o.tickMs ?? 500);
            armSilence();
            watch
                .watch(o.path, { fieldSelector, resourceVersion: rv, allowWatchBookmarks: true, timeoutSeconds: 300 }, (type, obj) => {
                if (settled)
                    return;
                armSilence();
                if (type === 'BOOKMARK')
                    return;
                if (type === 'ERROR') {
                    stats.errorEvents++;
                    exports.watchTotals.errorEvents++;
                    finish('resync');
                    return;
                }
                current = type === 'DELETED' ? undefined : obj;
                judge();
            }, () => {
                if (settled)
                    return;
                stats.endedWatches++;
                exports.watchTotals.endedWatches++;
                finish('resync');
            })
                .then((c) => {
                controller = c;
                if (settled)
                    c.abort();
            }, () => {
                stats.endedWatches++;
                exports.watchTotals.endedWatches++;
                finish('resync');
            });
        });
        if (outcome === 'resync') {
            await new Promise((r) => setTimeout(r, 100)); // a watch that keeps ending at once must not spin
            continue;
        }
        if ('error' in outcome)
            throw outcome.error;
        return outcome.done;
    }
}
//# sourceMappingURL=watch.js.map