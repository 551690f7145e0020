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
/**
 * Big results through `runMeasured` (the function the query step uses), on the embedded target:
 * result sizes of about 10 MB, 100 MB and 600 MB (`SELECT number, <1,000 chars> FROM numbers(n)`).
 * For each: client wall ms until the last byte, MB/s (result bytes / wall), result bytes and rows,
 * and the worker's peak RSS growth (this process, sampled every 50 ms, over its RSS just before).
 *
 * Writes bench/results/big-result.json. Run: `npm run bench:big-result`.
 * Figures depend on the machine and its load (this is a shared 2-core box): `load_average_1m`
 * is recorded next to them.
 */
const fs = __importStar(require("node:fs"));
const os = __importStar(require("node:os"));
const path = __importStar(require("node:path"));
const node_crypto_1 = require("node:crypto");
const client_1 = require("../src/clickhouse/client");
const embedded_1 = require("../src/targets/embedded");
const X1000 = 'x'.repeat(1000);
const SIZES = [
    { label: '10 MB', rows: 10_000 },
    { label: '100 MB', rows: 100_000 },
    { label: '600 MB', rows: 600_000 },
];
async function main() {
    const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chbench-bench-big-'));
    const handle = await (0, embedded_1.provisionEmbedded)({
        runId: `bench-big-${(0, node_crypto_1.randomUUID)().slice(0, 8)}`,
        cellKey: 'bench',
        version: '26.7',
        workDir,
    });
    const client = (0, client_1.connect)(handle);
    const results = [];
    try {
        for (const s of SIZES) {
            const base = process.memoryUsage.rss();
            let peak = base;
            const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 50);
            const r = await (0, client_1.runMeasured)(client, `SELECT number, '${X1000}' AS s FROM numbers(${s.rows})`, `bench-big-${s.rows}-${(0, node_crypto_1.randomUUID)()}`, { output_format_json_quote_64bit_integers: 1 });
            clearInterval(timer);
            peak = Math.max(peak, process.memoryUsage.rss());
            const row = {
                size: s.label,
                result_rows: r.result_rows,
                result_bytes: r.result_bytes,
                wall_ms: Math.round(r.wall_ms),
                mb_per_s: Number((r.result_bytes / 1e6 / (r.wall_ms / 1000)).toFixed(1)),
                worker_peak_rss_growth_mb: Number(((peak - base) / 1e6).toFixed(1)),
                load_average_1m: Number(os.loadavg()[0].toFixed(2)),
            };
            console.log(JSON.stringify(row));
            results.push(row);
        }
    }
    finally {
        await client.close();
        await (0, embedded_1.teardownEmbedded)(handle).catch(() => undefined);
        fs.rmSync(workDir, { recursive: true, force: true });
    }
    const out = path.join(__dirname, '..', '..', 'bench', 'results', 'big-result.json');
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, `${JSON.stringify({ target: 'embedded (chdb 26.7)', through: 'runMeasured (streamed, JSONCompact)', cpus: os.cpus().length, measured_at: new Date().toISOString(), results }, null, 2)}\n`);
    console.log(`wrote ${out}`);
}
main().catch((e) => {
    console.error(e);
    process.exit(1);
});
//# sourceMappingURL=big-result.js.map