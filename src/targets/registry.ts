/**
 * The target registry: one {@link Target} per {@link TargetKind}. Each target module registers
 * itself when loaded (`registerTarget(embeddedTarget)` at the end of `./embedded/index.ts`), PKB
 * style. Adding a kind is not one folder alone: its folder here and one import line in `./index.ts`,
 * plus its shapes in `src/schema/` (the spec in `run-spec.ts` `TargetSpec`; the kind in `target.ts`
 * `TargetKind`, with any handle facts in its one `TargetRecord`; then `npm run schema`), and its
 * leftovers in `./gc.ts` when it leaves any (leftovers are not a Target verb).
 *
 * Registration refuses a second target of the same kind and a target whose capability flags are
 * incomplete or out of range, so an activity that asks a flag always gets a declared answer.
 *
 * Loading this module also installs the targets' verbs into the statement watch
 * (`src/clickhouse/statement-watch.ts`), which is library code and must not import targets: it
 * reads statements' progress and kills a stuck one with the verbs of the statement's target.
 */
import type { TargetCapabilities, TargetHandle, TargetKind } from '../schema/target';
import { useTargetVerbs } from '../clickhouse/statement-watch';
import { killOnServer, progressFromProcesses } from './server-verbs';
import type { Target } from './target';

/** The allowed values of every capability flag; `-?` makes a flag added to the interface a compile error here. */
export const CAPABILITY_VALUES: { [K in keyof TargetCapabilities]-?: readonly TargetCapabilities[K][] } = {
  onWorkerHost: [true, false],
  loopbackMeansWorkerHost: [true, false],
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
export function capabilityProblems(c: Partial<Record<string, unknown>>): string[] {
  const problems: string[] = [];
  for (const [flag, allowed] of Object.entries(CAPABILITY_VALUES) as [string, readonly unknown[]][]) {
    if (!(flag in c))
      problems.push(
        `capability ${flag} is not declared (allowed: ${allowed.map((v) => JSON.stringify(v)).join(', ')})`,
      );
    else if (!allowed.includes(c[flag]))
      problems.push(
        `capability ${flag} = ${JSON.stringify(c[flag])} is not one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}`,
      );
  }
  for (const flag of Object.keys(c)) if (!(flag in CAPABILITY_VALUES)) problems.push(`capability ${flag} is unknown`);
  return problems;
}

/** A set of targets keyed by kind. The process has one ({@link targets}); tests build their own. */
export class TargetRegistry {
  private readonly byKind: Partial<Record<TargetKind, Target>> = {};

  /**
   * Add a target.
   * @throws Error when its kind is registered already, or its capabilities are incomplete
   */
  register(t: Target<any>): void {
    if (this.byKind[t.kind]) throw new Error(`target kind "${t.kind}" is registered twice`);
    const problems = capabilityProblems(t.capabilities as unknown as Record<string, unknown>);
    if (problems.length) throw new Error(`target kind "${t.kind}": ${problems.join('; ')}`);
    this.byKind[t.kind] = t;
  }

  /** The target of `kind`. @throws Error when no target of that kind is registered */
  get(kind: TargetKind): Target {
    const t = this.byKind[kind];
    if (!t)
      throw new Error(`no target of kind "${kind}" is registered (registered: ${this.kinds().join(', ') || 'none'})`);
    return t;
  }

  /** The target of a kind read from unvalidated input, or `undefined`. */
  find(kind: unknown): Target | undefined {
    return typeof kind === 'string' && Object.prototype.hasOwnProperty.call(this.byKind, kind)
      ? this.byKind[kind as TargetKind]
      : undefined;
  }

  /** Registered kinds, in registration order. */
  kinds(): TargetKind[] {
    return Object.keys(this.byKind) as TargetKind[];
  }
}

/** The registry of this process. */
export const targets = new TargetRegistry();

/** Register a target in {@link targets}. @throws Error as {@link TargetRegistry.register} */
export function registerTarget(t: Target<any>): void {
  targets.register(t);
}

/** The target behind a handle or a spec. @throws Error when its kind is not registered */
export function targetOf(x: { kind: TargetKind }): Target {
  return targets.get(x.kind);
}

/**
 * What the target behind `handle` can do (see {@link TargetCapabilities}): the target's
 * `capabilitiesFor(handle)` when it has one and `handle` is a whole handle, else its declared set.
 */
export function capabilitiesOf(handle: Pick<TargetHandle, 'kind'> | TargetHandle): TargetCapabilities {
  const t = targetOf(handle);
  return t.capabilitiesFor && 'url' in handle ? t.capabilitiesFor(handle) : t.capabilities;
}

// A kind whose module was not loaded (a test importing one target) is watched as a real server.
useTargetVerbs((h) => targets.find(h.kind) ?? { statementProgress: progressFromProcesses, kill: killOnServer });
