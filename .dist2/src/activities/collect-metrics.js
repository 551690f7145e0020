"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.readDataDisk = readDataDisk;
exports.createCollectMetrics = createCollectMetrics;
/**
 * collectMetrics: snapshot the server's cumulative counters (`system.events`) and the worker host's
 * disk and CPU counters (`/proc/diskstats`, `/proc/stat`, only for a target whose capabilities say it runs on the worker's host), so a cell's
 * result can show how much was read from disk and whether a run was disk- or CPU-bound.
 * Called at the start and the end of a cell; the cell result keeps the difference.
 */
const node_path_1 = __importDefault(require("node:path"));
const node_fs_1 = require("node:fs");
const client_1 = require("../clickhouse/client");
const sql_1 = require("../lib/sql");
const node_os_1 = __importDefault(require("node:os"));
const targets_1 = require("../targets");
const store_1 = require("../results/store");
function readHost() {
    const disks = {};
    for (const line of (0, node_fs_1.readFileSync)('/proc/diskstats', 'utf8').split('\n')) {
        const f = line.trim().split(/\s+/);
        // Whole disks only (a partition's counters are already in its disk's).
        if (f.length < 14 || /^(loop|ram)/.test(f[2]) || !(0, node_fs_1.existsSync)(`/sys/block/${f[2]}`))
            continue;
        disks[f[2]] = { read_bytes: Number(f[5]) * 512, write_bytes: Number(f[9]) * 512, io_ms: Number(f[12]) };
    }
    const cpu = (0, node_fs_1.readFileSync)('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    return { host_disks: disks, host_cpu: { user: cpu[0] + cpu[1], system: cpu[2], idle: cpu[3], iowait: cpu[4] } };
}
/** A mountinfo path field: octal escapes (`\\040` for a space) decoded. */
const unescapeMount = (x) => x.replace(/\\([0-7]{3})/g, (_, o) => String.fromCharCode(parseInt(o, 8)));
/**
 * The disk and filesystem holding `dir` on this host (see {@link DataDisk} for the sources). Never
 * throws: a fact the host does not give is `null`, and `source` says why.
 * @param dir an absolute directory (the server's data directory).
 * @param root where `/proc` and `/sys` are (tests point it at a copy).
 */
function readDataDisk(dir, root = '/') {
    const none = (why) => ({
        path: dir,
        mount_point: null,
        filesystem: null,
        device: null,
        disk: null,
        disk_model: null,
        rotational: null,
        source: `not available: ${why}`,
    });
    let mounts;
    try {
        mounts = (0, node_fs_1.readFileSync)(node_path_1.default.join(root, 'proc/self/mountinfo'), 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((l) => {
            const [a, b] = l.split(' - ');
            const f = a.split(' ');
            const g = (b ?? '').split(' ');
            return { point: unescapeMount(f[4] ?? ''), fs: g[0] ?? '', source: unescapeMount(g[1] ?? '') };
        });
    }
    catch (e) {
        return none(`/proc/self/mountinfo: ${e.message}`);
    }
    let real = dir;
    try {
        real = (0, node_fs_1.realpathSync)(dir);
    }
    catch {
        /* not created yet: the path as given */
    }
    const m = mounts
        .filter((x) => real === x.point || real.startsWith(x.point.endsWith('/') ? x.point : `${x.point}/`))
        .sort((a, b) => b.point.length - a.point.length)[0];
    if (!m)
        return none(`no mount in /proc/self/mountinfo holds ${real}`);
    let disk = null;
    let model = null;
    let rotational = null;
    if (m.source.startsWith('/dev/')) {
        try {
            const name = node_path_1.default.basename((0, node_fs_1.realpathSync)(node_path_1.default.join(root, m.source.slice(1))));
            const sys = (0, node_fs_1.realpathSync)(node_path_1.default.join(root, 'sys/class/block', name));
            // A partition's sysfs directory sits inside its disk's.
            disk = (0, node_fs_1.existsSync)(node_path_1.default.join(sys, 'partition')) ? node_path_1.default.basename(node_path_1.default.dirname(sys)) : name;
            const read = (f) => {
                const p = node_path_1.default.join(root, 'sys/class/block', disk, f);
                return (0, node_fs_1.existsSync)(p) ? (0, node_fs_1.readFileSync)(p, 'utf8').trim() : null;
            };
            model = read('device/model') || null;
            const rot = read('queue/rotational');
            rotational = rot === null ? null : rot === '1';
        }
        catch {
            /* a device node this host does not show (containers): the mount facts stand alone */
        }
    }
    return {
        path: dir,
        mount_point: m.point,
        filesystem: m.fs || null,
        device: m.source || null,
        disk,
        disk_model: model,
        rotational,
        source: `/proc/self/mountinfo${disk ? `, /sys/class/block/${disk}` : ''} of the worker host`,
    };
}
/** Activity factory. */
function createCollectMetrics(deps = {}) {
    return {
        /** Take a snapshot; writes `metrics-<label>.json`. @returns the file name. */
        async collectMetrics({ cell, target }, label) {
            const client = (0, client_1.connect)(target);
            let events = null;
            let eventsSource;
            try {
                const cols = await (0, client_1.queryRows)(client, `SELECT name FROM system.columns WHERE database = 'system' AND table = ${(0, sql_1.sqlString)('events')}`);
                const nameCol = cols.some((c) => c.name === 'name') ? 'name' : 'event';
                // system.events lists only non-zero counters unless system_events_show_zero_values = 1 (newer
                // versions); with it, a counter missing from the table does not exist in this version (unknown).
                const sql = `SELECT ${nameCol} AS k, value AS v FROM system.events`;
                let zeros = true;
                const rows = await (0, client_1.queryRows)(client, sql, {
                    system_events_show_zero_values: 1,
                }).catch(() => {
                    zeros = false;
                    return (0, client_1.queryRows)(client, sql);
                });
                events = Object.fromEntries(rows.map((r) => [r.k, Number(r.v)]));
                eventsSource = `system.events (${nameCol}, value)${zeros ? ', zero values shown' : ', zero values hidden by this version: an absent counter is reported as unknown'}`;
            }
            catch (e) {
                eventsSource = `not available: ${e.message.split('\n')[0]}`;
            }
            finally {
                await client.close();
            }
            const onHost = (0, targets_1.capabilitiesOf)(target).onWorkerHost;
            let host = { host_disks: null, host_cpu: null };
            let hostSource = 'not available: server is not on the worker host';
            if (onHost) {
                try {
                    host = readHost();
                    hostSource = '/proc/diskstats and /proc/stat of the worker host (the server runs there)';
                }
                catch (e) {
                    hostSource = `not available: ${e.message}`;
                }
            }
            const snap = {
                label,
                taken_at: new Date().toISOString(),
                server_events: events,
                server_events_source: eventsSource,
                ...host,
                host_source: hostSource,
                // What else this host runs now: the load average and the other chbench servers alive here.
                ...(onHost
                    ? {
                        host_activity: {
                            at: new Date().toISOString(),
                            loadavg1: node_os_1.default.loadavg()[0],
                            otherServers: (deps.workDir ? (0, targets_1.otherChbenchServers)(deps.workDir, target) : []).map((k) => {
                                const i = k.indexOf('/');
                                return { runId: k.slice(0, i), cellKey: k.slice(i + 1) };
                            }),
                        },
                    }
                    : {}),
                // Where the server keeps its data (once, at the start): the report's environment block.
                ...(onHost && label === 'start' && target.dataDir ? { data_disk: readDataDisk(target.dataDir) } : {}),
            };
            const file = `metrics-${label}.json`;
            (0, store_1.writeJsonAtomic)(node_path_1.default.join((0, store_1.cellDir)(cell.resultsDir, cell.runId, cell.cellKey), file), snap);
            return { file };
        },
    };
}
//# sourceMappingURL=collect-metrics.js.map