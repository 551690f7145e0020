/**
 * The report's cloud sections appear only where they apply: a run whose cells have no Kubernetes
 * facts and no `cloud-metrics.json` (the recorded embedded run) renders without them. Their content
 * is checked against real collected files in test/activities/collect-cloud-metrics.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { REPO_ROOT } from '../../src/config';
import { renderReport } from '../../src/results/report';

test('no Kubernetes cell, no cloud sections', () => {
  const md = renderReport(path.join(REPO_ROOT, 'test', 'fixtures', 'results', 'embedded-26.7'));
  assert.match(md, /^## Queries$/m, 'the report rendered');
  for (const h of ['Kubernetes', 'Cloud metrics', 'Cost']) assert.doesNotMatch(md, new RegExp(`^## ${h}$`, 'm'));
});
