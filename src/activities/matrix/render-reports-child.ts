/**
 * Child process of `writeReport`: `node render-reports-child.js '<ReportInput JSON>'` renders the
 * run's reports (`renderRunReports`) and prints `{ reportPath, htmlPath }` as JSON on stdout; on
 * failure it prints `{ error, stack }` as JSON on stdout and exits 1. A results database engine it had to start itself
 * (for the series chart) is stopped before it exits; one already running is left as it was.
 */
import { stopResultsDbsStartedHere } from '../../results/db';
import { renderRunReports, type ReportInput } from '../../results/run-report';

async function main(): Promise<void> {
  try {
    const r = await renderRunReports(JSON.parse(process.argv[2] ?? '{}') as ReportInput);
    process.stdout.write(JSON.stringify(r));
  } finally {
    await stopResultsDbsStartedHere();
  }
}

main().catch((e: unknown) => {
  process.stdout.write(
    JSON.stringify({
      error: e instanceof Error ? e.message : String(e),
      stack: e instanceof Error ? e.stack : undefined,
    }),
  );
  process.exit(1);
});
