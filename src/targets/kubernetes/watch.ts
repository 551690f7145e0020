/**
 * Waiting on one Kubernetes object: list it (fieldSelector `metadata.name=<name>`), then watch from
 * the list's resourceVersion with bookmarks, and decide after every change and on a tick whether the
 * wait is over. A watch is never trusted to be alive: no event and no bookmark for `silenceMs` aborts
 * it and re-lists (counted in {@link WaitStats.silentWatches}); a watch that ends (server timeout,
 * reset) or sends `ERROR` (410 Expired) re-lists too. Re-listing is the resync.
 */
import * as k8s from '@kubernetes/client-node';

/** What happened to the watches of one wait (said in heartbeats and error messages). */
export interface WaitStats {
  /** Lists made (the first, and one per resync). */
  lists: number;
  /** Watches aborted because they sent nothing (not even a bookmark) for `silenceMs`. */
  silentWatches: number;
  /** Watches that ended or failed and were restarted from a fresh list. */
  endedWatches: number;
  /** `ERROR` events received (410 Expired and others). */
  errorEvents: number;
}

/** Totals of every wait of this process (for diagnostics and tests), by the fields of {@link WaitStats}. */
export const watchTotals: WaitStats = { lists: 0, silentWatches: 0, endedWatches: 0, errorEvents: 0 };

/** Options of {@link waitForObject}. */
export interface WaitOptions<T, R> {
  kc: k8s.KubeConfig;
  /** Collection path, e.g. `/api/v1/namespaces/bench-database/pods`. */
  path: string;
  /** Object name. */
  name: string;
  /** The list call of the collection with this field selector (a typed client-node list, e.g. `listNamespacedPod`). */
  list: (fieldSelector: string) => Promise<ListBody<T>>;
  /** Abort a watch that sent nothing for this long, ms. */
  silenceMs: number;
  /** Call `decide` at least this often even without events (time-based conditions), ms. @default 500 */
  tickMs?: number;
  /**
   * Whether the wait is over: a value ends it, `undefined` waits on, a throw fails it.
   * @param obj the object now, `undefined` when it does not exist
   */
  decide: (obj: T | undefined, stats: WaitStats) => Promise<R | undefined>;
}

/** What a list call returns (the parts used). */
export interface ListBody<T> {
  items: T[];
  metadata?: { resourceVersion?: string };
}

/**
 * Wait until `decide` returns a value.
 * @throws what `decide` throws; Error when the list itself fails
 */
export async function waitForObject<T, R>(o: WaitOptions<T, R>): Promise<R> {
  const stats: WaitStats = { lists: 0, silentWatches: 0, endedWatches: 0, errorEvents: 0 };
  const watch = new k8s.Watch(o.kc);
  const fieldSelector = `metadata.name=${o.name}`;
  let current: T | undefined;

  const list = async (): Promise<string> => {
    const body = await o.list(fieldSelector);
    stats.lists++;
    watchTotals.lists++;
    current = body.items[0];
    return body.metadata?.resourceVersion ?? '';
  };

  for (;;) {
    const rv = await list();
    const first = await o.decide(current, stats);
    if (first !== undefined) return first;

    // One watch from rv; resolves 'resync' when it must be replaced, or with the decision.
    const outcome = await new Promise<{ done: R } | { error: unknown } | 'resync'>((resolve) => {
      let settled = false;
      let controller: AbortController | undefined;
      let silence: NodeJS.Timeout | undefined;
      let deciding = Promise.resolve();
      const finish = (v: { done: R } | { error: unknown } | 'resync') => {
        if (settled) return;
        settled = true;
        clearTimeout(silence);
        clearInterval(tick);
        controller?.abort();
        resolve(v);
      };
      const judge = () => {
        deciding = deciding.then(async () => {
          if (settled) return;
          try {
            const r = await o.decide(current, stats);
            if (r !== undefined) finish({ done: r });
          } catch (e) {
            finish({ error: e });
          }
        });
      };
      const armSilence = () => {
        clearTimeout(silence);
        silence = setTimeout(() => {
          stats.silentWatches++;
          watchTotals.silentWatches++;
          finish('resync');
        }, o.silenceMs);
      };
      const tick = setInterval(judge, o.tickMs ?? 500);
      armSilence();
      watch
        .watch(
          o.path,
          { fieldSelector, resourceVersion: rv, allowWatchBookmarks: true, timeoutSeconds: 300 },
          (type, obj) => {
            if (settled) return;
            armSilence();
            if (type === 'BOOKMARK') return;
            if (type === 'ERROR') {
              stats.errorEvents++;
              watchTotals.errorEvents++;
              finish('resync');
              return;
            }
            current = type === 'DELETED' ? undefined : (obj as T);
            judge();
          },
          () => {
            if (settled) return;
            stats.endedWatches++;
            watchTotals.endedWatches++;
            finish('resync');
          },
        )
        .then(
          (c) => {
            controller = c;
            if (settled) c.abort();
          },
          () => {
            stats.endedWatches++;
            watchTotals.endedWatches++;
            finish('resync');
          },
        );
    });
    if (outcome === 'resync') {
      await new Promise((r) => setTimeout(r, 100)); // a watch that keeps ending at once must not spin
      continue;
    }
    if ('error' in outcome) throw outcome.error;
    return outcome.done;
  }
}
