/**
 * Custom search attributes chbench sets on its workflows (registered on the dev server by the test
 * harness and the demo with `--search-attribute`, and by `chbench worker` if missing).
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const RUN_ID = defineSearchAttributeKey('ChbenchRunId', SearchAttributeType.KEYWORD);
export const VERSION = defineSearchAttributeKey('ChbenchVersion', SearchAttributeType.KEYWORD);
export const CODEC = defineSearchAttributeKey('ChbenchCodec', SearchAttributeType.KEYWORD);
export const PHASE = defineSearchAttributeKey('ChbenchPhase', SearchAttributeType.KEYWORD);
/**
 * The Temporal Schedule that started a run (its schedule id), set on every run a chbench schedule
 * starts (the schedule action's `typedSearchAttributes`); absent on runs started by hand.
 * Web UI / `temporal workflow list --query 'ChbenchSchedule="q-regress"'`.
 */
export const SCHEDULE = defineSearchAttributeKey('ChbenchSchedule', SearchAttributeType.KEYWORD);
/**
 * A compared run's verdict against its baseline (`regression`, `improvement`, `unchanged`,
 * `unstable`), so the Web UI lists regressed runs: `ChbenchVerdict="regression"`.
 */
export const VERDICT = defineSearchAttributeKey('ChbenchVerdict', SearchAttributeType.KEYWORD);

/**
 * A bisect's attribution verdict (`bisectVersions`): `default change: <setting> <old>→<new> (<version>)`,
 * `engine code (defaults pinned, still changed)`, `could not attribute: <why>`, or why there is no bracket.
 */
export const BISECT_VERDICT = defineSearchAttributeKey('ChbenchBisectVerdict', SearchAttributeType.KEYWORD);

/**
 * Temporal's own attribute on a workflow a schedule started: the time the schedule's action was due
 * (its nominal time; for a trigger, the trigger's time). Set by the server, not registered by chbench.
 */
export const TEMPORAL_SCHEDULED_START_TIME = defineSearchAttributeKey(
  'TemporalScheduledStartTime',
  SearchAttributeType.DATETIME,
);

/** Name → type, for registration (`temporal server start-dev --search-attribute Name=Keyword`). */
export const SEARCH_ATTRIBUTES: Record<string, 'Keyword'> = {
  ChbenchRunId: 'Keyword',
  ChbenchVersion: 'Keyword',
  ChbenchCodec: 'Keyword',
  ChbenchPhase: 'Keyword',
  ChbenchSchedule: 'Keyword',
  ChbenchVerdict: 'Keyword',
  ChbenchBisectVerdict: 'Keyword',
};
