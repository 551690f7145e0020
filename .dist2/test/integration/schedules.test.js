"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
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
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_child_process_1 = require("node:child_process");
const node_fs_1 = require("node:fs");
const node_path_1 = __importDefault(require("node:path"));
const node_util_1 = require("node:util");
const client_1 = require("@temporalio/client");
const temporal_env_1 = require("../helpers/temporal-env");
const validate_spec_1 = require("../../src/activities/matrix/validate-spec");
const search_attributes_1 = require("../../src/schema/search-attributes");
const config_1 = require("../../src/config");
const poll_1 = require("../../src/lib/poll");
const common_1 = require("@temporalio/common");
const node_fs_2 = require("node:fs");
const run_id_1 = require("../../src/schema/run-id");
const assert_failure_1 = require("../helpers/assert-failure");
/** The ChbenchSchedule value the schedule's action sets (describe returns a TypedSearchAttributes). */
async function actionScheduleAttribute(id) {
    const a = (await env.client.schedule.getHandle(id).describe()).action.typedSearchAttributes;
    strict_1.default.ok(a instanceof common_1.TypedSearchAttributes, 'describe returns TypedSearchAttributes');
    return a.get(search_attributes_1.SCHEDULE);
}
const schedules_1 = require("../../src/temporal/schedules");
let env;
(0, node_test_1.before)(async () => {
    env = await (0, temporal_env_1.startTemporalEnv)('schedules');
});
(0, node_test_1.after)(async () => {
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
const runIdOf = (id) => new RegExp(`^${id}-\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ$`);
async function describeUntil(id, ok, what) {
    let v;
    await (0, poll_1.pollUntil)(async () => {
        v = await (0, schedules_1.describeSchedule)(env.client, id);
        return ok(v);
    }, { timeoutMs: 60_000, intervalMs: 200, what });
    return v;
}
(0, node_test_1.test)('a bad spec is refused before anything is created', async () => {
    const id = 'sched-bad';
    const bad = { ...spec(), scale: -1, workload: 'no-such-workload' };
    await strict_1.default.rejects((0, schedules_1.createSchedule)(env.client, {
        scheduleId: id,
        spec: bad,
        check: validate_spec_1.checkSpec,
        when: { cron: CRON_NEVER_NOW },
        taskQueue: env.taskQueue,
    }), (e) => e instanceof schedules_1.ScheduleSpecInvalidError && e.problems.some((p) => /scale/.test(p)));
    await strict_1.default.rejects(env.client.schedule.getHandle(id).describe(), client_1.ScheduleNotFoundError);
    strict_1.default.ok(!(await (0, schedules_1.listSchedules)(env.client)).some((r) => r.scheduleId === id));
});
(0, node_test_1.test)('schedule lifecycle: create, describe, list, trigger twice under SKIP, runs carry ChbenchSchedule, pause, update, delete', async () => {
    const id = 'q-sched';
    await (0, schedules_1.createSchedule)(env.client, {
        scheduleId: id,
        spec: spec(),
        check: validate_spec_1.checkSpec,
        when: { cron: CRON_NEVER_NOW, jitter: '1m' },
        taskQueue: env.taskQueue,
        catchupWindow: '1d',
        note: 'created by the schedules test',
    });
    // describe: the stored spec, policies, next run (1 January 03:00 UTC, plus at most 1 min of jitter).
    const d = await (0, schedules_1.describeSchedule)(env.client, id);
    strict_1.default.equal(d.spec?.name, 'sched-trivial');
    strict_1.default.equal(d.spec?.cells, 1);
    strict_1.default.deepEqual(d.rawSpec, spec());
    strict_1.default.deepEqual(d.action, { workflowType: 'benchmarkMatrix', taskQueue: env.taskQueue, workflowId: id });
    strict_1.default.equal(d.policies.overlap, 'skip');
    strict_1.default.equal(d.policies.catchupWindowMs, 86_400_000);
    strict_1.default.equal(d.when.jitterMs, 60_000);
    strict_1.default.deepEqual(d.when.calendars, ['month JANUARY; dayOfMonth 1; hour 3; minute 0'], 'the cron, as the server compiled it');
    strict_1.default.equal(d.paused, false);
    strict_1.default.equal(d.note, 'created by the schedules test');
    strict_1.default.equal(d.actionsTaken, 0);
    const next = d.next[0];
    strict_1.default.ok(next && next.getUTCMonth() === 0 && next.getUTCDate() === 1 && next.getUTCHours() === 3, String(next));
    strict_1.default.equal(await actionScheduleAttribute(id), id);
    // list: id, spec name, next run, not paused, nothing running.
    const row = (await (0, schedules_1.listSchedules)(env.client)).find((r) => r.scheduleId === id);
    strict_1.default.deepEqual({ ...row, next: row?.next?.toISOString() }, {
        scheduleId: id,
        specName: 'sched-trivial',
        workflowType: 'benchmarkMatrix',
        next: next.toISOString(),
        paused: false,
        running: [],
    });
    // Two triggers at once under the schedule's SKIP policy: one run, one skip.
    strict_1.default.equal(await (0, schedules_1.triggerSchedule)(env.client, id), 'SKIP');
    strict_1.default.equal(await (0, schedules_1.triggerSchedule)(env.client, id), 'SKIP');
    const afterTwo = await describeUntil(id, (v) => v.actionsTaken + v.skippedOverlap >= 2, 'both triggers processed by the schedule');
    strict_1.default.equal(afterTwo.actionsTaken, 1, 'one run started');
    strict_1.default.equal(afterTwo.skippedOverlap, 1, 'the second trigger was skipped while the first run was running');
    strict_1.default.equal(afterTwo.recent.length, 1);
    const first = afterTwo.recent[0].workflowId;
    strict_1.default.match(first, runIdOf(id));
    strict_1.default.deepEqual(afterTwo.running, [first]);
    // A trigger while that run runs is seen as skipped (the schedule's skipped-by-overlap counter went up).
    strict_1.default.deepEqual(await (0, schedules_1.triggerScheduleObserved)(env.client, id), {
        policy: 'SKIP',
        outcome: 'skipped',
        paused: false,
    });
    // The run executes on the worker; its run id is its workflow id made folder-safe (':' as '_'), and it carries ChbenchSchedule.
    const r1 = (await env.client.workflow.getHandle(first).result());
    strict_1.default.equal(r1.runId, first.replace(/:/g, '_'));
    strict_1.default.equal(r1.status, 'completed');
    strict_1.default.deepEqual(r1.cells.map((c) => c.status), ['succeeded']);
    strict_1.default.equal((await env.client.workflow.getHandle(first).describe()).typedSearchAttributes.get(search_attributes_1.SCHEDULE), id);
    // Once it is closed, a trigger (the CLI's, on the paused schedule) starts a second run with its own workflow id (a later second).
    await new Promise((r) => setTimeout(r, 1100));
    await (0, schedules_1.pauseSchedule)(env.client, id, 'trigger while paused');
    const trig = await cli('trigger', id);
    strict_1.default.equal(trig.code, 0, trig.stderr);
    strict_1.default.match(trig.stderr, /started .*\(overlap skip\); paused; the trigger still starts a run/);
    await (0, schedules_1.unpauseSchedule)(env.client, id);
    const afterThird = await describeUntil(id, (v) => v.actionsTaken >= 2, 'the third trigger started a run');
    strict_1.default.equal(afterThird.skippedOverlap, 2);
    const second = afterThird.recent[1].workflowId;
    strict_1.default.equal(trig.stdout.trim(), second, 'the CLI prints the workflow id it started');
    strict_1.default.match(second, runIdOf(id));
    strict_1.default.notEqual(second, first);
    strict_1.default.equal((await env.client.workflow.getHandle(second).result()).runId, (0, run_id_1.runIdOfWorkflowId)(second));
    const done = await describeUntil(id, (v) => v.recent.every((a) => a.status === 'COMPLETED'), 'both runs completed');
    strict_1.default.deepEqual(done.recent.map((a) => a.workflowId), [first, second]);
    // Visibility: the list query ChbenchSchedule="<id>" finds exactly these two runs (newest first).
    let runs = [];
    await (0, poll_1.pollUntil)(async () => {
        runs = await (0, schedules_1.listScheduledRuns)(env.client, id, { status: 'Completed' });
        return runs.length === 2;
    }, { timeoutMs: 30_000, intervalMs: 250, what: 'visibility lists both scheduled runs' });
    strict_1.default.deepEqual(runs.map((r) => r.workflowId), [second, first]);
    const viaQuery = [];
    for await (const w of env.client.workflow.list({ query: `ChbenchSchedule = "${id}"` }))
        viaQuery.push(w.workflowId);
    strict_1.default.deepEqual(viaQuery.sort(), [first, second].sort(), 'cell child workflows do not carry the attribute');
    // pause / unpause with notes.
    await (0, schedules_1.pauseSchedule)(env.client, id, 'quarter freeze');
    let v = await (0, schedules_1.describeSchedule)(env.client, id);
    strict_1.default.deepEqual([v.paused, v.note], [true, 'quarter freeze']);
    await (0, schedules_1.unpauseSchedule)(env.client, id, 'freeze over');
    v = await (0, schedules_1.describeSchedule)(env.client, id);
    strict_1.default.deepEqual([v.paused, v.note], [false, 'freeze over']);
    // update: a bad spec is refused and the stored one kept; a good one replaces it, the rest is kept.
    await strict_1.default.rejects((0, schedules_1.updateScheduleSpec)(env.client, id, { ...spec('slowdown'), matrix: { version: [], codec: ['LZ4'] } }, validate_spec_1.checkSpec), schedules_1.ScheduleSpecInvalidError);
    strict_1.default.equal((await (0, schedules_1.describeSchedule)(env.client, id)).spec?.name, 'sched-trivial');
    await (0, schedules_1.updateScheduleSpec)(env.client, id, spec('slowdown'), validate_spec_1.checkSpec);
    v = await (0, schedules_1.describeSchedule)(env.client, id);
    strict_1.default.equal(v.spec?.name, 'slowdown');
    strict_1.default.deepEqual(v.rawSpec, spec('slowdown'));
    strict_1.default.equal(v.policies.overlap, 'skip');
    strict_1.default.equal(v.policies.catchupWindowMs, 86_400_000);
    strict_1.default.equal(v.note, 'freeze over');
    strict_1.default.equal(await actionScheduleAttribute(id), id, 'the updated action still sets ChbenchSchedule');
    // delete; the schedule's runs stay.
    await (0, schedules_1.deleteSchedule)(env.client, id);
    await strict_1.default.rejects((0, schedules_1.describeSchedule)(env.client, id), schedules_1.UnknownScheduleError);
    strict_1.default.equal((await env.client.workflow.getHandle(first).describe()).status.name, 'COMPLETED');
});
(0, node_test_1.test)("a scheduled run has one id (folder, run.json, cells); resume and report given its folder name act on the run's real workflow", async () => {
    const id = 'q-ids';
    await (0, schedules_1.createSchedule)(env.client, {
        scheduleId: id,
        spec: spec('sched-ids'),
        check: validate_spec_1.checkSpec,
        when: { cron: CRON_NEVER_NOW },
        taskQueue: env.taskQueue,
    });
    try {
        await (0, schedules_1.triggerSchedule)(env.client, id);
        const v = await describeUntil(id, (x) => x.recent.length === 1, 'the trigger started a run');
        const workflowId = v.recent[0].workflowId;
        strict_1.default.match(workflowId, runIdOf(id));
        const r = (await env.client.workflow.getHandle(workflowId).result());
        // One id: the folder's name, run.json's runId, the cells' workflow ids; run.json keeps the workflow id.
        const folder = workflowId.replace(/:/g, '_');
        strict_1.default.equal(r.runId, folder);
        const dir = node_path_1.default.join(env.resultsDir, folder);
        const run = JSON.parse((0, node_fs_2.readFileSync)(node_path_1.default.join(dir, 'run.json'), 'utf8'));
        strict_1.default.equal(run.runId, folder);
        strict_1.default.equal(run.workflowId, workflowId);
        strict_1.default.equal(r.cells[0].resultFile, node_path_1.default.join(dir, 'cells', 'v26.7-lz4', 'result.json'));
        strict_1.default.equal(JSON.parse((0, node_fs_2.readFileSync)(r.cells[0].resultFile, 'utf8')).runId, folder);
        strict_1.default.equal((await env.client.workflow.getHandle(`${folder}/v26.7-lz4`).describe()).status.name, 'COMPLETED', "the cell's child workflow is <run id>/<cellKey>");
        // A cell to measure again, then `chbench resume <folder name>`: the schedule's workflow runs again.
        (0, node_fs_2.rmSync)(node_path_1.default.join(dir, 'cells', 'v26.7-lz4'), { recursive: true, force: true });
        const resumed = await cliRun('resume', folder, '--results-dir', env.resultsDir);
        strict_1.default.equal(resumed.code, 0, resumed.stderr);
        strict_1.default.match(resumed.stderr, new RegExp(`resuming ${folder} \\(workflow ${workflowId}\\)`));
        strict_1.default.equal(await env.client.workflow
            .getHandle(folder)
            .describe()
            .then((d) => d.status.name)
            .catch(() => 'NOT_FOUND'), 'NOT_FOUND', 'no new workflow was started under the folder name');
        const executions = [];
        for await (const w of env.client.workflow.list({ query: `WorkflowId = '${workflowId}'` }))
            executions.push(w.status.name);
        strict_1.default.deepEqual(executions, ['COMPLETED', 'COMPLETED'], 'the run workflow itself ran a second time');
        const after = JSON.parse((0, node_fs_2.readFileSync)(node_path_1.default.join(dir, 'run.json'), 'utf8'));
        strict_1.default.deepEqual([after.runId, after.workflowId, after.resumes.length], [folder, workflowId, 1]);
        strict_1.default.equal(JSON.parse((0, node_fs_2.readFileSync)(r.cells[0].resultFile, 'utf8')).status, 'succeeded');
        // A workflow started by hand under the folder's name is refused: the folder holds the scheduled run.
        await (0, assert_failure_1.assertFailureType)(env.client.workflow.execute('benchmarkMatrix', {
            taskQueue: env.taskQueue,
            workflowId: folder,
            args: [spec('sched-ids')],
        }), 'InvalidSpec', new RegExp(`holds run ${folder} of workflow ${workflowId}, not of workflow ${folder}`));
        // report: the folder name and the workflow id both render the run's report in its folder.
        for (const given of [folder, workflowId]) {
            const rep = await cliRun('report', given, '--results-dir', env.resultsDir);
            strict_1.default.equal(rep.code, 0, rep.stderr);
            strict_1.default.equal(rep.stdout.split('\n')[0], node_path_1.default.join(dir, 'report.md'));
        }
        strict_1.default.ok((0, node_fs_2.existsSync)(node_path_1.default.join(dir, 'report.html')));
    }
    finally {
        await (0, schedules_1.deleteSchedule)(env.client, id).catch(() => undefined);
    }
});
(0, node_test_1.test)('a JSON calendar and an interval, created paused: describe shows them as given', async () => {
    const id = 'cal-json';
    await (0, schedules_1.createSchedule)(env.client, {
        scheduleId: id,
        spec: spec(),
        check: validate_spec_1.checkSpec,
        when: { calendar: '{"month":["JANUARY","JULY"],"dayOfMonth":1,"hour":4}', every: '90d', timezone: 'Europe/Paris' },
        taskQueue: env.taskQueue,
        overlap: 'BUFFER_ONE',
        paused: true,
    });
    const v = await (0, schedules_1.describeSchedule)(env.client, id);
    strict_1.default.deepEqual(v.when, {
        calendars: ['month JANUARY,JULY; dayOfMonth 1; hour 4; minute 0'],
        intervals: [90 * 86_400_000],
        timezone: 'Europe/Paris',
    });
    strict_1.default.equal(v.policies.overlap, 'buffer-one');
    strict_1.default.equal(v.paused, true);
    await (0, schedules_1.deleteSchedule)(env.client, id);
});
(0, node_test_1.test)('unknown schedule ids give UnknownScheduleError', async () => {
    for (const op of [
        () => (0, schedules_1.describeSchedule)(env.client, 'nope'),
        () => (0, schedules_1.triggerSchedule)(env.client, 'nope'),
        () => (0, schedules_1.pauseSchedule)(env.client, 'nope'),
        () => (0, schedules_1.deleteSchedule)(env.client, 'nope'),
        () => (0, schedules_1.updateScheduleSpec)(env.client, 'nope', spec(), validate_spec_1.checkSpec),
    ])
        await strict_1.default.rejects(op(), (e) => e instanceof schedules_1.UnknownScheduleError && /no schedule "nope"/.test(e.message));
});
/** `chbench schedule …` as a user runs it; resolves with the exit code and both streams. */
async function cli(...args) {
    return cliRun('schedule', ...args);
}
/** `chbench <args>` as a child process against this file's Temporal server and task queue. */
async function cliRun(...args) {
    try {
        const { stdout, stderr } = await (0, node_util_1.promisify)(node_child_process_1.execFile)(process.execPath, [node_path_1.default.join(config_1.REPO_ROOT, 'dist', 'src', 'cli.js'), ...args], {
            env: {
                ...process.env,
                TEMPORAL_ADDRESS: env.server.address,
                TEMPORAL_NAMESPACE: 'default',
                CHBENCH_TASK_QUEUE: env.taskQueue,
            },
        });
        return { code: 0, stdout, stderr };
    }
    catch (e) {
        const x = e;
        return { code: x.code, stdout: x.stdout, stderr: x.stderr };
    }
}
(0, node_test_1.test)('CLI: create, list, describe, pause, delete; exit codes for a bad spec, an unknown id and no Temporal', async () => {
    const file = node_path_1.default.join(env.tmp, 'cli-spec.json');
    (0, node_fs_1.writeFileSync)(file, JSON.stringify(spec('cli-quarterly')));
    const badFile = node_path_1.default.join(env.tmp, 'bad-spec.json');
    (0, node_fs_1.writeFileSync)(badFile, JSON.stringify({ ...spec(), target: { kind: 'nowhere' } }));
    const bad = await cli('create', 'cli-bad', '--spec', badFile, '--calendar', 'quarterly');
    strict_1.default.equal(bad.code, 2, bad.stderr);
    strict_1.default.match(bad.stderr, /invalid run spec[\s\S]*target[\s\S]*nothing was changed/);
    strict_1.default.equal((await cli('describe', 'cli-bad')).code, 2);
    const noWhen = await cli('create', 'cli-q', '--spec', file);
    strict_1.default.equal(noWhen.code, 2);
    strict_1.default.match(noWhen.stderr, /--calendar .*--cron .*--every/);
    const created = await cli('create', 'cli-q', '--spec', file, '--calendar', 'quarterly', '--overlap', 'buffer-one');
    strict_1.default.equal(created.code, 0, created.stderr);
    strict_1.default.equal(created.stdout.trim(), 'cli-q');
    const again = await cli('create', 'cli-q', '--spec', file, '--every', '90d');
    strict_1.default.equal(again.code, 2);
    strict_1.default.match(again.stderr, /already exists/);
    const list = await cli('list');
    strict_1.default.equal(list.code, 0, list.stderr);
    const line = list.stdout.split('\n').find((l) => l.startsWith('cli-q '));
    strict_1.default.ok(line, list.stdout);
    strict_1.default.match(line, /cli-quarterly\s+\d{4}-(01|04|07|10)-01T03:00:00Z\s+no\s+-$/);
    const json = JSON.parse((await cli('list', '--json')).stdout);
    strict_1.default.equal(json.find((r) => r.scheduleId === 'cli-q')?.specName, 'cli-quarterly');
    const desc = await cli('describe', 'cli-q');
    strict_1.default.equal(desc.code, 0, desc.stderr);
    strict_1.default.match(desc.stdout, /spec: cli-quarterly, workload trivial, 20,000 rows, target embedded, 1 cell/);
    strict_1.default.match(desc.stdout, /when: quarterly: the 1st of January, April, July and October at 03:00/);
    strict_1.default.match(desc.stdout, /overlap buffer-one/);
    strict_1.default.equal((await cli('pause', 'cli-q', '--note', 'on hold')).code, 0);
    strict_1.default.match((await cli('describe', 'cli-q')).stdout, /schedule cli-q \(paused\): on hold/);
    const unknown = await cli('trigger', 'nope');
    strict_1.default.equal(unknown.code, 2);
    strict_1.default.match(unknown.stderr, /no schedule "nope" in namespace default/);
    const del = await cli('delete', 'cli-q');
    strict_1.default.equal(del.code, 0, del.stderr);
    strict_1.default.ok(!(await cli('list')).stdout.includes('cli-q'));
    // Options Temporal refuses (INVALID_ARGUMENT) or chbench refuses first, bad ids and statuses: exit 2, one clear line.
    for (const [args, msg] of [
        [['--every', '0d'], /--every "0d": the interval must be at least 1s/],
        [['--cron', '61 3 * * *'], /Temporal refused an option: /],
        [['--cron', '0 3 * * *', '--timezone', 'Mars/Olympus'], /--timezone "Mars\/Olympus" is not an IANA time zone/],
    ]) {
        const r = await cli('create', 'cli-opt', '--spec', file, ...args);
        strict_1.default.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
        strict_1.default.match(r.stderr, msg);
        strict_1.default.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    }
    const slash = await cli('create', 'q1/x', '--spec', file, '--every', '90d');
    strict_1.default.equal(slash.code, 2);
    strict_1.default.match(slash.stderr, /schedule id "q1\/x": .*no '\/'/);
    const status = await cli('runs', 'q1', '--status', 'Done');
    strict_1.default.equal(status.code, 2);
    strict_1.default.match(status.stderr, /--status "Done": one of Running, Completed, Failed, Canceled, Terminated, ContinuedAsNew, TimedOut/);
    const down = await cli('--address', '127.0.0.1:1', 'list');
    strict_1.default.equal(down.code, 3);
    strict_1.default.match(down.stderr, /cannot reach Temporal at 127\.0\.0\.1:1/);
});
//# sourceMappingURL=schedules.test.js.map