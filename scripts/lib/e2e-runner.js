'use strict';
/*
 * Runs n8n workflows end to end with the real n8n CLI and checks them: the part shared by `npm run test:e2e`
 * (scripts/e2e.js, against the sandbox) and `npm run test:espocrm` (scripts/espocrm/run.js, against a real EspoCRM).
 *
 *   1. installs or reuses Node 24 + n8n 2.41.1 (scripts/n8n-env.js, cached outside the repository)
 *   2. npm run build (unless --no-build), and checks that the package's dist/ files exist
 *   3. a fresh n8n user folder (<workDir>/user-folder) with this repository linked in as a community package
 *   4. the server under test: `start()` of the caller (see below)
 *   5. its credentials and <workflowDir>/*.json imported with the n8n CLI
 *   6. each workflow run with `n8n execute --id=<id>`, its run data parsed and handed to the sibling
 *      <name>.check.js: module.exports = (result, server, assert) => { ... }
 *      (optional: module.exports.before = (server) => { ... } runs before the execution)
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
 * `wf` is {name, id, checkFile, state: {}}: `state` is shared by the workflow's before and check.
 */

const fs = require('fs');
const path = require('path');
const assert = require('assert/strict');
const env = require('../n8n-env');

const REPO = env.REPO_ROOT;

const secs = (ms) => `${(ms / 1000).toFixed(1)}s`;

/** `n8n execute` prints log lines, then "Execution was successful:", a line of "=" and the run as JSON. */
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

function parseRunSafely(stdout) {
	try {
		return parseRun(stdout);
	} catch {
		return undefined;
	}
}

function errorText(res) {
	const all = `${res.stdout}\n${res.stderr}`;
	const lines = all.split('\n').filter((l) => l.trim());
	const i = lines.findIndex((l) => /Execution was NOT successful|Error executing workflow|error/i.test(l));
	return (i >= 0 ? lines.slice(i, i + 25) : lines.slice(-25)).join('\n');
}

/** n8n's own words for some failures say little: what they usually mean. */
function hint(res) {
	if (/No active execution found/.test(`${res.stdout}\n${res.stderr}`) && !/Execution was NOT successful/.test(res.stdout))
		return '\n(n8n refused to start the workflow: usually a node parameter that the node as built does not accept: a required one missing (saved under another name) or a value of another shape)';
	return '';
}

/** What a check module receives as `result`. */
function makeResult(name, run, res) {
	const runData = (run && run.data && run.data.resultData && run.data.resultData.runData) || {};
	const nodeRuns = (node) => {
		if (!runData[node]) throw new assert.AssertionError({ message: `node "${node}" did not run (ran: ${Object.keys(runData).join(', ')})` });
		return runData[node];
	};
	return {
		name,
		run,
		runData,
		durationMs: res.ms,
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
	if (path.relative(REPO, dir).startsWith('..')) throw new Error(`${dir} must be inside the repository (module resolution)`);
	fs.rmSync(dir, { recursive: true, force: true });
	fs.mkdirSync(dir, { recursive: true });
	fs.copyFileSync(path.join(REPO, 'package.json'), path.join(dir, 'package.json'));
	fs.cpSync(path.join(REPO, 'dist'), path.join(dir, 'dist'), { recursive: true });
	for (const f of [...pkg.n8n.nodes, ...pkg.n8n.credentials])
		if (!fs.existsSync(path.join(dir, f))) throw new Error(`${f} is missing in the copy of the package (a build running meanwhile?)`);
	return dir;
}

/** The workflows of a folder (file-name order), each with its check module beside it. */
function loadWorkflows(workflowDir, only) {
	const names = fs
		.readdirSync(workflowDir)
		.filter((f) => f.endsWith('.json'))
		.map((f) => f.slice(0, -5))
		.filter((n) => n.includes(only))
		.sort();
	if (!names.length) throw new Error(`no workflows in ${workflowDir}${only ? ` matching "${only}"` : ''}`);
	return names.map((name) => {
		const wf = JSON.parse(fs.readFileSync(path.join(workflowDir, `${name}.json`), 'utf8'));
		if (!wf.id) throw new Error(`${name}.json has no "id" (n8n import:workflow needs one)`);
		const checkFile = path.join(workflowDir, `${name}.check.js`);
		if (!fs.existsSync(checkFile)) throw new Error(`${name}.json has no ${name}.check.js beside it`);
		return { name, id: wf.id, checkFile, json: wf, state: {} };
	});
}

/**
 * The whole run. Resolves to the exit code (0: every workflow passed).
 * options: workflowDir, workDir, start() (see above), argv (default process.argv.slice(2)),
 *          only (default $E2E_ONLY), keep (default $E2E_KEEP), afterRun(summary) (optional, prints extra lines),
 *          saveOutput (write each execution's output to <workDir>/<name>.out.txt),
 *          isolatePackage (n8n loads a copy of package.json + dist/ made right after the build, in <workDir>/package,
 *          so that a build started meanwhile in the same checkout cannot change the package under a running test),
 *          tolerateCrashAfterSuccess (an `n8n execute` that printed a finished, successful run and then died with
 *          SIGSEGV while exiting is checked like a successful one).
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
		isolatePackage = false,
		tolerateCrashAfterSuccess = false,
	} = options;
	const t0 = Date.now();

	const p = await env.ensureN8n();
	const tInstall = Date.now() - t0;

	if (!argv.includes('--no-build')) {
		env.log('npm run build');
		await env.runNpm(['run', 'build']);
	}
	const pkg = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8'));
	for (const f of [...pkg.n8n.nodes, ...pkg.n8n.credentials])
		if (!fs.existsSync(path.join(REPO, f))) throw new Error(`${f} is missing after the build`);
	const packageRoot = isolatePackage ? copyPackage(pkg, path.join(workDir, 'package')) : REPO;

	// fresh user folder
	const userFolder = path.join(workDir, 'user-folder');
	fs.rmSync(userFolder, { recursive: true, force: true });
	fs.mkdirSync(userFolder, { recursive: true });
	env.prepareUserFolder(userFolder, { repoRoot: packageRoot });
	const n8nEnv = env.n8nEnv(userFolder);

	// the server under test
	const server = await start();

	let passed = 0;
	let failed = 0;
	const results = [];
	try {
		// credentials
		const importDir = path.join(workDir, 'import');
		fs.rmSync(importDir, { recursive: true, force: true });
		fs.mkdirSync(path.join(importDir, 'workflows'), { recursive: true });
		const creds = server.credentials;
		fs.writeFileSync(path.join(importDir, 'credentials.json'), JSON.stringify(creds, null, 2));
		env.log(`n8n import:credentials (${creds.length})`);
		let res = await env.runN8n(p, n8nEnv, ['import:credentials', `--input=${path.join(importDir, 'credentials.json')}`]);
		if (res.code !== 0) throw new Error(`import:credentials failed:\n${errorText(res)}`);

		// workflows
		const workflows = loadWorkflows(workflowDir, only);
		for (const wf of workflows) fs.writeFileSync(path.join(importDir, 'workflows', `${wf.name}.json`), JSON.stringify(wf.json));
		env.log(`n8n import:workflow (${workflows.length})`);
		res = await env.runN8n(p, n8nEnv, ['import:workflow', '--separate', `--input=${path.join(importDir, 'workflows')}`]);
		if (res.code !== 0) throw new Error(`import:workflow failed:\n${errorText(res)}`);

		const tSetup = Date.now() - t0;
		console.log(`\nRunning ${workflows.length} workflow(s) with n8n ${env.N8N_VERSION} (setup took ${secs(tSetup)}, install check ${secs(tInstall)})\n`);

		for (const wf of workflows) {
			let problem;
			let from = server.mark();
			let r = { ms: 0 };
			const started = Date.now();
			try {
				delete require.cache[require.resolve(wf.checkFile)];
				const check = require(wf.checkFile);
				// an optional `before(server)` export prepares the server (for example expireTokens())
				if (typeof check.before === 'function') await check.before(server.beforeArg(wf));
				from = server.mark();
				r = await env.runN8n(p, n8nEnv, ['execute', `--id=${wf.id}`], { timeoutMs: 3 * 60 * 1000 });
				if (saveOutput) fs.writeFileSync(path.join(workDir, `${wf.name}.out.txt`), `${r.stdout}\n--- stderr ---\n${r.stderr}`);
				let crashedAfter = false;
				if (r.code !== 0) {
					// n8n 2.41.1 on Node 24 now and then dies with SIGSEGV while shutting down, after it printed the whole run
					const printed = tolerateCrashAfterSuccess && r.code === 'SIGSEGV' ? parseRunSafely(r.stdout) : undefined;
					if (!(printed && printed.finished && printed.status === 'success'))
						throw new Error(`n8n execute exited with ${r.code}:\n${errorText(r)}${hint(r)}`);
					crashedAfter = true;
				}
				const run = parseRun(r.stdout);
				if (crashedAfter) console.log(`      (${wf.name}: n8n crashed with SIGSEGV while exiting, after printing a successful run: checked anyway)`);
				if (!run) throw new Error(`no "Execution was successful:" JSON in the output:\n${errorText(r)}`);
				await check(makeResult(wf.name, run, r), server.checkArg(from, wf), assert);
			} catch (e) {
				problem = e || new Error('failed');
			}
			results.push({ name: wf.name, ok: !problem, executeMs: r.ms, totalMs: Date.now() - started, problem });
			if (!problem) {
				passed++;
				console.log(`PASS  ${wf.name}  (${secs(r.ms)})`);
			} else {
				failed++;
				console.log(`FAIL  ${wf.name}  (${secs(r.ms)})`);
				console.log(
					String(problem && problem.stack ? problem.message : problem)
						.split('\n')
						.map((l) => `      ${l}`)
						.join('\n'),
				);
				for (const l of server.failureLines(from)) console.log(l);
			}
		}
	} finally {
		await server.close();
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
			console.error(`\n${label} setup failed: ${e && e.userFacing ? e.message : e && e.stack ? e.stack : e}`);
			console.log('0 passed, 1 failed');
			process.exit(1);
		},
	);
}

module.exports = { runE2E, exitWith, parseRun, errorText, makeResult, loadWorkflows, secs };
