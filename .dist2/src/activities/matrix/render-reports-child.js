"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Child process of `writeReport`: `node render-reports-child.js '<ReportInput JSON>'` renders the
 * run's reports (`renderRunReports`) and prints `{ reportPath, htmlPath }` as JSON on stdout; on
 * failure it prints `{ error, stack }` as JSON on stdout and exits 1. A results database engine it had to start itself
 * (for the series chart) is stopped before it exits; one already running is left as it was.
 */
const db_1 = require("../../results/db");
const write_report_1 = require("./write-report");
async function main() {
    try {
        const r = await (0, write_report_1.renderRunReports)(JSON.parse(process.argv[2] ?? '{}'));
        process.stdout.write(JSON.stringify(r));
    }
    finally {
        await (0, db_1.stopResultsDbsStartedHere)();
    }
}
main().catch((e) => {
    process.stdout.write(JSON.stringify({
        error: e instanceof Error ? e.message : String(e),
        stack: e instanceof Error ? e.stack : undefined,
    }));
    process.exit(1);
});
//# sourceMappingURL=render-reports-child.js.map