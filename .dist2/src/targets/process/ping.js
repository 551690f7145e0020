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
exports.httpGet = httpGet;
exports.waitForPing = waitForPing;
/**
 * HTTP on loopback without connection reuse (nothing keeps the caller's event loop alive), and
 * waiting for a fresh server's `/ping`.
 */
const http = __importStar(require("node:http"));
const poll_1 = require("../../lib/poll");
const proc_1 = require("./proc");
const spawn_1 = require("./spawn");
/**
 * One HTTP GET without connection reuse (so nothing keeps the caller's event loop alive).
 * @param url absolute `http://` URL
 * @param timeoutMs abort after this many milliseconds
 * @throws Error on connection failure or timeout
 */
function httpGet(url, timeoutMs, headers = {}) {
    return new Promise((resolve, reject) => {
        const req = http.get(url, { agent: false, headers: { ...headers, connection: 'close' }, timeout: timeoutMs }, (res) => {
            const chunks = [];
            res.on('data', (c) => chunks.push(c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
            res.on('error', reject);
        });
        req.on('timeout', () => req.destroy(new Error(`GET ${url}: no answer within ${timeoutMs} ms`)));
        req.on('error', reject);
    });
}
/**
 * Poll `GET <url>/ping` until it answers `Ok.`.
 * @param url base URL of the HTTP interface
 * @param timeoutMs give up after this many milliseconds
 * @param opts.pid when given, fail as soon as this process has exited
 * @param opts.logFiles files whose tails go into the error message
 * @throws Error on timeout or when `opts.pid` exited; the message names the URL, the pid state, the
 *   last connection error and the tail of each log file
 */
async function waitForPing(url, timeoutMs, opts = {}) {
    const deadline = Date.now() + timeoutMs;
    let lastError = '';
    const fail = (exited) => {
        const state = opts.pid === undefined ? '' : exited ? ` (pid ${opts.pid} has exited)` : ` (pid ${opts.pid} still running)`;
        const why = exited ? 'server process exited before answering' : `no answer within ${timeoutMs} ms`;
        return new Error(`${url}/ping: ${why}${state}; last error: ${lastError}\n${(0, spawn_1.describeLogTail)(...(opts.logFiles ?? []))}`);
    };
    await (0, poll_1.pollUntil)(async () => {
        try {
            const r = await httpGet(`${url.replace(/\/$/, '')}/ping`, Math.max(100, Math.min(2000, deadline - Date.now())));
            if (r.status === 200 && r.body.startsWith('Ok.'))
                return true;
            lastError = `HTTP ${r.status}: ${r.body.slice(0, 200)}`;
        }
        catch (e) {
            lastError = e.message;
        }
        if (opts.pid !== undefined && !(0, proc_1.isAlive)(opts.pid))
            throw fail(true);
        return false;
    }, {
        timeoutMs,
        intervalMs: (n) => Math.min(50 * 2 ** (n - 1), 250),
        stopOn: () => true, // the check catches its own errors: only "the process exited" gets here
        onTimeout: () => fail(false),
    });
}
//# sourceMappingURL=ping.js.map