"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * `npm run demo:eks`: the seed article's setting, simulated on this machine. Starts the simulated EKS
 * of the test tree (`./eks-sim.ts`: the Kubernetes API emulator with scheduler, kubelet and EBS CSI
 * driver, real moto EC2 + CloudWatch, pods running the chdb engine on their own loopback IPs), a
 * Temporal dev server with its Web UI and a worker in this process, then runs `examples/eks.yaml`
 * (`logs` workload, LZ4 vs ZSTD(3), skip index, `target.kind: kubernetes`, `cloud` metrics and cost)
 * as a `benchmarkMatrix` workflow and prints
 *
 *   eks demo: cells N, succeeded N, report <path>, leftover pods 0, leftover pvcs 0
 *
 * Leftovers are counted through the Kubernetes API (pods and PVCs labelled
 * `app.kubernetes.io/managed-by=chbench` in the run's namespace) after the run closed. Exit code 1
 * when a cell did not succeed or anything was left.
 *
 * `EKS_DEMO_SCALE=<rows>` overrides the spec's scale (CI runs it small).
 */
const db_1 = require("../../src/results/db");
const node_path_1 = __importDefault(require("node:path"));
const client_1 = require("@temporalio/client");
const client_node_1 = require("@kubernetes/client-node");
const dev_server_1 = require("../../src/temporal/dev-server");
const worker_1 = require("../../src/worker");
const config_1 = require("../../src/config");
const spec_file_1 = require("../../src/lib/spec-file");
const validate_spec_1 = require("../../src/activities/matrix/validate-spec");
const run_client_1 = require("../../src/temporal/run-client");
const eks_sim_1 = require("./eks-sim");
async function main() {
    const specFile = process.argv[2] ?? node_path_1.default.join(config_1.REPO_ROOT, 'examples', 'eks.yaml');
    const raw = (0, spec_file_1.readSpecFile)(specFile);
    if (process.env.EKS_DEMO_SCALE)
        raw.scale = Number(process.env.EKS_DEMO_SCALE);
    const { spec, problems } = (0, validate_spec_1.checkSpec)(raw);
    if (!spec || problems.length)
        throw new Error(`invalid spec ${specFile}:\n  - ${problems.join('\n  - ')}`);
    if (spec.target.kind !== 'kubernetes')
        throw new Error(`${specFile}: target.kind must be kubernetes`);
    const namespace = spec.target.namespace;
    const sim = await (0, eks_sim_1.startEksSim)({ publishEveryMs: 5000 });
    console.error(`eks demo: Kubernetes API emulator ${sim.cluster.url}, moto ${sim.awsEnv.AWS_ENDPOINT_URL}, nodes ${sim.nodes.map((n) => `${n.name} (${n.instanceType}, ${n.zone}, ${n.instanceId})`).join(', ')}`);
    // The worker reaches the cluster and AWS the way a real one would: kubeconfig and the AWS SDK's environment.
    process.env.KUBECONFIG = sim.kubeconfigPath;
    Object.assign(process.env, sim.awsEnv);
    (0, worker_1.installRuntime)((0, config_1.logLevel)('WARN'));
    const server = await (0, dev_server_1.startDevServer)({ ui: true });
    const cfg = (0, config_1.loadConfig)();
    cfg.temporalAddress = server.address;
    console.error(`eks demo: Temporal dev server on ${server.address}, Web UI ${server.uiUrl}`);
    const { worker, connection: wconn } = await (0, worker_1.createWorker)(cfg);
    const running = worker.run();
    const connection = await client_1.Connection.connect({ address: cfg.temporalAddress });
    let line;
    let ok;
    try {
        const client = new client_1.Client({ connection, namespace: cfg.namespace });
        const runId = (0, run_client_1.newRunId)(spec.name);
        console.error(`eks demo: run ${runId}: ${spec.workload}, ${spec.scale} rows, codecs ${spec.matrix.codec.join(' / ')}, skip index ${spec.skipIndex}`);
        const r = await (0, run_client_1.runAndFollow)(client, raw, runId, cfg.taskQueue, { progress: true });
        const kc = new client_node_1.KubeConfig();
        kc.loadFromFile(sim.kubeconfigPath);
        const core = kc.makeApiClient(client_node_1.CoreV1Api);
        const selector = 'app.kubernetes.io/managed-by=chbench';
        const pods = (await core.listNamespacedPod({ namespace, labelSelector: selector })).items.length;
        const pvcs = (await core.listNamespacedPersistentVolumeClaim({ namespace, labelSelector: selector })).items.length;
        const succeeded = r.cells.filter((c) => c.status === 'succeeded').length;
        line = `eks demo: cells ${r.cells.length}, succeeded ${succeeded}, report ${r.reportPath}, leftover pods ${pods}, leftover pvcs ${pvcs}`;
        ok = succeeded === r.cells.length && pods === 0 && pvcs === 0;
    }
    finally {
        await connection.close();
        worker.shutdown();
        await running;
        await wconn.close();
        await server.stop();
        await sim.stop();
        await (0, db_1.stopResultsDbsStartedHere)();
    }
    console.log(line);
    if (!ok)
        process.exitCode = 1;
}
main().catch((e) => {
    console.error(`eks demo failed: ${e.stack ?? e}`);
    process.exit(1);
});
//# sourceMappingURL=eks-demo.js.map