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
exports.withCellLock = withCellLock;
/** One provision attempt per cell at a time: `<dataDir>/provision.lock`, created with O_EXCL. */
const fs = __importStar(require("node:fs"));
const path = __importStar(require("node:path"));
const poll_1 = require("../../lib/poll");
const spawn_1 = require("./spawn");
/**
 * Run `fn` holding `<dataDir>/provision.lock` (created with O_EXCL), so two provision attempts for
 * the same cell (e.g. a retry racing an attempt that is still running) never start two servers: the
 * second waits, then adopts. A lock older than `staleMs` (its holder died) is broken.
 * @param dataDir the cell's directory (created if missing)
 * @param fn the work to do while holding the lock
 * @param opts.waitMs give up waiting after this many milliseconds (default 150000)
 * @param opts.staleMs lock age after which it is considered abandoned (default 120000)
 * @throws Error when the lock is still held after `waitMs`; whatever `fn` throws
 */
async function withCellLock(dataDir, fn, opts = {}) {
    const waitMs = opts.waitMs ?? 150_000;
    const staleMs = opts.staleMs ?? 120_000;
    const lock = path.join(dataDir, 'provision.lock');
    let age = 0;
    /** One try: true once the lock is ours; a lock released or broken meanwhile is tried again at once. */
    const acquire = () => {
        fs.mkdirSync(dataDir, { recursive: true });
        try {
            fs.writeFileSync(lock, `${process.pid} ${new Date().toISOString()}\n`, { flag: 'wx' });
            return true;
        }
        catch (e) {
            if (e.code !== 'EEXIST')
                throw e;
        }
        try {
            age = Date.now() - fs.statSync(lock).mtimeMs;
        }
        catch {
            return acquire(); // released meanwhile
        }
        if (age > staleMs) {
            fs.rmSync(lock, { force: true });
            return acquire();
        }
        return false;
    };
    await (0, poll_1.pollUntil)(acquire, {
        timeoutMs: waitMs,
        intervalMs: 200,
        stopOn: () => true, // file system errors other than "it exists" end the wait
        onTimeout: () => new Error(`${lock} is held by another provision attempt (${(0, spawn_1.tailFile)(lock, 200).trim()}) for ${Math.round(age / 1000)} s`),
    });
    try {
        return await fn();
    }
    finally {
        fs.rmSync(lock, { force: true });
    }
}
//# sourceMappingURL=cell-lock.js.map