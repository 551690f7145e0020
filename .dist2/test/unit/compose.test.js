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
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_fs_1 = require("node:fs");
const path = __importStar(require("node:path"));
const YAML = __importStar(require("yaml"));
const config_1 = require("../../src/config");
const COMPOSE_PATH = path.join(config_1.REPO_ROOT, 'docker-compose.yml');
const RAW = (0, node_fs_1.readFileSync)(COMPOSE_PATH, 'utf8');
function load() {
    const doc = YAML.parseDocument(RAW);
    strict_1.default.deepEqual(doc.errors, [], 'docker-compose.yml parses');
    return doc.toJS();
}
/** Normalises a short-syntax port (`[ip:]host:container[/proto]`) or long-syntax entry. */
function parsePort(p) {
    if (typeof p !== 'string') {
        return {
            hostIp: p.host_ip,
            published: p.published === undefined ? undefined : String(p.published),
            target: String(p.target),
        };
    }
    const bare = p.replace(/\/(tcp|udp)$/, '');
    const parts = bare.split(':');
    if (parts.length === 3)
        return { hostIp: parts[0], published: parts[1], target: parts[2] };
    if (parts.length === 2)
        return { hostIp: undefined, published: parts[0], target: parts[1] };
    return { hostIp: undefined, published: undefined, target: parts[0] };
}
function commandList(s) {
    if (Array.isArray(s.command))
        return s.command.map(String);
    return String(s.command ?? '')
        .split(/\s+/)
        .filter(Boolean);
}
function environment(s) {
    if (!s.environment)
        return {};
    if (!Array.isArray(s.environment))
        return s.environment;
    const env = {};
    for (const e of s.environment) {
        const i = e.indexOf('=');
        if (i < 0)
            env[e] = null;
        else
            env[e.slice(0, i)] = e.slice(i + 1);
    }
    return env;
}
function healthcheckText(s) {
    const t = s.healthcheck?.test;
    return Array.isArray(t) ? t.join(' ') : String(t ?? '');
}
(0, node_test_1.test)('docker-compose.yml defines the temporal and clickhouse services', () => {
    const c = load();
    strict_1.default.deepEqual(Object.keys(c.services).sort(), ['clickhouse', 'temporal']);
});
(0, node_test_1.test)('temporal: dev server image, start-dev on 0.0.0.0, ports 7233/8233 on loopback', () => {
    const t = load().services.temporal;
    strict_1.default.match(t.image, /^temporalio\/temporal(:|$)/);
    const cmd = commandList(t);
    strict_1.default.deepEqual(cmd.slice(0, 2), ['server', 'start-dev']);
    const ip = cmd.indexOf('--ip');
    strict_1.default.ok(ip >= 0 && cmd[ip + 1] === '0.0.0.0', '--ip 0.0.0.0');
    const ports = (t.ports ?? []).map(parsePort);
    strict_1.default.deepEqual(ports.map((p) => p.target).sort(), ['7233', '8233']);
    for (const p of ports) {
        strict_1.default.equal(p.hostIp, '127.0.0.1', `port ${p.target} published on loopback only`);
        strict_1.default.equal(p.published, p.target);
    }
    // Persistence: --db-filename points into a mounted named volume.
    const f = cmd.indexOf('--db-filename');
    strict_1.default.ok(f >= 0, '--db-filename set');
    const dbDir = path.posix.dirname(cmd[f + 1]);
    const mounts = (t.volumes ?? []).map((v) => (typeof v === 'string' ? v.split(':') : [v.source, v.target]));
    const m = mounts.find(([, target]) => target === dbDir);
    strict_1.default.ok(m, `a volume is mounted at ${dbDir}`);
    strict_1.default.ok(load().volumes && m[0] in (load().volumes ?? {}), `${m[0]} is a named volume`);
});
(0, node_test_1.test)('temporal: the chbench search attributes are registered as Keyword', () => {
    const cmd = commandList(load().services.temporal);
    const attrs = [];
    cmd.forEach((arg, i) => {
        if (arg === '--search-attribute')
            attrs.push(cmd[i + 1]);
        else if (arg.startsWith('--search-attribute='))
            attrs.push(arg.slice('--search-attribute='.length));
    });
    strict_1.default.deepEqual(attrs.sort(), [
        'ChbenchCodec=Keyword',
        'ChbenchPhase=Keyword',
        'ChbenchRunId=Keyword',
        'ChbenchVersion=Keyword',
    ]);
});
(0, node_test_1.test)('clickhouse: image from CLICKHOUSE_VERSION, HTTP on 127.0.0.1:8123, data volume, ulimits', () => {
    const c = load();
    const ch = c.services.clickhouse;
    strict_1.default.equal(ch.image, 'clickhouse/clickhouse-server:${CLICKHOUSE_VERSION:-26.3}');
    const ports = (ch.ports ?? []).map(parsePort);
    strict_1.default.ok(ports.some((p) => p.target === '8123'), 'HTTP 8123 published');
    for (const p of ports)
        strict_1.default.equal(p.hostIp, '127.0.0.1', `port ${p.target} published on loopback only`);
    const mounts = (ch.volumes ?? []).map((v) => (typeof v === 'string' ? v.split(':') : [v.source, v.target]));
    const data = mounts.find(([, target]) => target === '/var/lib/clickhouse');
    strict_1.default.ok(data, '/var/lib/clickhouse mounted');
    strict_1.default.ok(!data[0].startsWith('.') && !data[0].startsWith('/'), 'a named volume, not a bind mount');
    strict_1.default.ok(c.volumes && data[0] in c.volumes, `${data[0]} declared under top-level volumes`);
    strict_1.default.deepEqual(ch.ulimits?.nofile, { soft: 262144, hard: 262144 });
});
(0, node_test_1.test)('clickhouse: healthcheck runs SELECT 1 or pings over HTTP', () => {
    const ch = load().services.clickhouse;
    strict_1.default.ok(ch.healthcheck, 'healthcheck present');
    const text = healthcheckText(ch);
    strict_1.default.ok(/\bwget\b.*127\.0\.0\.1:8123\/ping/.test(text) || /clickhouse-client.*SELECT 1/.test(text), `healthcheck uses wget /ping or clickhouse-client SELECT 1: ${text}`);
    strict_1.default.ok(Array.isArray(ch.healthcheck.test) && ['CMD', 'CMD-SHELL'].includes(ch.healthcheck.test[0]));
    strict_1.default.ok(typeof ch.healthcheck.retries === 'number' && ch.healthcheck.retries > 0);
});
(0, node_test_1.test)('no literal password is committed', () => {
    const ch = load().services.clickhouse;
    const env = environment(ch);
    strict_1.default.ok('CLICKHOUSE_PASSWORD' in env, 'CLICKHOUSE_PASSWORD is passed to the server');
    const v = env.CLICKHOUSE_PASSWORD;
    strict_1.default.ok(v === null || /^\$\{CLICKHOUSE_PASSWORD(?::?[-?][^}]*)?\}$/.test(v), `CLICKHOUSE_PASSWORD comes from the environment, got ${JSON.stringify(v)}`);
    if (v !== null) {
        const dflt = /^\$\{CLICKHOUSE_PASSWORD:?-([^}]*)\}$/.exec(v);
        strict_1.default.ok(!dflt || dflt[1] === '', 'no default password');
    }
    // Nowhere in the file, in any service, is a secret-looking key given a literal value.
    for (const [name, svc] of Object.entries(load().services)) {
        for (const [k, val] of Object.entries(environment(svc))) {
            if (/PASSWORD|SECRET|TOKEN|KEY/i.test(k)) {
                strict_1.default.ok(val === null || /^\$\{[A-Z0-9_]+(?::?[-?][^}]*)?\}$/.test(val), `${name}.${k} is not a literal`);
            }
        }
    }
    // And no `--password <literal>` or `password=<literal>` slipped into commands or healthchecks.
    const code = RAW.split('\n')
        .filter((l) => !/^\s*#/.test(l))
        .join('\n')
        .replace(/\$\{[^}]*\}/g, '${}'); // an interpolation is not a literal, whatever its default syntax
    strict_1.default.doesNotMatch(code, /--password[ =](?!["']?\$)/i);
    strict_1.default.doesNotMatch(code, /password\s*[=:]\s*["']?(?!\$\{)[^\s"'$]+/i);
});
//# sourceMappingURL=compose.test.js.map