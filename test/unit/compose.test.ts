import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as YAML from 'yaml';
import { REPO_ROOT } from '../../src/config';

interface Service {
  image: string;
  command?: string[] | string;
  user?: string;
  environment?: Record<string, string | null> | string[];
  ports?: (string | { target: number; published?: string | number; host_ip?: string })[];
  volumes?: (string | { type: string; source: string; target: string })[];
  ulimits?: Record<string, number | { soft: number; hard: number }>;
  healthcheck?: { test: string[] | string; interval?: string; timeout?: string; retries?: number };
  [key: string]: unknown;
}
interface Compose {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

const COMPOSE_PATH = path.join(REPO_ROOT, 'docker-compose.yml');
const RAW = readFileSync(COMPOSE_PATH, 'utf8');

function load(): Compose {
  const doc = YAML.parseDocument(RAW);
  assert.deepEqual(doc.errors, [], 'docker-compose.yml parses');
  return doc.toJS() as Compose;
}

/** Normalises a short-syntax port (`[ip:]host:container[/proto]`) or long-syntax entry. */
function parsePort(p: string | { target: number; published?: string | number; host_ip?: string }): {
  hostIp: string | undefined;
  published: string | undefined;
  target: string;
} {
  if (typeof p !== 'string') {
    return {
      hostIp: p.host_ip,
      published: p.published === undefined ? undefined : String(p.published),
      target: String(p.target),
    };
  }
  const bare = p.replace(/\/(tcp|udp)$/, '');
  const parts = bare.split(':');
  if (parts.length === 3) return { hostIp: parts[0], published: parts[1], target: parts[2] };
  if (parts.length === 2) return { hostIp: undefined, published: parts[0], target: parts[1] };
  return { hostIp: undefined, published: undefined, target: parts[0] };
}

function commandList(s: Service): string[] {
  if (Array.isArray(s.command)) return s.command.map(String);
  return String(s.command ?? '')
    .split(/\s+/)
    .filter(Boolean);
}

function environment(s: Service): Record<string, string | null> {
  if (!s.environment) return {};
  if (!Array.isArray(s.environment)) return s.environment;
  const env: Record<string, string | null> = {};
  for (const e of s.environment) {
    const i = e.indexOf('=');
    if (i < 0) env[e] = null;
    else env[e.slice(0, i)] = e.slice(i + 1);
  }
  return env;
}

function healthcheckText(s: Service): string {
  const t = s.healthcheck?.test;
  return Array.isArray(t) ? t.join(' ') : String(t ?? '');
}

test('docker-compose.yml defines the temporal and clickhouse services', () => {
  const c = load();
  assert.deepEqual(Object.keys(c.services).sort(), ['clickhouse', 'temporal']);
});

test('temporal: dev server image, start-dev on 0.0.0.0, ports 7233/8233 on loopback', () => {
  const t = load().services.temporal;
  assert.match(t.image, /^temporalio\/temporal(:|$)/);
  const cmd = commandList(t);
  assert.deepEqual(cmd.slice(0, 2), ['server', 'start-dev']);
  const ip = cmd.indexOf('--ip');
  assert.ok(ip >= 0 && cmd[ip + 1] === '0.0.0.0', '--ip 0.0.0.0');

  const ports = (t.ports ?? []).map(parsePort);
  assert.deepEqual(ports.map((p) => p.target).sort(), ['7233', '8233']);
  for (const p of ports) {
    assert.equal(p.hostIp, '127.0.0.1', `port ${p.target} published on loopback only`);
    assert.equal(p.published, p.target);
  }

  // Persistence: --db-filename points into a mounted named volume.
  const f = cmd.indexOf('--db-filename');
  assert.ok(f >= 0, '--db-filename set');
  const dbDir = path.posix.dirname(cmd[f + 1]);
  const mounts = (t.volumes ?? []).map((v) => (typeof v === 'string' ? v.split(':') : [v.source, v.target]));
  const m = mounts.find(([, target]) => target === dbDir);
  assert.ok(m, `a volume is mounted at ${dbDir}`);
  assert.ok(load().volumes && m[0] in (load().volumes ?? {}), `${m[0]} is a named volume`);
});

test('temporal: the chbench search attributes are registered as Keyword', () => {
  const cmd = commandList(load().services.temporal);
  const attrs: string[] = [];
  cmd.forEach((arg, i) => {
    if (arg === '--search-attribute') attrs.push(cmd[i + 1]);
    else if (arg.startsWith('--search-attribute=')) attrs.push(arg.slice('--search-attribute='.length));
  });
  assert.deepEqual(attrs.sort(), [
    'ChbenchCodec=Keyword',
    'ChbenchPhase=Keyword',
    'ChbenchRunId=Keyword',
    'ChbenchVersion=Keyword',
  ]);
});

test('clickhouse: image from CLICKHOUSE_VERSION, HTTP on 127.0.0.1:8123, data volume, ulimits', () => {
  const c = load();
  const ch = c.services.clickhouse;
  assert.equal(ch.image, 'clickhouse/clickhouse-server:${CLICKHOUSE_VERSION:-26.3}');

  const ports = (ch.ports ?? []).map(parsePort);
  assert.ok(
    ports.some((p) => p.target === '8123'),
    'HTTP 8123 published',
  );
  for (const p of ports) assert.equal(p.hostIp, '127.0.0.1', `port ${p.target} published on loopback only`);

  const mounts = (ch.volumes ?? []).map((v) => (typeof v === 'string' ? v.split(':') : [v.source, v.target]));
  const data = mounts.find(([, target]) => target === '/var/lib/clickhouse');
  assert.ok(data, '/var/lib/clickhouse mounted');
  assert.ok(!data[0].startsWith('.') && !data[0].startsWith('/'), 'a named volume, not a bind mount');
  assert.ok(c.volumes && data[0] in c.volumes, `${data[0]} declared under top-level volumes`);

  assert.deepEqual(ch.ulimits?.nofile, { soft: 262144, hard: 262144 });
});

test('clickhouse: healthcheck runs SELECT 1 or pings over HTTP', () => {
  const ch = load().services.clickhouse;
  assert.ok(ch.healthcheck, 'healthcheck present');
  const text = healthcheckText(ch);
  assert.ok(
    /\bwget\b.*127\.0\.0\.1:8123\/ping/.test(text) || /clickhouse-client.*SELECT 1/.test(text),
    `healthcheck uses wget /ping or clickhouse-client SELECT 1: ${text}`,
  );
  assert.ok(Array.isArray(ch.healthcheck.test) && ['CMD', 'CMD-SHELL'].includes(ch.healthcheck.test[0]));
  assert.ok(typeof ch.healthcheck.retries === 'number' && ch.healthcheck.retries > 0);
});

test('no literal password is committed', () => {
  const ch = load().services.clickhouse;
  const env = environment(ch);
  assert.ok('CLICKHOUSE_PASSWORD' in env, 'CLICKHOUSE_PASSWORD is passed to the server');
  const v = env.CLICKHOUSE_PASSWORD;
  assert.ok(
    v === null || /^\$\{CLICKHOUSE_PASSWORD(?::?[-?][^}]*)?\}$/.test(v),
    `CLICKHOUSE_PASSWORD comes from the environment, got ${JSON.stringify(v)}`,
  );
  if (v !== null) {
    const dflt = /^\$\{CLICKHOUSE_PASSWORD:?-([^}]*)\}$/.exec(v);
    assert.ok(!dflt || dflt[1] === '', 'no default password');
  }

  // Nowhere in the file, in any service, is a secret-looking key given a literal value.
  for (const [name, svc] of Object.entries(load().services)) {
    for (const [k, val] of Object.entries(environment(svc))) {
      if (/PASSWORD|SECRET|TOKEN|KEY/i.test(k)) {
        assert.ok(val === null || /^\$\{[A-Z0-9_]+(?::?[-?][^}]*)?\}$/.test(val), `${name}.${k} is not a literal`);
      }
    }
  }
  // And no `--password <literal>` or `password=<literal>` slipped into commands or healthchecks.
  const code = RAW.split('\n')
    .filter((l) => !/^\s*#/.test(l))
    .join('\n')
    .replace(/\$\{[^}]*\}/g, '${}'); // an interpolation is not a literal, whatever its default syntax
  assert.doesNotMatch(code, /--password[ =](?!["']?\$)/i);
  assert.doesNotMatch(code, /password\s*[=:]\s*["']?(?!\$\{)[^\s"'$]+/i);
});
