'use strict';
/*
 * What a run did, read from where n8n saved it, not from what `n8n execute` printed.
 *
 * `n8n execute --id=<id>` prints the whole run as indented JSON on stdout after it has saved the execution. That
 * print is the weak part: binary data inline (a 5 MiB attachment is 7 MB of base64, indented), `RangeError: Invalid
 * string length` once the text outgrows V8's string limit, output cut off when the process ends while the pipe is
 * still being written, and n8n 2.41.1 on Node 24 now and then dying with SIGSEGV on its way out after a successful run.
 * The saved execution has none of these problems: n8n writes it to its database before it prints anything
 * (the `workflowExecuteAfter` hook runs before `execute` is handed the result), in a compact form (`flatted` text in
 * `execution_data.data`, the status in `execution_entity`), and it is there whatever happens to the process afterwards.
 *
 * So the harness runs `n8n execute` with its output streamed to a file (only the last 256 KiB are kept in memory, for
 * error messages), then reads the execution the run saved and judges the run by it: saved with status "success" =
 * the run succeeded, whatever the exit code; saved with another status = the run failed, with the saved error; nothing
 * saved = n8n failed before or while running (the exit code and the end of the output say why).
 *
 * n8n 2.41.1 stores executions (SQLite, the default `DB_TYPE` of the test user folders) in
 *   <userFolder>/.n8n/database.sqlite   (WAL mode: also database.sqlite-wal, read together by SQLite itself)
 *   execution_entity  id (integer, ascending), workflowId, mode ('cli' for `n8n execute`, 'integrated' for
 *                     sub-workflows, 'webhook', 'trigger'...), status ('success' | 'error' | 'crashed' | 'canceled' |
 *                     'running' | 'new' | 'waiting'), finished (0/1), startedAt, stoppedAt, storedAt ('db')
 *   execution_data    executionId, data: IRunExecutionData as `flatted` text ({ resultData: { runData, error,
 *                     lastNodeExecuted }, executionData, startData }), workflowData (JSON)
 * and only when the saving settings say so: SAVE_ENV below sets them for every harness process (a workflow's own
 * settings can still say otherwise: the runner overrides those in the copies it imports, see saveSettingsForced()).
 *
 * The reader is this file run by the cached Node 24 (`node:sqlite`, built into Node >= 22.13; the harness itself also
 * runs on Node 20, which has no SQLite): it writes one `flatted` file per execution and an index, which the harness
 * parses with n8n's own copy of `flatted`. No step goes through a pretty-printed or size-limited channel.
 */

const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawn } = require('child_process');

/** n8n settings that make every execution land in the database, whatever its outcome (and stay there). */
const SAVE_ENV = {
	EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all',
	EXECUTIONS_DATA_SAVE_ON_ERROR: 'all',
	EXECUTIONS_DATA_SAVE_MANUAL_EXECUTIONS: 'true',
	EXECUTIONS_DATA_PRUNE: 'false',
	// run data in execution_data (the other modes write files or object storage)
	N8N_EXECUTION_DATA_STORAGE_MODE: 'database',
};

/** A workflow's own settings override SAVE_ENV: a copy that saves every execution. */
function saveSettingsForced(json) {
	return {
		...json,
		settings: {
			...(json.settings || {}),
			saveDataSuccessExecution: 'all',
			saveDataErrorExecution: 'all',
		},
	};
}

const databaseFile = (userFolder) => path.join(userFolder, '.n8n', 'database.sqlite');

/** Statuses after which n8n writes nothing more to an execution. */
const FINAL_STATUSES = ['success', 'error', 'crashed', 'canceled'];

// ---------------------------------------------------------------------------------------------------------
// The reader (runs in the cached Node 24)

function readerMain([dbFile, afterId, workflowId, outDir]) {
	const { DatabaseSync } = require('node:sqlite');
	const db = new DatabaseSync(dbFile);
	try {
		const rows = db
			.prepare(
				`SELECT e.id, e.workflowId, e.mode, e.status, e.finished, e.startedAt, e.stoppedAt, e.storedAt, d.data
				 FROM execution_entity e LEFT JOIN execution_data d ON d.executionId = e.id
				 WHERE e.id > ? AND (? = '' OR e.workflowId = ?) ORDER BY e.id`,
			)
			.all(Number(afterId), workflowId, workflowId);
		const index = rows.map(({ data, ...row }) => {
			const dataFile = data == null ? null : path.join(outDir, `${row.id}.flatted`);
			if (dataFile) fs.writeFileSync(dataFile, data);
			return { ...row, finished: !!row.finished, dataFile };
		});
		fs.writeFileSync(path.join(outDir, 'index.json'), JSON.stringify(index));
	} finally {
		db.close();
	}
}

if (require.main === module && process.argv[2] === '--read') readerMain(process.argv.slice(3));

// ---------------------------------------------------------------------------------------------------------
// The harness side (any Node >= 18)

/** n8n's own `flatted` (the format of execution_data.data), from the install of test/lib/n8n-env.js. */
function flattedOf(p) {
	return require(path.join(p.n8nDir, 'node_modules', 'flatted'));
}

function runReader(p, args) {
	return new Promise((resolve, reject) => {
		const child = spawn(p.nodeBin, ['--no-warnings', __filename, '--read', ...args], {
			stdio: ['ignore', 'ignore', 'pipe'],
		});
		let err = '';
		child.stderr.on('data', (d) => (err = (err + d).slice(-8000)));
		child.on('error', reject);
		child.on('close', (code) =>
			code === 0
				? resolve()
				: reject(new Error(`reading n8n's saved executions failed (exit ${code}):\n${err}`)),
		);
	});
}

/**
 * The executions saved in a user folder's database after `afterId` (ascending ids), each
 * { id, workflowId, mode, status, finished, startedAt, stoppedAt, data } with `data` the parsed run data
 * ({ resultData: { runData, error, lastNodeExecuted }, ... }; undefined when none was saved).
 * Call it while no n8n process writes to that database (SQLite WAL: a reader would see a consistent snapshot
 * anyway, but an execution still running has no final status yet).
 * options: workflowId (only that workflow's), withData (default true).
 */
async function readSavedExecutions(
	p,
	userFolder,
	{ afterId = 0, workflowId = '', withData = true } = {},
) {
	const dbFile = databaseFile(userFolder);
	if (!fs.existsSync(dbFile)) return [];
	const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rms-executions-'));
	try {
		await runReader(p, [dbFile, String(afterId), workflowId, outDir]);
		const index = JSON.parse(fs.readFileSync(path.join(outDir, 'index.json'), 'utf8'));
		const flatted = withData ? flattedOf(p) : undefined;
		return index.map(({ dataFile, ...row }) => ({
			...row,
			id: String(row.id),
			data: withData && dataFile ? flatted.parse(fs.readFileSync(dataFile, 'utf8')) : undefined,
		}));
	} finally {
		fs.rmSync(outDir, { recursive: true, force: true });
	}
}

/** The highest execution id saved so far (0 when none): pass it as `afterId` to see only what a run adds. */
async function lastExecutionId(p, userFolder) {
	const all = await readSavedExecutions(p, userFolder, { withData: false });
	return all.length ? Number(all[all.length - 1].id) : 0;
}

/** What went wrong in a saved execution, in one paragraph (undefined when it succeeded). */
function executionProblem(execution) {
	if (execution.status === 'success' && execution.finished) return undefined;
	const resultData = (execution.data && execution.data.resultData) || {};
	const e = resultData.error;
	const node = (e && e.node && e.node.name) || resultData.lastNodeExecuted;
	const what = e
		? `${e.message || e.name || 'error'}${e.description ? ` (${e.description})` : ''}`
		: 'no error recorded';
	return `execution ${execution.id} saved with status "${execution.status}"${execution.finished ? '' : ' (not finished)'}${node ? `, node "${node}"` : ''}: ${what}`;
}

/**
 * Runs `n8n execute --id=<workflowId>` and reads what it saved. `runN8n` is test/lib/n8n-env.js's (its output goes
 * to `outputFile` when given, and only its last part stays in memory). `afterId`: the highest execution id saved
 * before (see lastExecutionId()). Resolves
 *   { res (runN8n's result: code, stdout and stderr tails, ms), execution (the `cli` execution of the workflow, or
 *     undefined), saved (every execution the run saved: sub-workflows too), lastId (for the next run), problem
 *     (undefined when the saved execution succeeded, else why the run failed) }
 */
async function executeAndRead({
	p,
	n8nEnv,
	runN8n,
	workflowId,
	afterId = 0,
	outputFile,
	timeoutMs,
}) {
	const res = await runN8n(p, n8nEnv, ['execute', `--id=${workflowId}`], { timeoutMs, outputFile });
	const saved = await readSavedExecutions(p, n8nEnv.N8N_USER_FOLDER, { afterId });
	const lastId = saved.length ? Number(saved[saved.length - 1].id) : afterId;
	const execution = saved.find((e) => e.workflowId === workflowId && e.mode === 'cli');
	let problem;
	if (!execution)
		problem = `n8n execute exited with ${res.code} and saved no execution of the workflow`;
	else if (!FINAL_STATUSES.includes(execution.status))
		problem = `n8n execute exited with ${res.code} while execution ${execution.id} was still "${execution.status}"`;
	else problem = executionProblem(execution);
	return { res, execution, saved, lastId, problem };
}

module.exports = {
	SAVE_ENV,
	FINAL_STATUSES,
	saveSettingsForced,
	databaseFile,
	readSavedExecutions,
	lastExecutionId,
	executionProblem,
	executeAndRead,
};
