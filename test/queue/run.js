#!/usr/bin/env node
'use strict';
/*
 * npm run test:queue: this package in n8n's queue mode, main + two workers, against the sandbox.
 *
 *   1. Debian's redis-server and postgresql (apt-get install when missing; needs root)
 *   2. Node 24 + n8n 2.41.1 from the cache (test/lib/n8n-env.js), npm run build
 *   3. private Redis and Postgres on free ports of 127.0.0.1, data in a scratch folder (Postgres as user "postgres")
 *   4. the sandbox (in this process), one tag proxy per n8n process (HTTP_PROXY, see tag-proxy.js), so every
 *      request the sandbox records names the n8n process that sent it
 *   5. credential + workflows (test/queue/) imported with the n8n CLI, main (`n8n start`) and two workers
 *      (`n8n worker`), owner account, workflows published through the REST API, production webhooks awaited
 *   6. the scenarios of scenarios.js (4a-4c publish their own workflows), a table of the figures,
 *      "N passed, N failed, N skipped"
 *   7. everything stopped (exact process groups), also on failure and on Ctrl-C / SIGTERM
 *
 * Options: --no-build (use dist/ as it is); QUEUE_ONLY=<substring of a scenario key> (first-use, token-revoked,
 * faults, polling-trigger, webhook-trigger, email-attachments; the scenarios run in that order and share the stored
 * token); RMS_QUEUE_KEEP=1 keeps the scratch folder
 * (it is always kept when something fails); RMS_QUEUE_DIR=<folder> puts the scratch folder there (every parent must
 * be searchable by other users: Postgres runs as "postgres"); RMS_QUEUE_VERBOSE=1 prints the n8n logs' tails;
 * RMS_QUEUE_PACKAGE=<folder> loads the package from another checkout, built there (no build here);
 * RMS_QUEUE_BINARY_DATA_MODE=filesystem|default (instead of database) shows what scenario 4c needs.
 */

const fs = require('fs');
const os = require('os');
const path = require('path');
const http = require('http');
const env = require('../lib/n8n-env');
const srv = require('../lib/n8n-server');
const services = require('./services');
const { startTagProxy, proxyEnv } = require('./tag-proxy');
const { SCENARIOS, CONTACT_WORKFLOW, BATCH_WORKFLOW, perProcess } = require('./scenarios');
const { CREDENTIAL, credentialFile } = require('./credentials');

const REPO = env.REPO_ROOT;
const WORKFLOW_DIR = path.join(REPO, 'test', 'queue', 'workflows');
const WORKERS = ['worker1', 'worker2'];

const t0 = Date.now();
const secs = (ms) => `${(ms / 1000).toFixed(1)}s`;
const log = (m) =>
	process.stderr.write(
		`[queue ${String(Math.round((Date.now() - t0) / 1000)).padStart(4)}s] ${m}\n`,
	);

/** Finished executions per worker, read from the worker's log ("Worker finished execution 12 (job 7)"). */
function finishedExecutions(logText) {
	const ids = new Set();
	for (const m of logText.matchAll(/Worker finished execution (\S+) \(job/g)) ids.add(m[1]);
	return ids;
}

async function main() {
	const argv = process.argv.slice(2);
	const only = process.env.QUEUE_ONLY || '';
	const procs = new srv.Processes({ log });
	const timings = {};
	const results = [];
	let scratch;
	let sandbox;
	const proxies = [];
	procs.handleSignals({
		// interrupted: the processes are stopped; close what lives in this process, drop the scratch folder
		beforeExit: async () => {
			for (const px of proxies) await px.close();
			if (sandbox) await sandbox.close();
			if (scratch && !process.env.RMS_QUEUE_KEEP)
				fs.rmSync(scratch, { recursive: true, force: true });
			else if (scratch) console.log(`(scratch folder kept: ${scratch})`);
			console.log(`interrupted; everything stopped in ${secs(procs.stoppedMs || 0)}`);
		},
	});
	const ports = new Set(); // every port something of ours listened on: checked to be closed at the end
	let failed = false;
	try {
		// 1. Debian packages
		let t = Date.now();
		const inst = await services.ensureDebianPackages(log);
		timings.packages = Date.now() - t;
		if (inst.installed.length)
			log(`installed ${inst.installed.join(', ')} in ${secs(timings.packages)}`);

		// 2. n8n + build
		t = Date.now();
		const p = await env.ensureN8n();
		// RMS_QUEUE_PACKAGE=<folder>: load the package from another (built) checkout instead of this repository
		const packageDir = process.env.RMS_QUEUE_PACKAGE
			? path.resolve(process.env.RMS_QUEUE_PACKAGE)
			: REPO;
		if (packageDir !== REPO) log(`package from ${packageDir} (not built here)`);
		else if (!argv.includes('--no-build')) {
			log('npm run build');
			await env.runNpm(['run', 'build']);
		}
		timings.n8nAndBuild = Date.now() - t;

		// 3. scratch folder, Redis, Postgres
		scratch = process.env.RMS_QUEUE_DIR
			? fs.mkdtempSync(path.join(path.resolve(process.env.RMS_QUEUE_DIR), 'rms-queue-'))
			: fs.mkdtempSync(path.join(os.tmpdir(), 'rms-queue-'));
		fs.chmodSync(scratch, 0o755); // Postgres runs as another user and must reach its folder inside
		log(`scratch folder ${scratch}`);
		t = Date.now();
		const [redis, postgres] = await Promise.all([
			services.startRedis({ procs, dir: path.join(scratch, 'redis'), log }),
			services.startPostgres({ procs, dir: path.join(scratch, 'postgres'), log }),
		]);
		timings.services = Date.now() - t;
		ports.add(redis.port).add(postgres.port);

		// 4. sandbox and tag proxies
		const hooks = new Set();
		const { startSandbox } = require('../sandbox');
		sandbox = await startSandbox({ port: 0, onRequest: (r) => hooks.forEach((h) => h(r)) });
		log(`sandbox at ${sandbox.baseUrl}`);
		ports.add(Number(new URL(sandbox.origin).port));
		const proxyOf = {};
		for (const name of ['main', ...WORKERS]) {
			proxyOf[name] = await startTagProxy(name);
			proxies.push(proxyOf[name]);
			ports.add(proxyOf[name].port);
		}

		// 5. n8n: the built package copied (so a rebuild of dist/ during the run changes nothing), one user folder per
		// process with the copy linked in as a community package (as on separate machines), one environment each
		const pkgCopy = path.join(scratch, 'package');
		srv.snapshotPackage(packageDir, pkgCopy);
		const common = {
			// RMS_QUEUE_BINARY_DATA_MODE: another binary data mode, to see what it breaks (scenario 4c); default database
			...srv.queueEnv({
				redis,
				postgres,
				binaryDataMode: process.env.RMS_QUEUE_BINARY_DATA_MODE || 'database',
			}),
			N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '10',
			N8N_LOG_LEVEL: 'info',
			// n8n 2.x prunes executions; keep them all for the checks
			EXECUTIONS_DATA_PRUNE: 'false',
		};
		const envFor = (name) => {
			const folder = path.join(scratch, 'n8n', name);
			fs.mkdirSync(folder, { recursive: true });
			env.prepareUserFolder(folder, { repoRoot: pkgCopy });
			const e = env.n8nEnv(folder);
			// nothing of the caller's queue settings leaks in (n8nEnv already drops N8N_*, DB_* and npm_*)
			for (const k of Object.keys(e)) if (/^(QUEUE_|EXECUTIONS_|OFFLOAD_)/.test(k)) delete e[k];
			return proxyEnv({ ...e, ...common }, proxyOf[name]);
		};
		const logs = path.join(scratch, 'logs');
		fs.mkdirSync(logs, { recursive: true });
		const mainEnv = envFor('main');
		const workerEnv = Object.fromEntries(WORKERS.map((w) => [w, envFor(w)]));

		t = Date.now();
		const importDir = path.join(scratch, 'import');
		fs.mkdirSync(path.join(importDir, 'workflows'), { recursive: true });
		fs.writeFileSync(
			path.join(importDir, 'credentials.json'),
			JSON.stringify(credentialFile(sandbox.origin), null, 2),
		);
		for (const f of fs.readdirSync(WORKFLOW_DIR).filter((x) => x.endsWith('.json')))
			fs.copyFileSync(path.join(WORKFLOW_DIR, f), path.join(importDir, 'workflows', f));
		log('n8n import:credentials (first command on the new database: runs the migrations)');
		const cli = (args, file) =>
			srv.runN8nCommand({ procs, p, env: mainEnv, args, logFile: path.join(logs, file) });
		let r = await cli(
			['import:credentials', `--input=${path.join(importDir, 'credentials.json')}`],
			'import-credentials.log',
		);
		if (r.code !== 0)
			throw new Error(`import:credentials failed (${r.code}):\n${r.output.slice(-4000)}`);
		timings.migrateAndImportCredentials = Date.now() - t;
		r = await cli(
			['import:workflow', '--separate', `--input=${path.join(importDir, 'workflows')}`],
			'import-workflows.log',
		);
		if (r.code !== 0)
			throw new Error(`import:workflow failed (${r.code}):\n${r.output.slice(-4000)}`);
		timings.imports = Date.now() - t;

		t = Date.now();
		log('starting n8n main and two workers (queue mode)');
		const expectPackage = env.PACKAGE_NAME;
		const startWorker = (name) =>
			srv.startN8n({
				procs,
				p,
				role: 'worker',
				name,
				env: workerEnv[name],
				logFile: path.join(logs, `${name}.log`),
				expectPackage,
			});
		const [main, ...workers] = await Promise.all([
			srv.startN8n({
				procs,
				p,
				role: 'main',
				name: 'main',
				env: mainEnv,
				logFile: path.join(logs, 'main.log'),
				expectPackage,
			}),
			...WORKERS.map(startWorker),
		]);
		timings.n8nStart = Date.now() - t;
		for (const n of [main, ...workers]) n.ports.forEach((x) => ports.add(x));
		log(
			`main ready at ${main.baseUrl} after ${secs(main.readyMs)}; ${workers.map((w) => `${w.name} after ${secs(w.readyMs)}`).join(', ')}`,
		);

		t = Date.now();
		const { cookie } = await srv.setupOwner(main.baseUrl);
		for (const wf of [CONTACT_WORKFLOW, BATCH_WORKFLOW])
			await srv.activateWorkflow(main.baseUrl, cookie, wf.id);
		for (const wf of [CONTACT_WORKFLOW, BATCH_WORKFLOW])
			await srv.waitForWebhook(main.baseUrl, wf.path, { proc: main.proc });
		timings.publish = Date.now() - t;
		log(`workflows published, production webhooks answer (${secs(timings.publish)})`);
		timings.setupTotal = Date.now() - t0;

		// the context the scenarios get
		const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
		const current = { workers };
		const seenLogs = {}; // worker name -> log text of stopped runs (a restart writes a new file)
		const workerExecutions = (w) => finishedExecutions((seenLogs[w.name] || '') + w.logText());
		const ctx = {
			sandbox,
			runId: Date.now().toString(36),
			get workers() {
				return current.workers;
			},
			main,
			cookie,
			/**
			 * One execution as n8n recorded it (GET /rest/executions/:id, its run data parsed with n8n's own `flatted`):
			 * { id, status, mode, error (message or undefined), items: { nodeName: items output }, errors: { nodeName: message } }.
			 */
			async execution(id) {
				const r = await srv.n8nRequest(
					'GET',
					`${main.baseUrl}/rest/executions/${encodeURIComponent(id)}`,
					{ cookie },
				);
				if (r.status !== 200 || !r.json)
					throw new Error(`GET /rest/executions/${id}: ${r.status} ${r.text.slice(0, 300)}`);
				const e = r.json.data || r.json;
				const flatted = require(path.resolve(p.n8nBin, '..', '..', '..', 'flatted'));
				const data = typeof e.data === 'string' ? flatted.parse(e.data) : e.data || {};
				const result = (data && data.resultData) || {};
				const items = {};
				const errors = {};
				for (const [node, runs] of Object.entries(result.runData || {})) {
					items[node] = runs.reduce(
						(n, run) => n + ((run.data && run.data.main && run.data.main[0]) || []).length,
						0,
					);
					const failed = runs.find((run) => run.error);
					if (failed)
						errors[node] =
							failed.error.message +
							(failed.error.description ? ` (${failed.error.description})` : '');
				}
				return {
					id: String(e.id),
					status: e.status,
					mode: e.mode,
					error: result.error && result.error.message,
					items,
					errors,
				};
			},
			/** Runs one SQL statement in n8n's database (psql -tA): resolves { code, out }. */
			sql: (statement) => postgres.psql(statement, 'n8n'),
			/** Executions the main instance put on the queue, from its log ("Enqueued execution 12 (job 7)"). */
			enqueuedByMain: () =>
				new Set([...main.logText().matchAll(/Enqueued execution (\S+) \(job/g)].map((m) => m[1])),
			/** Which worker finished each execution, from the workers' logs (restarted ones included): { id: name }. */
			finishedBy() {
				const out = {};
				for (const w of current.workers) for (const id of workerExecutions(w)) out[id] = w.name;
				return out;
			},
			onSandboxRequest(fn) {
				hooks.add(fn);
				return () => hooks.delete(fn);
			},
			async fire(webhookPath, bodies) {
				const url = `${main.baseUrl}/webhook/${webhookPath}`;
				const started = Date.now();
				const responses = await Promise.all(
					bodies.map((body) =>
						srv
							.request('POST', url, { body, agent, timeoutMs: 90000 })
							.catch((e) => ({ status: 0, text: e.message, ms: Date.now() - started })),
					),
				);
				return { responses, ms: Date.now() - started };
			},
			/** A point in time: the sandbox's request count, the executions n8n knows and each worker has finished. */
			async mark() {
				const known = await srv.listExecutions(main.baseUrl, cookie, {});
				return {
					index: sandbox.requests.length,
					rest: new Set(known.map((e) => String(e.id))),
					executions: Object.fromEntries(current.workers.map((w) => [w.name, workerExecutions(w)])),
				};
			},
			/** What happened since the mark; waits until n8n lists none of the new executions as running. */
			async since(mark, workflowId) {
				let executions = [];
				await srv.waitFor(
					`executions of ${workflowId} to finish`,
					async () => {
						const all = await srv.listExecutions(main.baseUrl, cookie, { workflowId });
						executions = all.filter((e) => !mark.rest.has(String(e.id)));
						return executions.every(
							(e) => !['running', 'new', 'waiting', 'unknown'].includes(e.status),
						);
					},
					{ timeoutMs: 180000, intervalMs: 500 },
				);
				const perWorker = {};
				for (const w of current.workers) {
					const before = mark.executions[w.name] || new Set();
					perWorker[w.name] = [...workerExecutions(w)].filter((id) => !before.has(id));
				}
				return { requests: sandbox.requests.slice(mark.index), perWorker, executions };
			},
			async restartWorkers() {
				log('restarting both workers');
				await Promise.all(
					current.workers.map(async (w) => {
						await w.stop();
						seenLogs[w.name] = (seenLogs[w.name] || '') + w.logText();
					}),
				);
				current.workers = await Promise.all(
					WORKERS.map((name) =>
						srv.startN8n({
							procs,
							p,
							role: 'worker',
							name,
							env: workerEnv[name],
							logFile: path.join(logs, `${name}-restart-${Date.now()}.log`),
							expectPackage,
						}),
					),
				);
				for (const n of current.workers) n.ports.forEach((x) => ports.add(x));
				log(
					`workers ready again: ${current.workers.map((w) => `${w.name} after ${secs(w.readyMs)}`).join(', ')}`,
				);
			},
		};

		// 6. scenarios
		for (const sc of SCENARIOS) {
			if (procs.signalled) break;
			if (only && !sc.key.includes(only)) continue;
			const ts = Date.now();
			let outcome;
			try {
				const out = await sc.run(ctx);
				outcome =
					out && out.skipped
						? { status: 'SKIP', reason: out.skipped }
						: { status: 'PASS', figures: out.figures };
			} catch (e) {
				outcome = { status: 'FAIL', error: e, figures: e && e.figures };
				failed = true;
			}
			if (procs.signalled) break; // stopped from outside: what failed since then says nothing
			outcome.ms = Date.now() - ts;
			results.push({ ...sc, ...outcome });
			console.log(`${outcome.status.padEnd(4)}  ${sc.title}  (${secs(outcome.ms)})`);
			if (outcome.status === 'SKIP') console.log(`      ${outcome.reason}`);
			if (outcome.status === 'FAIL')
				console.log(
					indent(
						outcome.error && outcome.error.message ? outcome.error.message : String(outcome.error),
					),
				);
		}
		printTable(results, workers, timings);
		if (process.env.RMS_QUEUE_VERBOSE)
			for (const w of [main, ...current.workers])
				console.log(`\n--- ${w.name} log tail\n${w.tail(40)}`);
	} catch (e) {
		failed = true;
		console.error(`\nqueue test setup failed: ${e && e.stack ? e.stack : e}`);
		if (!results.length) results.push({ key: 'setup', status: 'FAIL' });
	} finally {
		const ts = Date.now();
		await procs.stopAll();
		for (const px of proxies) await px.close();
		if (sandbox) await sandbox.close();
		const alive = procs.list.filter((x) => !x.done);
		const open = [];
		for (const port of ports) if (await srv.isListening(port)) open.push(port);
		if (alive.length || open.length) {
			failed = true;
			results.push({ key: 'cleanup', status: 'FAIL' });
			console.log(
				`FAIL  cleanup: still running ${alive.map((x) => `${x.name} (pid ${x.pid})`).join(', ') || '-'}; still listening: ${open.join(', ') || '-'}`,
			);
		} else
			log(
				`stopped ${procs.list.length} processes in ${secs(Date.now() - ts)}; none left, nothing listening on the ${ports.size} ports used`,
			);
		if (scratch) {
			if (failed || process.env.RMS_QUEUE_KEEP)
				console.log(
					`\n(scratch folder kept for inspection: ${scratch}; logs in ${path.join(scratch, 'logs')})`,
				);
			else fs.rmSync(scratch, { recursive: true, force: true });
		}
	}
	const count = (s) => results.filter((x) => x.status === s).length;
	console.log(`\ntotal ${secs(Date.now() - t0)}`);
	console.log(`${count('PASS')} passed, ${count('FAIL')} failed, ${count('SKIP')} skipped`);
	return failed ? 1 : 0;
}

function indent(text) {
	return String(text)
		.split('\n')
		.map((l) => `      ${l}`)
		.join('\n');
}

function printTable(results, workers, timings) {
	const rows = results.flatMap((r) => (r.figures || []).map((f) => ({ ...f, status: r.status })));
	if (!rows.length) return;
	const names = WORKERS;
	const fmt = (o) =>
		o
			? perProcess(
					o,
					names.map((name) => ({ name })),
				)
			: '-';
	console.log(
		'\nMeasured (POST /Auth and 401 per n8n process, from the x-rms-queue-process header the sandbox recorded):',
	);
	const head = [
		'scenario',
		'executions',
		'ok',
		'worker1/worker2',
		'POST /Auth',
		'401s',
		'duration',
		'p50/p95 per call',
	];
	const lines = rows.map((f) => [
		f.scenario,
		String(f.executions),
		String(f.ok),
		f.split ? names.map((n) => f.split[n] || 0).join('/') : '-',
		fmt(f.auth),
		fmt(f.unauthorized),
		f.ms === undefined ? '-' : secs(f.ms) + (f.restartMs ? ` (restart ${secs(f.restartMs)})` : ''),
		f.p50 === undefined ? '-' : `${secs(f.p50)}/${secs(f.p95)}`,
	]);
	const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
	const line = (cols) => cols.map((c, i) => c.padEnd(widths[i])).join('  ');
	console.log(line(head));
	console.log(widths.map((w) => '-'.repeat(w)).join('  '));
	for (const l of lines) console.log(line(l));
	for (const f of rows)
		if (f.records !== undefined)
			console.log(
				`  ${f.scenario}: ${f.records} records, ${f.creates} POST /Contact, refused ${JSON.stringify(f.refused)}`,
			);
	for (const f of rows)
		for (const d of f.details || []) console.log(`  ${f.scenario.split(' ')[0]}: ${d}`);
	console.log(
		`\nsetup: packages ${secs(timings.packages || 0)}, n8n cache + build ${secs(timings.n8nAndBuild || 0)}, Redis + Postgres ${secs(
			timings.services || 0,
		)}, migrations + imports ${secs(timings.imports || 0)}, main + 2 workers ready ${secs(timings.n8nStart || 0)}, publish + webhooks ${secs(
			timings.publish || 0,
		)}; all set up after ${secs(timings.setupTotal || 0)}`,
	);
}

main().then(
	(code) => process.exit(code),
	(e) => {
		console.error(`\nqueue test failed: ${e && e.stack ? e.stack : e}`);
		console.log('0 passed, 1 failed');
		process.exit(1);
	},
);
