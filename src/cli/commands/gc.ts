/**
 * `chbench gc`: remove servers and directories left by closed runs; `chbench gc --kubernetes`: delete
 * the pods and PVCs of closed runs (label app.kubernetes.io/managed-by=chbench); `chbench gc --docker`:
 * the containers and volumes of closed runs on the engine DOCKER_HOST names (label chbench.managed-by=chbench).
 */
import type { Command } from 'commander';
import { loadConfig } from '../../config';
import { collectDockerGarbage, collectGarbage, collectKubernetesGarbage, type KubeGcScope } from '../../targets/gc';
import { EXIT, fail } from '../exit-codes';

/**
 * `chbench gc --kubernetes`: run {@link collectKubernetesGarbage} on `scope` and return one line per
 * pod or PVC it looked at, deleted ones first, e.g.
 * `deleted run-1/v26.7-lz4 Pod bench-database/chb-…: matrix run-1 and cell … are terminated …` or
 * `kept run-2/v26.7-lz4 PersistentVolumeClaim bench-database/chb-…-data: … is running …`
 * (`would delete` with `dryRun`), or one line saying nothing carries the chbench label.
 * @param scope kubeconfig path, context and namespace (default `bench-database`)
 * @param opts.dryRun list only
 * @throws Error when the cluster cannot be listed (as {@link collectKubernetesGarbage})
 */
export async function kubernetesGcLines(scope: KubeGcScope, opts: { dryRun?: boolean } = {}): Promise<string[]> {
  const { removed, kept } = await collectKubernetesGarbage(scope, { dryRun: opts.dryRun });
  const obj = (e: { runId: string; cellKey: string; kind: string; namespace: string; name: string }) =>
    `${e.runId}/${e.cellKey} ${e.kind} ${e.namespace}/${e.name}`;
  const lines = [
    ...removed.map((r) => `${opts.dryRun ? 'would delete' : 'deleted'} ${obj(r)}: ${r.reason}`),
    ...kept.map((k) => `kept ${obj(k)}: ${k.reason}`),
  ];
  if (!lines.length)
    lines.push(
      `nothing labelled app.kubernetes.io/managed-by=chbench in namespace ${scope.namespace ?? 'bench-database'}`,
    );
  return lines;
}

/** Add `gc` to the chbench program. */
export function registerGcCommand(program: Command): void {
  program
    .command('gc')
    .description(
      'stop and remove per-cell servers and directories whose runs are closed, as seen by the Temporal server each run lives on (recorded in its label); with --kubernetes, delete the pods and PVCs of closed runs instead',
    )
    .option('--dry-run', 'only list what would be removed')
    .option(
      '--force',
      'also remove servers whose label records no Temporal owner (older chbench) when their workflows are found closed in TEMPORAL_ADDRESS/TEMPORAL_NAMESPACE (not found there: kept)',
    )
    .option(
      '--force-unowned',
      'like --force, and also count a workflow not found in TEMPORAL_ADDRESS/TEMPORAL_NAMESPACE as closed (that server may not be the one that ran it)',
    )
    .option(
      '--kubernetes',
      'the pods and PVCs labelled app.kubernetes.io/managed-by=chbench, judged by their chbench.io/owner annotation (one without owner is always kept)',
    )
    .option(
      '--kubeconfig <path>',
      'with --kubernetes: kubeconfig file (default KUBECONFIG, ~/.kube/config, in-cluster)',
    )
    .option('--context <name>', 'with --kubernetes: kubeconfig context (default its current-context)')
    .option('--namespace <ns>', 'with --kubernetes: namespace of the pods and PVCs (default bench-database)')
    .option(
      '--docker',
      'the containers and volumes labelled chbench.managed-by=chbench on the Docker engine DOCKER_HOST names, judged by their chbench.owner label (one without owner is always kept)',
    )
    .action(
      async (o: {
        dryRun?: boolean;
        force?: boolean;
        forceUnowned?: boolean;
        kubernetes?: boolean;
        docker?: boolean;
        kubeconfig?: string;
        context?: string;
        namespace?: string;
      }) => {
        if (o.docker) {
          if (o.force || o.forceUnowned || o.kubernetes)
            fail(
              EXIT.invalid,
              '--docker takes neither --force/--force-unowned nor --kubernetes: an object without owner is always kept',
            );
          let r: Awaited<ReturnType<typeof collectDockerGarbage>>;
          try {
            r = await collectDockerGarbage({ dryRun: o.dryRun });
          } catch (e) {
            fail(
              EXIT.unreachable,
              `gc --docker: cannot list containers and volumes on the Docker engine (${process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock'}): ${(e as Error).message.split('\n')[0]}`,
            );
          }
          for (const e of r.removed)
            console.log(
              `${o.dryRun ? 'would remove' : 'removed'} ${e.runId}/${e.cellKey} ${e.kind} ${e.name}: ${e.reason}`,
            );
          for (const e of r.kept) console.log(`kept ${e.runId}/${e.cellKey} ${e.kind} ${e.name}: ${e.reason}`);
          if (!r.removed.length && !r.kept.length)
            console.log('nothing labelled chbench.managed-by=chbench on the Docker engine');
          return;
        }
        if (o.kubernetes) {
          if (o.force || o.forceUnowned)
            fail(
              EXIT.invalid,
              '--force/--force-unowned do not apply to --kubernetes: an object without owner is always kept',
            );
          const scope: KubeGcScope = { kubeconfig: o.kubeconfig, context: o.context, namespace: o.namespace };
          let lines: string[] = [];
          try {
            lines = await kubernetesGcLines(scope, { dryRun: o.dryRun });
          } catch (e) {
            fail(
              EXIT.unreachable,
              `gc --kubernetes: cannot list pods and PVCs in namespace ${o.namespace ?? 'bench-database'}: ${(e as Error).message.split('\n')[0]}`,
            );
          }
          for (const l of lines) console.log(l);
          return;
        }
        const stray = (['kubeconfig', 'context', 'namespace'] as const).filter((k) => o[k] !== undefined);
        if (stray.length) fail(EXIT.invalid, `--${stray.join(', --')} only apply with --kubernetes`);
        const cfg = loadConfig();
        // Each server is judged by the Temporal server and namespace recorded in its label, not by this
        // CLI's; TEMPORAL_ADDRESS/TEMPORAL_NAMESPACE only serve --force for labels without owner.
        const { removed, kept } = await collectGarbage(cfg.workDir, {
          dryRun: o.dryRun,
          ...(o.force || o.forceUnowned
            ? { force: { address: cfg.temporalAddress, namespace: cfg.namespace, unowned: !!o.forceUnowned } }
            : {}),
        });
        for (const r of removed)
          console.log(
            `${o.dryRun ? 'would remove' : 'removed'} ${r.runId}/${r.cellKey} ${r.dataDir}${r.pid ? ` (pid ${r.pid})` : ''}: ${r.reason}`,
          );
        for (const k of kept)
          console.log(`kept ${k.runId}/${k.cellKey} ${k.dataDir}${k.pid ? ` (pid ${k.pid})` : ''}: ${k.reason}`);
        if (!removed.length && !kept.length) console.log(`nothing under ${cfg.workDir}`);
      },
    );
}
