/**
 * Hosts in the report: which host ran each cell and that host's facts (`result.json` `host`, recorded
 * by the provision step on the host: node's `os` module), the hosts lost during a cell
 * (`host_losses`), and the cells whose host ran something else at the time ("host busy").
 *
 * A busy host is a note on the figures, not a cell failure: the cell's numbers are kept and the
 * report says what else the host ran, with the numbers and where they come from:
 * - the cells' own windows (`started_at` → `written_at`) and hosts: other cells of this run on the
 *   same host at once, against the spec's per-host `concurrency`;
 * - the `collect-metrics` snapshots at the cell's start and end (`host_activity`): the other chbench
 *   servers alive on the host (the host's server registry) and the 1-minute load average
 *   (`os.loadavg()[0]`) against the host's logical CPUs (`os.cpus().length`).
 *
 * Pure: reads the cell results it is given. Cells without `host` (targets not bound to a host, and
 * results written before hosts were recorded) take no part, except in the busy flags where their
 * snapshots were taken on the worker's host of a loopback server (`HostActivity.scope`).
 */
import markdownTable from 'markdown-table';
import type { HostActivity, HostFacts, HostLoss } from '../schema/host';
import type { CellResult } from '../schema/results';
import { fmtBytes } from './format';
import type { TextTable } from './report-grids';

/** The fields of a cell result this module reads. */
export type HostCell = Pick<
  CellResult,
  'runId' | 'cellKey' | 'started_at' | 'written_at' | 'host' | 'host_losses' | 'host_activity'
>;

/** A host as the report lists it. */
export interface HostSummary {
  /** `HostFacts.id`, or `HostLoss.hostId` for a host only known from a loss. */
  id: string;
  /** The facts recorded by the first cell (in the order given) that ran on the host; undefined for a host only known from a loss. */
  facts?: HostFacts;
  /** Keys of the cells the host ran (whose `host.id` is this host), in the order given. */
  cellKeys: string[];
  /** Losses of this host: the cell that lost it and the loss (`host_losses` with this `hostId`). */
  losses: { cellKey: string; loss: HostLoss }[];
}

/**
 * The hosts of a run: every host some cell ran on (`host.id`), then every host only seen lost
 * (`host_losses[].hostId`), each in order of first appearance.
 * @param cells the run's cell results, in matrix order.
 * @returns one entry per host id; empty when no cell has `host` or `host_losses`.
 */
export function hostsOf(cells: HostCell[]): HostSummary[] {
  const byId = new Map<string, HostSummary>();
  const get = (id: string) => {
    let h = byId.get(id);
    if (!h) byId.set(id, (h = { id, cellKeys: [], losses: [] }));
    return h;
  };
  for (const c of cells) {
    if (!c.host) continue;
    const h = get(c.host.id);
    h.facts ??= c.host;
    h.cellKeys.push(c.cellKey);
  }
  for (const c of cells) for (const loss of c.host_losses ?? []) get(loss.hostId).losses.push({ cellKey: c.cellKey, loss });
  return [...byId.values()];
}

/** Why a cell's host was busy. */
export type BusyKind =
  /** More cells of this run at once on the host than the per-host concurrency allows (from the cells' windows). */
  | 'overlap'
  /** A server of another run alive on the host at a snapshot. */
  | 'other-run'
  /** More servers of this run's other cells alive on the host at a snapshot than concurrency − 1. */
  | 'this-run'
  /** 1-minute load average above the host's logical CPUs at a snapshot. */
  | 'load';

/** One reason a cell is flagged "host busy". */
export interface BusyFlag {
  cellKey: string;
  hostId: string;
  kind: BusyKind;
  /** The snapshot the figure comes from (`start`/`end` of `host_activity`); absent for `overlap`. */
  snapshot?: 'start' | 'end';
  /** Plain text: what, the numbers and their source. */
  message: string;
}

/** The cell's window in epoch ms, or null without a parseable `started_at` and `written_at`. */
function windowOf(c: HostCell): { start: number; end: number } | null {
  if (!c.started_at) return null;
  const start = Date.parse(c.started_at);
  const end = Date.parse(c.written_at);
  return Number.isFinite(start) && Number.isFinite(end) && end > start ? { start, end } : null;
}

/**
 * The most other cells running at one instant during cell `c`'s window, and which cells overlapped
 * it at all. Windows are open intervals: a cell that ends exactly when another starts does not
 * overlap it.
 */
function peakOverlap(
  c: { start: number; end: number },
  others: { key: string; start: number; end: number }[],
): { peak: number; keys: string[] } {
  const over = others.filter((o) => o.start < c.end && c.start < o.end);
  // Sweep the starts and ends clipped to c's window; at one instant ends go before starts (touching is not overlapping).
  const events = over.flatMap((o) => [
    { t: Math.max(o.start, c.start), d: 1 },
    { t: Math.min(o.end, c.end), d: -1 },
  ]);
  events.sort((a, b) => a.t - b.t || a.d - b.d);
  let now = 0;
  let peak = 0;
  for (const e of events) peak = Math.max(peak, (now += e.d));
  return { peak, keys: over.map((o) => o.key) };
}

/** Keys in order, the first `max` of them, then how many more. */
function listKeys(keys: string[], max: number): string {
  return keys.slice(0, max).join(', ') + (keys.length > max ? `, … (+${keys.length - max} more)` : '');
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * The "host busy" flags of a run's cells, in cell order (within a cell: overlap, then the start
 * snapshot's, then the end snapshot's). A cell with a host is flagged when, during its window
 * `[started_at, written_at]`:
 * - (`overlap`) more other cells of this run ran at one instant on the same host than
 *   `concurrency − 1` (windows and hosts from the cells' results; cells without `started_at` neither
 *   get nor cause this flag; touching windows do not overlap; a cell that lost a host counts on its
 *   last host, `host`, for its whole window);
 * - (`other-run`) its start or end `host_activity` lists a server of another run;
 * - (`this-run`) its start or end `host_activity` lists more servers of this run's other cells than
 *   `concurrency − 1`;
 * - (`load`) its start or end `host_activity.loadavg1` exceeds the host's `cores`.
 * A cell without `host` whose snapshots carry a `scope` (the worker's host of a server on a loopback
 * URL, `external`) gets the snapshot flags (other servers, load against the `cores` recorded with
 * the snapshot) on "the worker's host", each message ending with that scope; it takes no part in overlaps.
 * @param cells the run's cell results; other cells without `host` are ignored (neither flagged nor counted).
 * @param concurrency the spec's per-host concurrency (`spec.concurrency`, cells per host at once), ≥ 1.
 */
export function busyFlags(cells: HostCell[], concurrency: number): BusyFlag[] {
  const allowed = Math.max(0, concurrency - 1);
  const hosted = cells.filter((c): c is HostCell & { host: HostFacts } => !!c.host);
  const out: BusyFlag[] = [];
  for (const c of cells) {
    // A cell without host facts whose snapshots were taken on the worker's host of a server on a
    // loopback URL (`scope`): its snapshot flags, against the cores recorded with them, labelled so.
    if (!c.host) {
      for (const snapshot of ['start', 'end'] as const) {
        const a = c.host_activity?.[snapshot];
        if (a?.scope && a.cores !== undefined) out.push(...snapshotFlags(c, snapshot, a, WORKER_HOST, a.cores, allowed, concurrency));
      }
      continue;
    }
    const hostId = c.host.id;
    const w = windowOf(c);
    if (w) {
      const others = hosted
        .filter((d) => d !== c && d.host.id === hostId)
        .flatMap((d) => {
          const dw = windowOf(d);
          return dw ? [{ key: d.cellKey, ...dw }] : [];
        });
      const { peak, keys } = peakOverlap(w, others);
      if (peak > allowed)
        out.push({
          cellKey: c.cellKey,
          hostId,
          kind: 'overlap',
          message: `${hostId} ran ${plural(peak, 'other cell', 'other cells')} of this run at once while it ran (${listKeys(keys, MAX_LISTED_CELLS)} overlapped it; per-host concurrency ${concurrency}; from the cells' started_at–written_at)`,
        });
    }
    for (const snapshot of ['start', 'end'] as const) {
      const a: HostActivity | undefined = c.host_activity?.[snapshot];
      if (a) out.push(...snapshotFlags(c, snapshot, a, hostId, c.host.cores, allowed, concurrency));
    }
  }
  return out;
}

/** The host a {@link HostActivity} with a `scope` was taken on, as the flags name it. */
const WORKER_HOST = "the worker's host";

/** The flags of one `host_activity` snapshot (other runs' servers, this run's, the load against `cores`); a `scope` is said in each message. */
function snapshotFlags(c: HostCell, snapshot: 'start' | 'end', a: HostActivity, hostId: string, cores: number, allowed: number, concurrency: number): BusyFlag[] {
  const out: BusyFlag[] = [];
  const at = `at the ${snapshot} snapshot`;
  const scope = a.scope ? ` — ${a.scope}` : '';
  const foreign = a.otherServers.filter((s) => s.runId !== c.runId);
  if (foreign.length)
    out.push({
      cellKey: c.cellKey,
      hostId,
      kind: 'other-run',
      snapshot,
      message: `${foreign.length === 1 ? 'server' : `${foreign.length} servers`} of ${foreign.map((s) => `run ${s.runId} cell ${s.cellKey}`).join(', ')} alive on ${hostId} ${at} (${a.at}; collect-metrics, the host's server registry)${scope}`,
    });
  const own = a.otherServers.filter((s) => s.runId === c.runId && s.cellKey !== c.cellKey);
  if (own.length > allowed)
    out.push({
      cellKey: c.cellKey,
      hostId,
      kind: 'this-run',
      snapshot,
      message: `${plural(own.length, 'server', 'servers')} of this run's other cells (${own.map((s) => s.cellKey).join(', ')}) alive on ${hostId} ${at}, per-host concurrency ${concurrency} (${a.at}; collect-metrics, the host's server registry)${scope}`,
    });
  if (a.loadavg1 > cores)
    out.push({
      cellKey: c.cellKey,
      hostId,
      kind: 'load',
      snapshot,
      message: `load average ${a.loadavg1.toFixed(2)} on ${plural(cores, 'core', 'cores')} of ${hostId} ${at} (${a.at}; os.loadavg()[0], 1 min; cores: os.cpus().length)${scope}`,
    });
  return out;
}

/** The flags grouped per cell, in the flags' order: `cell K: reason; reason`. Plain text. */
export function busyNotes(flags: BusyFlag[]): string[] {
  const byCell = new Map<string, string[]>();
  for (const f of flags) byCell.set(f.cellKey, [...(byCell.get(f.cellKey) ?? []), f.message]);
  return [...byCell.entries()].map(([k, ms]) => `${k}: ${ms.join('; ')}`);
}

/**
 * The headline of the busy flags for the top of the report (plain text), or null when none: how many
 * cells and which. The figures are kept; the flags qualify them.
 */
export function busyHeadline(flags: BusyFlag[]): string | null {
  const keys = [...new Set(flags.map((f) => f.cellKey))];
  if (!keys.length) return null;
  return `${plural(keys.length, 'cell', 'cells')} ran while their host ran something else (${keys.join(', ')}): their figures are kept but may be disturbed.`;
}

/** One line per host loss, plain text: `cell K: host B lost during <step> (<error>); provisioned again on host A`. */
export function hostLossNotes(cells: HostCell[]): string[] {
  return cells.flatMap((c) =>
    (c.host_losses ?? []).map(
      (l) =>
        `cell ${c.cellKey}: host ${l.hostId} lost during ${l.step} (${l.error.split('\n')[0]}); provisioned again on ${c.host ? `host ${c.host.id}` : 'another host (not recorded)'}`,
    ),
  );
}

/** Cell keys listed (per host, per overlap flag) before the rest is counted. */
export const MAX_LISTED_CELLS = 20;

/**
 * The hosts table: id, hostname, CPU model, cores, memory, kernel, cells it ran (count and keys, the
 * first {@link MAX_LISTED_CELLS}) and its losses. Facts from `HostFacts` (node's `os` module on the host).
 */
export function hostsTable(hosts: HostSummary[]): TextTable {
  return {
    head: ['host', 'hostname', 'CPU model', 'cores', 'memory', 'kernel', 'cells', 'host losses'],
    rows: hosts.map((h) => {
      const f = h.facts;
      return [
        h.id,
        f?.hostname ?? 'n/a',
        f?.cpuModel ?? 'n/a',
        f ? String(f.cores) : 'n/a',
        fmtBytes(f?.memoryBytes),
        f?.kernel ?? 'n/a',
        h.cellKeys.length ? `${h.cellKeys.length}: ${listKeys(h.cellKeys, MAX_LISTED_CELLS)}` : '0',
        h.losses.length ? h.losses.map((l) => `lost during ${l.cellKey} ${l.loss.step}`).join('; ') : 'none',
      ];
    }),
  };
}

/** Any cell records its host: the report then has a Hosts section and a host column. */
export function hasHosts(cells: HostCell[]): boolean {
  return cells.some((c) => c.host);
}

/** The Cells table's host column for a cell: its host id (and the hosts it lost), or `—` without a host. */
export function hostColumn(c: HostCell): string {
  const lost = (c.host_losses ?? []).map((l) => l.hostId);
  return `${c.host?.id ?? '—'}${lost.length ? ` (after losing ${lost.join(', ')})` : ''}`;
}

/**
 * The `## Hosts` section of report.md (markdown lines), or none when no cell has `host`: the hosts
 * table and the host losses.
 */
export function hostsSection(cells: HostCell[]): string[] {
  if (!hasHosts(cells)) return [];
  const t = hostsTable(hostsOf(cells));
  const losses = hostLossNotes(cells);
  return [
    '## Hosts',
    '',
    'The host whose worker ran each cell\'s steps (targets on the worker\'s host), with its facts as the provision step recorded them on the host (`os.hostname()`, `os.cpus()` model and count, `os.totalmem()`, `os.type()` `os.release()`). Cells whose host ran something else at the time are listed under Validity.',
    '',
    markdownTable([t.head, ...t.rows]),
    '',
    ...(losses.length ? ['Hosts lost during a cell (no worker of the host took the step within its schedule-to-start timeout):', '', ...losses.map((l) => `- ${l}`), ''] : []),
  ];
}

/** The busy flags as report.md's Validity section lists them (markdown lines), or none. */
export function busySection(flags: BusyFlag[], concurrency: number): string[] {
  const notes = busyNotes(flags);
  if (!notes.length) return [];
  return [
    `Cells whose host ran something else at the time (per-host concurrency ${concurrency}; a note on the figures, not a failure):`,
    '',
    ...notes.map((n) => `- ⚠ ${n}`),
    '',
  ];
}
