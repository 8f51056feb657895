'use strict';
/*
 * Runs n8n workflows end to end with the real n8n CLI and checks them: the part shared by `npm run test:e2e`
 * (test/e2e/run.js, against the sandbox) and `npm run test:espocrm` (test/espocrm/run.js, against a real EspoCRM).
 *
 *   1. installs or reuses Node 24 + n8n 2.41.1 (test/lib/n8n-env.js, cached outside the repository)
 *   2. a fresh n8n user folder (<workDir>/user-folder) with this repository (or its copy) linked in as a community
 *      package
 *   3. npm run build (unless --no-build), and checks that the package's dist/ files exist; meanwhile (the import
 *      commands load no community package) steps 4 and 5
 *   4. the server under test: `start()` of the caller (see below)
 *   5. its credentials and <workflowDir>/*.json imported with the n8n CLI
 *   6. each workflow run with `n8n execute --id=<id>`, judged by the execution it SAVED in n8n's database (not by
 *      what it printed, nor by its exit code alone: test/lib/saved-executions.js says why), and that execution
 *      handed to the sibling <name>.check.js: module.exports = (result, server, assert) => { ... }
 *      (optional: module.exports.before = (server) => { ... } runs before the execution)
 *      A run passes when n8n saved its execution with status "success" and the check passes; a run whose saved
 *      execution failed, or that saved none, fails with the saved error (or the end of n8n's output).
 *
 * `start()` resolves to the server under test, as the runner uses it:
 *   {
 *     credentials: [{id, name, type, data}],   // for `n8n import:credentials`
 *     mark(): any,                             // where the server's record of traffic stands (before an execution)
 *     beforeArg(wf): any,                      // what `check.before` receives
 *     checkArg(from, wf): any,                 // what the check receives as its second argument
 *     failureLines(from): string[],            // printed under a FAIL (what the server received)
 *     close(): Promise<void>,
 *   }
 * `wf` is {name, id, checkFile, state: {}, runs, runNumber}: `state` is shared by the workflow's before and check.
 *
 * Additions (all optional; see runE2E):
 *   extraWorkflows   workflows from elsewhere (the examples), run after those of workflowDir
 *   importOnly       workflows imported with the others but not run (used by phases)
 *   prepareWorkflow  rewrites a workflow's JSON before the import (placeholders such as a folder's path)
 *   n8nEnv           more environment variables for every n8n process
 *   phases           longer scenarios of their own (the webhook trigger in `n8n start`), started right after the
 *                    import and run alongside the workflows; each is one PASS/FAIL line, counted like a workflow
 *   `module.exports.runs = 2` in a check module runs the workflow twice (the check sees result.runNumber);
 *   its `before` runs once, before the first run.
 */

const fs = require('fs');
const path = require('path');
const assert = require('assert/strict');
const env = require('./n8n-env');
const saved = require('./saved-executions');

const REPO = env.REPO_ROOT;

const secs = (ms) => `${(ms / 1000).toFixed(1)}s`;

/**
 * The run as `n8n execute` printed it ("Execution was successful:", a line of "=" and the run as indented JSON), or
 * undefined. Only for callers that need the printed run (the bench, which does not save executions); the test
 * runners read the saved execution instead: the printed text can be cut off or too large for a string.
 */
function parseRun(stdout) {
	const marker = 'Execution was successful:';
	const at = stdout.lastIndexOf(marker);
	if (at < 0) return undefined;
	const lines = stdout.slice(at + marker.length).split('\n');
	const start = lines.findIndex((l) => l.startsWith('{'));
	if (start < 0) return undefined;
	// JSON.stringify(data, null, 2): the object closes with "}" alone at column 0; log lines may follow
	const end = lines.findIndex((l, i) => i > start && l === '}');
	return JSON.parse(lines.slice(start, end + 1).join('\n'));
}

function errorText(res) {
	const all = `${res.stdout}\n${res.stderr}`;
	const lines = all.split('\n').filter((l) => l.trim());
	const i = lines.findIndex((l) =>
		/Execution was NOT successful|Error executing workflow|error/i.test(l),
	);
	return (i >= 0 ? lines.slice(i, i + 25) : lines.slice(-25)).join('\n');
}

/** n8n's own words for some failures say little: what they usually mean. */
function hint(res) {
	if (
		/No active execution found/.test(`${res.stdout}\n${res.stderr}`) &&
		!/Execution was NOT successful/.test(res.stdout)
	)
		return '\n(n8n refused to start the workflow: usually a node parameter that the node as built does not accept: a required one missing (saved under another name) or a value of another shape)';
	return '';
}

/**
 * What a check module receives as `result`. `run` is the saved execution: { id, workflowId, mode, status, finished,
 * startedAt, stoppedAt, data: { resultData: { runData, error, lastNodeExecuted }, ... } }, the same shape as the
 * run `n8n execute` prints. `res` is runN8n()'s result (its stdout is only the end of the output).
 */
function makeResult(name, run, res, { runNumber = 1, runs = 1 } = {}) {
	const runData = (run && run.data && run.data.resultData && run.data.resultData.runData) || {};
	const nodeRuns = (node) => {
		if (!runData[node])
			throw new assert.AssertionError({
				message: `node "${node}" did not run (ran: ${Object.keys(runData).join(', ')})`,
			});
		return runData[node];
	};
	return {
		name,
		run,
		runData,
		/** 1 for the first execution of a workflow that runs several times (`module.exports.runs`), 2 for the second... */
		runNumber,
		runs,
		durationMs: res.ms,
		/** the saved execution's id in the run's n8n database */
		executionId: run && run.id,
		/** how `n8n execute` ended: 0, 1, or a signal's name ('SIGSEGV'); the run is judged by the saved execution */
		exitCode: res.code,
		/** the END of what `n8n execute` printed (at most 256 Ki characters): never parse the run from it */
		stdout: res.stdout,
		nodesRun: Object.keys(runData),
		/** json of the items of a node's output (default: last run, output 0) */
		items(node, { output = 0, runIndex = -1 } = {}) {
			const runs = nodeRuns(node);
			const r = runs[runIndex < 0 ? runs.length + runIndex : runIndex];
			const main = (r.data && r.data.main) || [];
			return (main[output] || []).map((i) => i.json);
		},
		/** full items (json, pairedItem, error...) */
		rawItems(node, { output = 0, runIndex = -1 } = {}) {
			const runs = nodeRuns(node);
			const r = runs[runIndex < 0 ? runs.length + runIndex : runIndex];
			return ((r.data && r.data.main) || [])[output] || [];
		},
		/** the node's error, if it failed */
		error(node) {
			const runs = nodeRuns(node);
			return runs[runs.length - 1].error;
		},
	};
}

/** package.json and dist/ copied to `dir` (modules such as n8n-workflow still resolve from the repository's node_modules above it). */
function copyPackage(pkg, dir) {
	if (path.relative(REPO, dir).startsWith('..'))
		throw new Error(`${dir} must be inside the repository (module resolution)`);
	fs.rmSync(dir, { recursive: true, force: true });
	fs.mkdirSync(dir, { recursive: true });
	fs.copyFileSync(path.join(REPO, 'package.json'), path.join(dir, 'package.json'));
	fs.cpSync(path.join(REPO, 'dist'), path.join(dir, 'dist'), { recursive: true });
	for (const f of [...pkg.n8n.nodes, ...pkg.n8n.credentials])
		if (!fs.existsSync(path.join(dir, f)))
			throw new Error(`${f} is missing in the copy of the package (a build running meanwhile?)`);
	return dir;
}

/** The workflows of a folder (file-name order), each with its check module beside it. */
function loadWorkflows(workflowDir, only, { allowNone = false } = {}) {
	const names = fs
		.readdirSync(workflowDir)
		.filter((f) => f.endsWith('.json'))
		.map((f) => f.slice(0, -5))
		.filter((n) => n.includes(only))
		.sort();
	if (!names.length && !allowNone)
		throw new Error(`no workflows in ${workflowDir}${only ? ` matching "${only}"` : ''}`);
	return names.map((name) => {
		const wf = JSON.parse(fs.readFileSync(path.join(workflowDir, `${name}.json`), 'utf8'));
		if (!wf.id) throw new Error(`${name}.json has no "id" (n8n import:workflow needs one)`);
		const checkFile = path.join(workflowDir, `${name}.check.js`);
		if (!fs.existsSync(checkFile))
			throw new Error(`${name}.json has no ${name}.check.js beside it`);
		return { name, id: wf.id, checkFile, json: wf, state: {} };
	});
}

/**
 * n8n 2.41.1's `n8n execute` names the Manual Trigger as the start node but does not use it: the run starts at the
 * first trigger node in the workflow's node list (Workflow.getStartNode()), a Schedule Trigger listed before the
 * Manual Trigger included. The Manual Triggers are therefore moved to the front of the list (the editor does not
 * care about the order).
 */
function manualTriggerFirst(json) {
	const manual = (n) => n.type === 'n8n-nodes-base.manualTrigger';
	if (!json.nodes.some(manual)) return json;
	return {
		...json,
		nodes: [...json.nodes.filter(manual), ...json.nodes.filter((n) => !manual(n))],
	};
}

/** How often a check module wants its workflow run (`module.exports.runs`, default 1). */
function runsOf(checkFile) {
	const runs = require(checkFile).runs;
	if (runs === undefined) return 1;
	if (!Number.isInteger(runs) || runs < 1)
		throw new Error(`${checkFile}: module.exports.runs must be a whole number of at least 1`);
	return runs;
}

/**
 * The whole run. Resolves to the exit code (0: every workflow passed).
 * options: workflowDir, workDir, start() (see above), argv (default process.argv.slice(2)),
 *          only (default $E2E_ONLY), keep (default $E2E_KEEP), afterRun(summary) (optional, prints extra lines),
 *          saveOutput (stream each execution's whole output to <workDir>/<name>.out.txt; without it, only its end
 *          is kept, in memory, for the report of a failure),
 *          executeTimeoutMs (how long one `n8n execute` may take before it is killed; default $E2E_EXECUTE_TIMEOUT_MS
 *          or 15 minutes: n8n's own start takes 10 to 60 s on a loaded 2-core machine, and a timeout only
 *          matters when something hangs),
 *          isolatePackage (n8n loads a copy of package.json + dist/ made right after the build, in <workDir>/package,
 *          so that a build started meanwhile in the same checkout cannot change the package under a running test),
 *          tolerateCrashAfterSuccess (accepted for compatibility; every run is now judged by its saved execution,
 *          so an `n8n execute` that saved a successful run and then died (SIGSEGV on its way out, seen with n8n
 *          2.41.1 on Node 24) is checked like any other, with a note),
 *          extraWorkflows ([{ name, json, checkFile }]: run after those of workflowDir, in this order; `only`
 *          applies to their names too),
 *          importOnly ([workflow JSON]: imported with the others, never run by `n8n execute`),
 *          prepareWorkflow ((json, wf) => json: each workflow to run, before the import),
 *          n8nEnv ({ NAME: value }: added to the environment of every n8n process),
 *          phases ([{ name, run(ctx), afterWorkflows?, after? }]: started once the import is done, alongside the workflows
 *          (with afterWorkflows: once they are done, for a phase that writes what the workflows' checks count; with
 *          after: the name of an earlier phase: once that one has ended, for phases that read what the other writes); a phase passes
 *          when run() resolves and fails when it rejects; `only` applies to the names. ctx = { p, userFolder,
 *          n8nEnv, databaseFiles, packageRoot, workDir, keep, log }: p from ensureN8n(), userFolder and n8nEnv those of
 *          the workflows (their executions write to its database meanwhile), databaseFiles a copy of n8n's database
 *          files as the import left them (credentials and workflows, importOnly included: copy them into a user
 *          folder of the phase's own), packageRoot the package n8n loads).
 */
async function runE2E(options) {
	const {
		workflowDir,
		workDir,
		start,
		argv = process.argv.slice(2),
		only = process.env.E2E_ONLY || '',
		keep = !!process.env.E2E_KEEP,
		afterRun,
		saveOutput = false,
		executeTimeoutMs = Number(process.env.E2E_EXECUTE_TIMEOUT_MS) || 15 * 60 * 1000,
		isolatePackage = false,
		extraWorkflows = [],
		importOnly = [],
		prepareWorkflow,
		n8nEnv: moreEnv = {},
		phases = [],
	} = options;
	const t0 = Date.now();

	// what will run: known before anything long starts
	const chosenExtra = extraWorkflows
		.filter((w) => w.name.includes(only))
		.map((w) => ({ state: {}, ...w, id: w.json.id }));
	const chosenPhases = phases.filter((ph) => ph.name.includes(only));
	const workflows = [
		...loadWorkflows(workflowDir, only, {
			allowNone: chosenExtra.length + chosenPhases.length > 0,
		}),
		...chosenExtra,
	];
	for (const wf of workflows) {
		if (!wf.id) throw new Error(`${wf.name} has no "id" (n8n import:workflow needs one)`);
		wf.runs = runsOf(wf.checkFile);
	}

	const p = await env.ensureN8n();
	const tInstall = Date.now() - t0;
	const pkg = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8'));
	const packageRoot = isolatePackage ? path.join(workDir, 'package') : REPO;

	// fresh user folder (with isolatePackage, its link to the package resolves once the build is copied)
	const userFolder = path.join(workDir, 'user-folder');
	fs.rmSync(userFolder, { recursive: true, force: true });
	fs.mkdirSync(userFolder, { recursive: true });
	env.prepareUserFolder(userFolder, { repoRoot: packageRoot });
	// every execution saved (the runs are judged by it), the caller's variables after
	const n8nEnv = env.n8nEnv(userFolder, { ...saved.SAVE_ENV, ...moreEnv });

	let server;
	let passed = 0;
	let failed = 0;
	const results = [];
	const report = (name, problem, ms, extraLines = []) => {
		if (!problem) {
			passed++;
			console.log(`PASS  ${name}  (${secs(ms)})`);
			return;
		}
		failed++;
		console.log(`FAIL  ${name}  (${secs(ms)})`);
		console.log(
			String(problem && problem.stack ? problem.message : problem)
				.split('\n')
				.map((l) => `      ${l}`)
				.join('\n'),
		);
		for (const l of extraLines) console.log(l);
	};
	let running = [];
	const importDir = path.join(workDir, 'import');
	try {
		// the build, and meanwhile the server under test and the import (`n8n import:*` loads no community package)
		const building = (async () => {
			if (!argv.includes('--no-build')) {
				env.log('npm run build');
				await env.runNpm(['run', 'build']);
			}
			for (const f of [...pkg.n8n.nodes, ...pkg.n8n.credentials])
				if (!fs.existsSync(path.join(REPO, f))) throw new Error(`${f} is missing after the build`);
			if (isolatePackage) copyPackage(pkg, packageRoot);
		})();
		const importing = (async () => {
			server = await start();
			// credentials
			fs.rmSync(importDir, { recursive: true, force: true });
			fs.mkdirSync(path.join(importDir, 'workflows'), { recursive: true });
			const creds = server.credentials;
			fs.writeFileSync(path.join(importDir, 'credentials.json'), JSON.stringify(creds, null, 2));
			env.log(`n8n import:credentials (${creds.length})`);
			let res = await env.runN8n(p, n8nEnv, [
				'import:credentials',
				`--input=${path.join(importDir, 'credentials.json')}`,
			]);
			if (res.code !== 0) throw new Error(`import:credentials failed:\n${errorText(res)}`);

			// workflows (one file per workflow id: a workflow that runs twice is imported once)
			const toImport = new Map();
			for (const wf of workflows) {
				wf.json = saved.saveSettingsForced(manualTriggerFirst(wf.json));
				if (prepareWorkflow) wf.json = prepareWorkflow(wf.json, wf);
				toImport.set(wf.id, wf.json);
			}
			for (const json of chosenPhases.length ? importOnly : []) toImport.set(json.id, json);
			for (const [id, json] of toImport)
				fs.writeFileSync(path.join(importDir, 'workflows', `${id}.json`), JSON.stringify(json));
			env.log(`n8n import:workflow (${toImport.size})`);
			res = await env.runN8n(p, n8nEnv, [
				'import:workflow',
				'--separate',
				`--input=${path.join(importDir, 'workflows')}`,
			]);
			if (res.code !== 0) throw new Error(`import:workflow failed:\n${errorText(res)}`);
		})();
		// both end before anything is reported: no process of theirs is left running
		const [built, imported] = await Promise.allSettled([building, importing]);
		if (built.status === 'rejected') throw built.reason;
		if (imported.status === 'rejected') throw imported.reason;

		const tSetup = Date.now() - t0;
		// phases: alongside the workflows, each with a copy of the database as the import left it (SQLite in WAL mode:
		// the file and its -wal file, taken while no n8n process runs)
		const databaseFiles = [];
		if (chosenPhases.length) {
			const dbDir = path.join(importDir, 'database');
			fs.mkdirSync(dbDir, { recursive: true });
			for (const f of ['database.sqlite', 'database.sqlite-wal']) {
				const from = path.join(userFolder, '.n8n', f);
				if (!fs.existsSync(from)) continue;
				fs.copyFileSync(from, path.join(dbDir, f));
				databaseFiles.push(path.join(dbDir, f));
			}
		}
		const startedPhases = new Map();
		const startPhase = (phase) => {
			const ctx = {
				p,
				userFolder,
				n8nEnv,
				databaseFiles,
				packageRoot,
				workDir,
				keep,
				log: env.log,
			};
			let started;
			// `after`: once that phase (when it runs at all) has ended, passed or not
			const outcome = (startedPhases.get(phase.after) || Promise.resolve())
				.then(() => {
					started = Date.now();
					return phase.run(ctx);
				})
				.then(
					() => ({ phase, ms: Date.now() - started }),
					(problem) => ({
						phase,
						ms: Date.now() - started,
						problem: problem || new Error('failed'),
					}),
				);
			startedPhases.set(phase.name, outcome);
			return outcome;
		};
		running = chosenPhases.filter((phase) => !phase.afterWorkflows).map(startPhase);
		const count = workflows.reduce((n, wf) => n + wf.runs, 0);
		console.log(
			`\nRunning ${count} workflow execution(s)${chosenPhases.length ? ` and ${chosenPhases.map((ph) => ph.name).join(', ')} alongside` : ''} with n8n ${env.N8N_VERSION} (setup took ${secs(tSetup)}, install check ${secs(tInstall)})\n`,
		);

		// executions saved so far (none after an import): each run reads only what it added
		let lastExecutionId = await saved.lastExecutionId(p, userFolder);
		for (const wf of workflows) {
			for (let runNumber = 1; runNumber <= wf.runs; runNumber++) {
				const label = wf.runs > 1 ? `${wf.name} (run ${runNumber} of ${wf.runs})` : wf.name;
				let problem;
				let from = server.mark();
				let r = { ms: 0 };
				const started = Date.now();
				wf.runNumber = runNumber;
				try {
					delete require.cache[require.resolve(wf.checkFile)];
					const check = require(wf.checkFile);
					// an optional `before(server)` export prepares the server (for example expireTokens()), once
					if (runNumber === 1 && typeof check.before === 'function')
						await check.before(server.beforeArg(wf));
					from = server.mark();
					const outputFile = saveOutput
						? path.join(workDir, `${wf.name}${wf.runs > 1 ? `.${runNumber}` : ''}.out.txt`)
						: undefined;
					const ran = await saved.executeAndRead({
						p,
						n8nEnv,
						runN8n: env.runN8n,
						workflowId: wf.id,
						afterId: lastExecutionId,
						outputFile,
						timeoutMs: executeTimeoutMs,
					});
					r = ran.res;
					lastExecutionId = ran.lastId;
					if (ran.problem) {
						const output =
							ran.execution && ran.execution.status === 'error'
								? ''
								: `\n${errorText(r)}${hint(r)}`;
						throw new Error(
							`${ran.problem}${output}${outputFile ? `\n(whole output: ${outputFile})` : ''}`,
						);
					}
					// n8n 2.41.1 on Node 24 now and then dies with SIGSEGV on its way out, after saving a successful run
					if (r.code !== 0)
						console.log(
							`      (${label}: n8n execute exited with ${r.code} after saving successful execution ${ran.execution.id}: checked by what it saved)`,
						);
					await check(
						makeResult(wf.name, ran.execution, r, { runNumber, runs: wf.runs }),
						server.checkArg(from, wf),
						assert,
					);
				} catch (e) {
					problem = e || new Error('failed');
				}
				results.push({
					name: label,
					ok: !problem,
					executeMs: r.ms,
					totalMs: Date.now() - started,
					problem,
				});
				report(label, problem, r.ms, problem ? server.failureLines(from) : []);
			}
		}
		// phases whose records the workflows' checks would count start when the workflows are done
		running.push(...chosenPhases.filter((phase) => phase.afterWorkflows).map(startPhase));
	} finally {
		// the phases stop what they started themselves, also when they fail
		for (const { phase, ms, problem } of await Promise.all(running)) {
			results.push({ name: phase.name, ok: !problem, totalMs: ms, problem, phase: true });
			report(phase.name, problem, ms, (problem && problem.lines) || []);
		}
		if (server) await server.close();
		if (!failed && !keep) fs.rmSync(userFolder, { recursive: true, force: true });
		else console.log(`\n(n8n user folder kept for inspection: ${userFolder})`);
	}
	if (afterRun) await afterRun({ results, passed, failed, totalMs: Date.now() - t0 });
	console.log(`\ntotal ${secs(Date.now() - t0)}`);
	console.log(`${passed} passed, ${failed} failed`);
	return failed ? 1 : 0;
}

/** process.exit with the code, or the setup failure printed as `<label> setup failed: …` and counted as one failure. */
function exitWith(promise, label) {
	return promise.then(
		(code) => process.exit(code),
		(e) => {
			console.error(
				`\n${label} setup failed: ${e && e.userFacing ? e.message : e && e.stack ? e.stack : e}`,
			);
			console.log('0 passed, 1 failed');
			process.exit(1);
		},
	);
}

module.exports = { runE2E, exitWith, parseRun, errorText, makeResult, loadWorkflows, secs };
