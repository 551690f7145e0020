"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.DEFAULT_REQUEST_TIMEOUT_MS = exports.EMBEDDED_DATABASE = exports.canonicalJson = exports.specHash = exports.readRunRows = exports.SCHEMA_VERSION = exports.MIGRATIONS = exports.embeddedResultsDbProcess = exports.ensureEmbeddedResultsDb = exports.stopResultsDbsStartedHere = exports.stopEmbeddedResultsDb = exports.oneLineError = exports.isUnavailableError = exports.ResultsDbUnavailableError = exports.REFUSED_TABLE_FUNCTIONS = exports.DEFAULT_SERIES_LIMIT = exports.readOnlyProblem = void 0;
exports.resultsDbLocation = resultsDbLocation;
exports.openResultsDb = openResultsDb;
exports.withResultsDb = withResultsDb;
/**
 * The results database: where it is ({@link resultsDbLocation}) and how to open it
 * ({@link openResultsDb}). The contract is in `./types.ts`; the schema in `./migrations.ts`; rows
 * from a run folder in `./rows.ts`; the embedded engine process in `./embedded.ts`.
 */
const node_path_1 = __importDefault(require("node:path"));
const node_fs_1 = require("node:fs");
const client_1 = require("@clickhouse/client");
const config_1 = require("../../config");
const sql_1 = require("../../lib/sql");
const db_1 = require("./db");
const embedded_1 = require("./embedded");
const migrations_1 = require("./migrations");
var db_2 = require("./db");
Object.defineProperty(exports, "readOnlyProblem", { enumerable: true, get: function () { return db_2.readOnlyProblem; } });
Object.defineProperty(exports, "DEFAULT_SERIES_LIMIT", { enumerable: true, get: function () { return db_2.DEFAULT_SERIES_LIMIT; } });
Object.defineProperty(exports, "REFUSED_TABLE_FUNCTIONS", { enumerable: true, get: function () { return db_2.REFUSED_TABLE_FUNCTIONS; } });
Object.defineProperty(exports, "ResultsDbUnavailableError", { enumerable: true, get: function () { return db_2.ResultsDbUnavailableError; } });
Object.defineProperty(exports, "isUnavailableError", { enumerable: true, get: function () { return db_2.isUnavailableError; } });
Object.defineProperty(exports, "oneLineError", { enumerable: true, get: function () { return db_2.oneLineError; } });
var embedded_2 = require("./embedded");
Object.defineProperty(exports, "stopEmbeddedResultsDb", { enumerable: true, get: function () { return embedded_2.stopEmbeddedResultsDb; } });
Object.defineProperty(exports, "stopResultsDbsStartedHere", { enumerable: true, get: function () { return embedded_2.stopResultsDbsStartedHere; } });
Object.defineProperty(exports, "ensureEmbeddedResultsDb", { enumerable: true, get: function () { return embedded_2.ensureEmbeddedResultsDb; } });
Object.defineProperty(exports, "embeddedResultsDbProcess", { enumerable: true, get: function () { return embedded_2.embeddedResultsDbProcess; } });
var migrations_2 = require("./migrations");
Object.defineProperty(exports, "MIGRATIONS", { enumerable: true, get: function () { return migrations_2.MIGRATIONS; } });
Object.defineProperty(exports, "SCHEMA_VERSION", { enumerable: true, get: function () { return migrations_2.SCHEMA_VERSION; } });
var rows_1 = require("./rows");
Object.defineProperty(exports, "readRunRows", { enumerable: true, get: function () { return rows_1.readRunRows; } });
Object.defineProperty(exports, "specHash", { enumerable: true, get: function () { return rows_1.specHash; } });
Object.defineProperty(exports, "canonicalJson", { enumerable: true, get: function () { return rows_1.canonicalJson; } });
/** Database name of the embedded results database (inside its engine process). */
exports.EMBEDDED_DATABASE = 'chbench';
/**
 * Where a run's results go: the spec's `results` server when given, else the embedded database
 * in `<resultsDir>/db` (absolute).
 */
function resultsDbLocation(spec, resultsDir) {
    if (spec)
        return { kind: 'server', url: spec.url, database: spec.database, user: spec.user, ...(spec.passwordEnv ? { passwordEnv: spec.passwordEnv } : {}) };
    return { kind: 'embedded', dir: node_path_1.default.resolve(resultsDir, 'db') };
}
/** chbench's package version (recorded in `schema_migrations.chbench`). */
function packageVersion() {
    const f = node_path_1.default.join(config_1.REPO_ROOT, 'package.json');
    return (0, node_fs_1.existsSync)(f) ? JSON.parse((0, node_fs_1.readFileSync)(f, 'utf8')).version : 'unknown';
}
/** URL without user info (never print a password someone put in a URL). */
function safeUrl(url) {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.toString().replace(/\/$/, '');
}
/** Default `request_timeout` of the results database's HTTP client, ms (`@clickhouse/client`'s own default). */
exports.DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/**
 * Open the results database: for `embedded`, find or start its engine process
 * (`ensureEmbeddedResultsDb`); create the database if missing; apply pending migrations. The
 * client's own logging is off: errors reach the caller once, as one line.
 * @throws ResultsDbUnavailableError when the database does not answer in time or cannot be reached
 *   (e.g. the embedded engine is busy with another statement); Error when the password variable
 *   named by `passwordEnv` is unset, the database cannot be created, or a migration fails (each
 *   names the location)
 */
async function openResultsDb(loc, opts = {}) {
    let url;
    let database;
    let username = 'default';
    let password = '';
    let description;
    if (loc.kind === 'embedded') {
        const p = await (0, embedded_1.ensureEmbeddedResultsDb)(loc.dir, loc.idleExitS === undefined ? {} : { idleExitS: loc.idleExitS });
        url = p.url;
        database = exports.EMBEDDED_DATABASE;
        description = `embedded database ${node_path_1.default.resolve(loc.dir)} (pid ${p.pid}, ${p.url})`;
    }
    else {
        url = loc.url;
        database = loc.database;
        username = loc.user ?? 'default';
        if (loc.passwordEnv) {
            const v = process.env[loc.passwordEnv];
            if (v === undefined)
                throw new Error(`results database ${safeUrl(url)}: the password variable ${loc.passwordEnv} is not set`);
            password = v;
        }
        description = `${safeUrl(url)} database ${database}`;
    }
    const make = (db) => (0, client_1.createClient)({
        url,
        database: db,
        username,
        password,
        application: 'chbench-results',
        request_timeout: opts.requestTimeoutMs ?? exports.DEFAULT_REQUEST_TIMEOUT_MS,
        log: { level: client_1.ClickHouseLogLevel.OFF },
    });
    const admin = make('default');
    try {
        await admin.command({ query: `CREATE DATABASE IF NOT EXISTS ${(0, sql_1.sqlIdent)(database)}` });
    }
    catch (e) {
        // A team's user may not create databases: fine when it exists already.
        const exists = await admin
            .query({ query: `EXISTS DATABASE ${(0, sql_1.sqlIdent)(database)}`, format: 'JSONEachRow' })
            .then((r) => r.json())
            .then((rows) => Number(rows[0]?.result) === 1)
            .catch(() => false);
        if (!exists) {
            await admin.close();
            if ((0, db_1.isUnavailableError)(e))
                throw new db_1.ResultsDbUnavailableError(`(${description}): ${(0, db_1.oneLineError)(e)}`, { cause: e });
            throw new Error(`results database (${description}): cannot create database ${database}: ${(0, db_1.oneLineError)(e)}`, { cause: e });
        }
    }
    await admin.close();
    const client = make(database);
    try {
        await (0, migrations_1.migrate)(client, packageVersion());
    }
    catch (e) {
        await client.close();
        if ((0, db_1.isUnavailableError)(e))
            throw new db_1.ResultsDbUnavailableError(`(${description}): ${(0, db_1.oneLineError)(e)}`, { cause: e });
        throw new Error(`results database (${description}): ${(0, db_1.oneLineError)(e)}`, { cause: e });
    }
    return new db_1.ClickHouseResultsDb(client, description, loc.kind);
}
/**
 * Open the results database of `results`/`resultsDir` (see {@link resultsDbLocation}), run `fn`
 * with it and close it, whatever `fn` does.
 * @returns what `fn` returns
 * @throws what {@link openResultsDb} or `fn` throws
 */
async function withResultsDb(results, resultsDir, fn, opts = {}) {
    const db = await openResultsDb(resultsDbLocation(results, resultsDir), opts);
    try {
        return await fn(db);
    }
    finally {
        await db.close();
    }
}
//# sourceMappingURL=index.js.map