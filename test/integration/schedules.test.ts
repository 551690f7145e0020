/**
 * chbench on Temporal Schedules, against a real dev server and a real worker (embedded target,
 * the `trivial` workload): a schedule is created with a cron that does not fire during the test,
 * describe/list show it, two quick triggers under SKIP start one run (the second is skipped while
 * the first runs), each run carries `ChbenchSchedule=<id>` and its own workflow id
 * `<id>-<time>`, pause/unpause keep their note, the stored spec is replaced (a bad one refused
 * with the schedule unchanged), delete removes it; a bad spec is refused before anything is
 * created. The CLI (`node dist/src/cli.js schedule …`) is run as a child process for
 * create/list/describe/trigger/delete and its exit codes.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ScheduleNotFoundError } from '@temporalio/client';
import { runCliToEnd } from '../helpers/cli-process';
import { startTemporalEnv, type TemporalEnv } from '../helpers/temporal-env';
import { checkSpec } from '../../src/targets/check-spec';
import { SCHEDULE } from '../../src/schema/search-attributes';
import { pollUntil } from '../../src/lib/poll';
import type { MatrixResult } from '../../src/schema/progress';
import { TypedSearchAttributes } from '@temporalio/common';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { runIdOfWorkflowId } from '../../src/schema/run-id';
import { assertFailureType } from '../helpers/assert-failure';
import { createWorker } from '../../src/worker';
import { TEMPORAL_SCHEDULED_START_TIME } from '../../src/schema/search-attributes';

/** The ChbenchSchedule value the schedule's action sets (describe returns a TypedSearchAttributes). */
async function actionScheduleAttribute(id: string): Promise<string | undefined> {
  const a = (await env.client.schedule.getHandle(id).describe()).action.typedSearchAttributes;
  assert.ok(a instanceof TypedSearchAttributes, 'describe returns TypedSearchAttributes');
  return a.get(SCHEDULE);
}
import {
  createSchedule,
  deleteSchedule,
  describeSchedule,
  listScheduledRuns,
  listSchedules,
  pauseSchedule,
  ScheduleSpecInvalidError,
  triggerSchedule,
  triggerScheduleObserved,
  unpauseSchedule,
  UnknownScheduleError,
  updateScheduleSpec,
  type ScheduleView,
} from '../../src/temporal/schedules';

let env: TemporalEnv;
before(async () => {
  env = await startTemporalEnv('schedules');
});
after(async () => {
  await env?.stop();
});

/** A one-cell run of the trivial workload; quiesce holds the run open ≥ 4 s so a second trigger overlaps it. */
const spec = (name = 'sched-trivial') => ({
  name,
  workload: 'trivial',
  scale: 20_000,
  target: { kind: 'embedded' },
  matrix: { version: ['26.7'], codec: ['LZ4'] },
  skipIndex: false,
  protocol: { coldRuns: 1, warmRuns: 1, quiesce: { stableForMs: 4000, pollMs: 200 } },
  resultsDir: env.resultsDir,
});

/** Fires on 1 January at 03:00 UTC only: never during a test run (outside that one minute a year). */
const CRON_NEVER_NOW = '0 3 1 1 *';
/** A workflow id of a scheduled run: `<scheduleId>-<RFC 3339 time to the second>`. */
const runIdOf = (id: string) => new RegExp(`^${id}-\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ$`);

async function describeUntil(id: string, ok: (v: ScheduleView) => boolean, what: string): Promise<ScheduleView> {
  let v: ScheduleView | undefined;
  await pollUntil(
    async () => {
      v = await describeSchedule(env.client, id);
      return ok(v);
    },
    { timeoutMs: 60_000, intervalMs: 200, what },
  );
  return v!;
}

test('a bad spec is refused before anything is created', async () => {
  const id = 'sched-bad';
  const bad = { ...spec(), scale: -1, workload: 'no-such-workload' };
  await assert.rejects(
    createSchedule(env.client, {
      scheduleId: id,
      spec: bad,
      check: checkSpec,
      when: { cron: CRON_NEVER_NOW },
      taskQueue: env.taskQueue,
    }),
    (e: unknown) => e instanceof ScheduleSpecInvalidError && e.problems.some((p) => /scale/.test(p)),
  );
  await assert.rejects(env.client.schedule.getHandle(id).describe(), ScheduleNotFoundError);
  assert.ok(!(await listSchedules(env.client)).some((r) => r.scheduleId === id));
});

test('schedule lifecycle: create, describe, list, trigger twice under SKIP, runs carry ChbenchSchedule, pause, update, delete', async () => {
  const id = 'q-sched';
  await createSchedule(env.client, {
    scheduleId: id,
    spec: spec(),
    check: checkSpec,
    when: { cron: CRON_NEVER_NOW, jitter: '1m' },
    taskQueue: env.taskQueue,
    catchupWindow: '1d',
    note: 'created by the schedules test',
  });

  // describe: the stored spec, policies, next run (1 January 03:00 UTC, plus at most 1 min of jitter).
  const d = await describeSchedule(env.client, id);
  assert.equal(d.spec?.name, 'sched-trivial');
  assert.equal(d.spec?.cells, 1);
  assert.deepEqual(d.rawSpec, spec());
  assert.deepEqual(d.action, { workflowType: 'benchmarkMatrix', taskQueue: env.taskQueue, workflowId: id });
  assert.equal(d.policies.overlap, 'skip');
  assert.equal(d.policies.catchupWindowMs, 86_400_000);
  assert.equal(d.when.jitterMs, 60_000);
  assert.deepEqual(
    d.when.calendars,
    ['month JANUARY; dayOfMonth 1; hour 3; minute 0'],
    'the cron, as the server compiled it',
  );
  assert.equal(d.paused, false);
  assert.equal(d.note, 'created by the schedules test');
  assert.equal(d.actionsTaken, 0);
  const next = d.next[0];
  assert.ok(next && next.getUTCMonth() === 0 && next.getUTCDate() === 1 && next.getUTCHours() === 3, String(next));
  assert.equal(await actionScheduleAttribute(id), id);

  // list: id, spec name, next run, not paused, nothing running.
  const row = (await listSchedules(env.client)).find((r) => r.scheduleId === id);
  assert.deepEqual(
    { ...row, next: row?.next?.toISOString() },
    {
      scheduleId: id,
      specName: 'sched-trivial',
      workflowType: 'benchmarkMatrix',
      next: next.toISOString(),
      paused: false,
      running: [],
    },
  );

  // Two triggers at once under the schedule's SKIP policy: one run, one skip.
  assert.equal(await triggerSchedule(env.client, id), 'SKIP');
  assert.equal(await triggerSchedule(env.client, id), 'SKIP');
  const afterTwo = await describeUntil(
    id,
    (v) => v.actionsTaken + v.skippedOverlap >= 2,
    'both triggers processed by the schedule',
  );
  assert.equal(afterTwo.actionsTaken, 1, 'one run started');
  assert.equal(afterTwo.skippedOverlap, 1, 'the second trigger was skipped while the first run was running');
  assert.equal(afterTwo.recent.length, 1);
  const first = afterTwo.recent[0].workflowId;
  assert.match(first, runIdOf(id));
  assert.deepEqual(afterTwo.running, [first]);
  // A trigger while that run runs is seen as skipped (the schedule's skipped-by-overlap counter went up).
  assert.deepEqual(await triggerScheduleObserved(env.client, id), {
    policy: 'SKIP',
    outcome: 'skipped',
    paused: false,
  });

  // The run executes on the worker; its run id is its workflow id made folder-safe (':' as '_'), and it carries ChbenchSchedule.
  const r1 = (await env.client.workflow.getHandle(first).result()) as MatrixResult;
  assert.equal(r1.runId, first.replace(/:/g, '_'));
  assert.equal(r1.status, 'completed');
  assert.deepEqual(
    r1.cells.map((c) => c.status),
    ['succeeded'],
  );
  assert.equal((await env.client.workflow.getHandle(first).describe()).typedSearchAttributes.get(SCHEDULE), id);

  // Once it is closed, a trigger (the CLI's, on the paused schedule) starts a second run with its own workflow id (a later second).
  await new Promise((r) => setTimeout(r, 1100));
  await pauseSchedule(env.client, id, 'trigger while paused');
  const trig = await cli('trigger', id);
  assert.equal(trig.code, 0, trig.stderr);
  assert.match(trig.stderr, /started .*\(overlap skip\); paused; the trigger still starts a run/);
  await unpauseSchedule(env.client, id);
  const afterThird = await describeUntil(id, (v) => v.actionsTaken >= 2, 'the third trigger started a run');
  assert.equal(afterThird.skippedOverlap, 2);
  // A CLI trigger on the paused schedule while that run runs is skipped (exit 5), and the message does not also claim a run starts.
  await pauseSchedule(env.client, id, 'trigger while paused and running');
  const skip = await cli('trigger', id);
  await unpauseSchedule(env.client, id);
  assert.equal(skip.code, 5, skip.stderr);
  assert.match(
    skip.stderr,
    /skipped: a run of this schedule is still running \(overlap skip\); the schedule is also paused/,
  );
  assert.doesNotMatch(skip.stderr, /still starts a run/);
  const second = afterThird.recent[1].workflowId;
  assert.equal(trig.stdout.trim(), second, 'the CLI prints the workflow id it started');
  assert.match(second, runIdOf(id));
  assert.notEqual(second, first);
  assert.equal(
    ((await env.client.workflow.getHandle(second).result()) as MatrixResult).runId,
    runIdOfWorkflowId(second),
  );
  const done = await describeUntil(id, (v) => v.recent.every((a) => a.status === 'COMPLETED'), 'both runs completed');
  assert.deepEqual(
    done.recent.map((a) => a.workflowId),
    [first, second],
  );

  // Visibility: the list query ChbenchSchedule="<id>" finds exactly these two runs (newest first).
  let runs: Awaited<ReturnType<typeof listScheduledRuns>> = [];
  await pollUntil(
    async () => {
      runs = await listScheduledRuns(env.client, id, { status: 'Completed' });
      return runs.length === 2;
    },
    { timeoutMs: 30_000, intervalMs: 250, what: 'visibility lists both scheduled runs' },
  );
  assert.deepEqual(
    runs.map((r) => r.workflowId),
    [second, first],
  );
  const viaQuery = [];
  for await (const w of env.client.workflow.list({ query: `ChbenchSchedule = "${id}"` })) viaQuery.push(w.workflowId);
  assert.deepEqual(viaQuery.sort(), [first, second].sort(), 'cell child workflows do not carry the attribute');

  // pause / unpause with notes.
  await pauseSchedule(env.client, id, 'quarter freeze');
  let v = await describeSchedule(env.client, id);
  assert.deepEqual([v.paused, v.note], [true, 'quarter freeze']);
  await unpauseSchedule(env.client, id, 'freeze over');
  v = await describeSchedule(env.client, id);
  assert.deepEqual([v.paused, v.note], [false, 'freeze over']);

  // update: a bad spec is refused and the stored one kept; a good one replaces it, the rest is kept.
  await assert.rejects(
    updateScheduleSpec(env.client, id, { ...spec('slowdown'), matrix: { version: [], codec: ['LZ4'] } }, checkSpec),
    ScheduleSpecInvalidError,
  );
  assert.equal((await describeSchedule(env.client, id)).spec?.name, 'sched-trivial');
  await updateScheduleSpec(env.client, id, spec('slowdown'), checkSpec);
  v = await describeSchedule(env.client, id);
  assert.equal(v.spec?.name, 'slowdown');
  assert.deepEqual(v.rawSpec, spec('slowdown'));
  assert.equal(v.policies.overlap, 'skip');
  assert.equal(v.policies.catchupWindowMs, 86_400_000);
  assert.equal(v.note, 'freeze over');
  assert.equal(await actionScheduleAttribute(id), id, 'the updated action still sets ChbenchSchedule');

  // delete; the schedule's runs stay.
  await deleteSchedule(env.client, id);
  await assert.rejects(describeSchedule(env.client, id), UnknownScheduleError);
  assert.equal((await env.client.workflow.getHandle(first).describe()).status.name, 'COMPLETED');
});

test("a scheduled run has one id (folder, run.json, cells); resume and report given its folder name act on the run's real workflow", async () => {
  const id = 'q-ids';
  await createSchedule(env.client, {
    scheduleId: id,
    spec: spec('sched-ids'),
    check: checkSpec,
    when: { cron: CRON_NEVER_NOW },
    taskQueue: env.taskQueue,
  });
  try {
    await triggerSchedule(env.client, id);
    const v = await describeUntil(id, (x) => x.recent.length === 1, 'the trigger started a run');
    const workflowId = v.recent[0].workflowId;
    assert.match(workflowId, runIdOf(id));
    const r = (await env.client.workflow.getHandle(workflowId).result()) as MatrixResult;
    // One id: the folder's name, run.json's runId, the cells' workflow ids; run.json keeps the workflow id.
    const folder = workflowId.replace(/:/g, '_');
    assert.equal(r.runId, folder);
    const dir = path.join(env.resultsDir, folder);
    const run = JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8'));
    assert.equal(run.runId, folder);
    assert.equal(run.workflowId, workflowId);
    // A worker was polling: the run started on time (well under the 60 s threshold), and says when it was
    // due (TemporalScheduledStartTime is the schedule's due time to the whole second).
    assert.equal(
      run.scheduled_start,
      new Date(Math.floor(v.recent[0].scheduledAt.getTime() / 1000) * 1000).toISOString(),
    );
    assert.equal(run.late, false, `lateness ${run.start_lateness_ms} ms`);
    assert.equal(r.cells[0].resultFile, path.join(dir, 'cells', 'v26.7-lz4', 'result.json'));
    assert.equal(JSON.parse(readFileSync(r.cells[0].resultFile, 'utf8')).runId, folder);
    assert.equal(
      (await env.client.workflow.getHandle(`${folder}/v26.7-lz4`).describe()).status.name,
      'COMPLETED',
      "the cell's child workflow is <run id>/<cellKey>",
    );

    // A cell to measure again, then `chbench resume <folder name>`: the schedule's workflow runs again.
    rmSync(path.join(dir, 'cells', 'v26.7-lz4'), { recursive: true, force: true });
    const resumed = await cliRun('resume', folder, '--results-dir', env.resultsDir);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stderr, new RegExp(`resuming ${folder} \\(workflow ${workflowId}\\)`));
    assert.equal(
      await env.client.workflow
        .getHandle(folder)
        .describe()
        .then((d) => d.status.name)
        .catch(() => 'NOT_FOUND'),
      'NOT_FOUND',
      'no new workflow was started under the folder name',
    );
    const executions: string[] = [];
    for await (const w of env.client.workflow.list({ query: `WorkflowId = '${workflowId}'` }))
      executions.push(w.status.name);
    assert.deepEqual(executions, ['COMPLETED', 'COMPLETED'], 'the run workflow itself ran a second time');
    const after = JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8'));
    assert.deepEqual([after.runId, after.workflowId, after.resumes.length], [folder, workflowId, 1]);
    assert.equal(JSON.parse(readFileSync(r.cells[0].resultFile, 'utf8')).status, 'succeeded');

    // A workflow started by hand under the folder's name is refused: the folder holds the scheduled run.
    await assertFailureType(
      env.client.workflow.execute('benchmarkMatrix', {
        taskQueue: env.taskQueue,
        workflowId: folder,
        args: [spec('sched-ids')],
      }),
      'InvalidSpec',
      new RegExp(`holds run ${folder} of workflow ${workflowId}, not of workflow ${folder}`),
    );

    // report: the folder name and the workflow id both render the run's report in its folder.
    for (const given of [folder, workflowId]) {
      const rep = await cliRun('report', given, '--results-dir', env.resultsDir);
      assert.equal(rep.code, 0, rep.stderr);
      assert.equal(rep.stdout.split('\n')[0], path.join(dir, 'report.md'));
    }
    assert.ok(existsSync(path.join(dir, 'report.html')));
  } finally {
    await deleteSchedule(env.client, id).catch(() => undefined);
  }
});

test('a scheduled run that waited for a worker records its due time and lateness and is flagged late in run.json and the report', async () => {
  const id = 'q-late';
  // A task queue no worker polls yet: the triggered run waits there until the worker below starts.
  const queue = `${env.taskQueue}-late`;
  const DELAY_MS = 5000;
  const prevThreshold = process.env.CHBENCH_LATE_START_MS;
  process.env.CHBENCH_LATE_START_MS = '2000';
  await createSchedule(env.client, {
    scheduleId: id,
    spec: spec('sched-late'),
    check: checkSpec,
    when: { cron: CRON_NEVER_NOW },
    taskQueue: queue,
  });
  let worker: Awaited<ReturnType<typeof createWorker>> | undefined;
  let running: Promise<void> | undefined;
  try {
    await triggerSchedule(env.client, id);
    const v = await describeUntil(id, (x) => x.recent.length === 1, 'the trigger started a run');
    const workflowId = v.recent[0].workflowId;
    const due = (await env.client.workflow.getHandle(workflowId).describe()).typedSearchAttributes.get(
      TEMPORAL_SCHEDULED_START_TIME,
    );
    assert.ok(due instanceof Date, 'the server set TemporalScheduledStartTime on the run');
    // The worker comes up DELAY_MS after the run was due.
    await new Promise((r) => setTimeout(r, Math.max(0, due.getTime() + DELAY_MS - Date.now())));
    worker = await createWorker({
      temporalAddress: env.server.address,
      namespace: 'default',
      taskQueue: queue,
      workDir: env.workDir,
    });
    running = worker.worker.run();
    const r = (await env.client.workflow.getHandle(workflowId).result()) as MatrixResult;
    assert.equal(r.status, 'completed');
    const dir = path.join(env.resultsDir, r.runId);
    const run = JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8'));
    assert.equal(run.scheduled_start, due.toISOString(), 'run.json scheduled_start = TemporalScheduledStartTime');
    assert.equal(run.start_lateness_ms, Date.parse(run.startedAt) - due.getTime(), 'lateness = startedAt − due');
    assert.ok(run.start_lateness_ms >= DELAY_MS, `lateness ${run.start_lateness_ms} ms ≥ ${DELAY_MS} ms`);
    assert.equal(run.late, true);

    const md = readFileSync(path.join(dir, 'report.md'), 'utf8');
    const line = `Scheduled for ${run.scheduled_start}, started ${run.startedAt} (${(run.start_lateness_ms / 1000).toFixed(1)} s late)`;
    assert.ok(md.includes(line), `report.md has "${line}":\n${md.slice(0, 800)}`);
    assert.match(md, /> \*\*⚠ Started late: \d+\.\d s after its scheduled time/);
    const html = readFileSync(path.join(dir, 'report.html'), 'utf8');
    assert.ok(html.includes(line), 'report.html has the same start line');
    assert.match(html, /<strong>⚠ Started late: /);
  } finally {
    if (prevThreshold === undefined) delete process.env.CHBENCH_LATE_START_MS;
    else process.env.CHBENCH_LATE_START_MS = prevThreshold;
    worker?.worker.shutdown();
    await running?.catch(() => undefined);
    await worker?.connection.close();
    await deleteSchedule(env.client, id).catch(() => undefined);
  }
});

test('a JSON calendar and an interval, created paused: describe shows them as given', async () => {
  const id = 'cal-json';
  await createSchedule(env.client, {
    scheduleId: id,
    spec: spec(),
    check: checkSpec,
    when: { calendar: '{"month":["JANUARY","JULY"],"dayOfMonth":1,"hour":4}', every: '90d', timezone: 'Europe/Paris' },
    taskQueue: env.taskQueue,
    overlap: 'BUFFER_ONE',
    paused: true,
  });
  const v = await describeSchedule(env.client, id);
  assert.deepEqual(v.when, {
    calendars: ['month JANUARY,JULY; dayOfMonth 1; hour 4; minute 0'],
    intervals: [90 * 86_400_000],
    timezone: 'Europe/Paris',
  });
  assert.equal(v.policies.overlap, 'buffer-one');
  assert.equal(v.paused, true);
  await deleteSchedule(env.client, id);
});

test('unknown schedule ids give UnknownScheduleError', async () => {
  for (const op of [
    () => describeSchedule(env.client, 'nope'),
    () => triggerSchedule(env.client, 'nope'),
    () => pauseSchedule(env.client, 'nope'),
    () => deleteSchedule(env.client, 'nope'),
    () => updateScheduleSpec(env.client, 'nope', spec(), checkSpec),
  ])
    await assert.rejects(
      op(),
      (e: unknown) => e instanceof UnknownScheduleError && /no schedule "nope"/.test(e.message),
    );
});

/** `chbench schedule …` as a user runs it; resolves with the exit code and both streams. */
async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return cliRun('schedule', ...args);
}

/** `chbench <args>` as a child process against this file's Temporal server and task queue. */
function cliRun(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCliToEnd(args, {
    TEMPORAL_ADDRESS: env.server.address,
    TEMPORAL_NAMESPACE: 'default',
    CHBENCH_TASK_QUEUE: env.taskQueue,
  });
}

test('CLI: create, list, describe, pause, delete; exit codes for a bad spec, an unknown id and no Temporal', async () => {
  const file = path.join(env.tmp, 'cli-spec.json');
  writeFileSync(file, JSON.stringify(spec('cli-quarterly')));
  const badFile = path.join(env.tmp, 'bad-spec.json');
  writeFileSync(badFile, JSON.stringify({ ...spec(), target: { kind: 'nowhere' } }));

  const bad = await cli('create', 'cli-bad', '--spec', badFile, '--calendar', 'quarterly');
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /invalid run spec[\s\S]*target[\s\S]*nothing was changed/);
  assert.equal((await cli('describe', 'cli-bad')).code, 2);

  const noWhen = await cli('create', 'cli-q', '--spec', file);
  assert.equal(noWhen.code, 2);
  assert.match(noWhen.stderr, /--calendar .*--cron .*--every/);

  const created = await cli('create', 'cli-q', '--spec', file, '--calendar', 'quarterly', '--overlap', 'buffer-one');
  assert.equal(created.code, 0, created.stderr);
  assert.equal(created.stdout.trim(), 'cli-q');
  const again = await cli('create', 'cli-q', '--spec', file, '--every', '90d');
  assert.equal(again.code, 2);
  assert.match(again.stderr, /already exists/);

  const list = await cli('list');
  assert.equal(list.code, 0, list.stderr);
  const line = list.stdout.split('\n').find((l) => l.startsWith('cli-q '));
  assert.ok(line, list.stdout);
  assert.match(line, /cli-quarterly\s+\d{4}-(01|04|07|10)-01T03:00:00Z\s+no\s+-$/);
  const json = JSON.parse((await cli('list', '--json')).stdout) as { scheduleId: string; specName: string }[];
  assert.equal(json.find((r) => r.scheduleId === 'cli-q')?.specName, 'cli-quarterly');

  const desc = await cli('describe', 'cli-q');
  assert.equal(desc.code, 0, desc.stderr);
  assert.match(desc.stdout, /spec: cli-quarterly, workload trivial, 20,000 rows, target embedded, 1 cell/);
  assert.match(desc.stdout, /when: quarterly: the 1st of January, April, July and October at 03:00/);
  assert.match(desc.stdout, /overlap buffer-one/);

  assert.equal((await cli('pause', 'cli-q', '--note', 'on hold')).code, 0);
  assert.match((await cli('describe', 'cli-q')).stdout, /schedule cli-q \(paused\): on hold/);

  const unknown = await cli('trigger', 'nope');
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /no schedule "nope" in namespace default/);

  const del = await cli('delete', 'cli-q');
  assert.equal(del.code, 0, del.stderr);
  assert.ok(!(await cli('list')).stdout.includes('cli-q'));

  // Options Temporal refuses (INVALID_ARGUMENT) or chbench refuses first, bad ids and statuses: exit 2, one clear line.
  for (const [args, msg] of [
    [['--every', '0d'], /--every "0d": the interval must be at least 1s/],
    [['--cron', '61 3 * * *'], /Temporal refused an option: /],
    [['--cron', '0 3 * * *', '--timezone', 'Mars/Olympus'], /--timezone "Mars\/Olympus" is not an IANA time zone/],
  ] as const) {
    const r = await cli('create', 'cli-opt', '--spec', file, ...args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, msg);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  }
  const slash = await cli('create', 'q1/x', '--spec', file, '--every', '90d');
  assert.equal(slash.code, 2);
  assert.match(slash.stderr, /schedule id "q1\/x": .*no '\/'/);
  const status = await cli('runs', 'q1', '--status', 'Done');
  assert.equal(status.code, 2);
  assert.match(
    status.stderr,
    /--status "Done": one of Running, Completed, Failed, Canceled, Terminated, ContinuedAsNew, TimedOut/,
  );

  const down = await cli('--address', '127.0.0.1:1', 'list');
  assert.equal(down.code, 3);
  assert.match(down.stderr, /cannot reach Temporal at 127\.0\.0\.1:1/);
});
