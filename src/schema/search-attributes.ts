/**
 * Custom search attributes chbench sets on its workflows (registered on the dev server by the test
 * harness and the demo with `--search-attribute`, and by `chbench worker` if missing).
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const RUN_ID = defineSearchAttributeKey('ChbenchRunId', SearchAttributeType.KEYWORD);
export const VERSION = defineSearchAttributeKey('ChbenchVersion', SearchAttributeType.KEYWORD);
export const CODEC = defineSearchAttributeKey('ChbenchCodec', SearchAttributeType.KEYWORD);
export const PHASE = defineSearchAttributeKey('ChbenchPhase', SearchAttributeType.KEYWORD);

/** Name → type, for registration (`temporal server start-dev --search-attribute Name=Keyword`). */
export const SEARCH_ATTRIBUTES: Record<string, 'Keyword'> = {
  ChbenchRunId: 'Keyword',
  ChbenchVersion: 'Keyword',
  ChbenchCodec: 'Keyword',
  ChbenchPhase: 'Keyword',
};
