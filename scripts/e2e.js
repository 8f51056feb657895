#!/usr/bin/env node
'use strict';
/*
 * End-to-end test with the real n8n (npm run test:e2e).
 *
 *   1. installs or reuses Node 24 + n8n 2.41.1 (scripts/n8n-env.js, cached outside the repository)
 *   2. npm run build
 *   3. a fresh n8n user folder (.e2e/user-folder) with this repository linked in as a community package
 *   4. the sandbox server in this process, on a free port
 *   5. credentials (one per authentication scheme) and test/e2e/workflows/*.json imported with the n8n CLI
 *   6. each workflow run with `n8n execute --id=<id>`, its run data parsed and handed to the sibling
 *      <name>.check.js: module.exports = (result, sandbox, assert) => { ... }
 *      (optional: module.exports.before = (sandbox) => { ... } runs before the execution)
 *      result.items(nodeName) = json of the node's output items, result.rawItems(nodeName), result.error(nodeName);
 *      sandbox.requests = requests of this execution only, sandbox.find(method, path|RegExp), sandbox.allRequests
 *
 * Options: E2E_ONLY=<substring> runs only matching workflows; --no-build skips the build;
 *          E2E_KEEP=1 keeps .e2e/user-folder (it is always kept on failure).
 */

const fs = require('fs');
const path = require('path');
const assert = require('assert/strict');
const env = require('./n8n-env');
const { credentialFiles } = require('../test/e2e/credentials');

const REPO = env.REPO_ROOT;
const WORKFLOW_DIR = path.join(REPO, 'test', 'e2e', 'workflows');
const WORK_DIR = path.join(REPO, '.e2e');

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

function errorText(res) {
	const all = `${res.stdout}\n${res.stderr}`;
	const lines = all.split('\n').filter((l) => l.trim());
	const i = lines.findIndex((l) => /Execution was NOT successful|Error executing workflow|error/i.test(l));
	return (i >= 0 ? lines.slice(i, i + 25) : lines.slice(-25)).join('\n');
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

/** The sandbox as a check sees it: `requests` are only those of this workflow's execution. */
function sandboxView(sandbox, from) {
	const view = Object.create(sandbox);
	const requests = sandbox.requests.slice(from);
	Object.defineProperty(view, 'requests', { value: requests });
	Object.defineProperty(view, 'allRequests', { get: () => sandbox.requests });
	/** requests of this execution, filtered: find('POST', '/Contact') or find('GET', /^\/Contact\//) */
	view.find = (method, p) =>
		requests.filter(
			(r) => (!method || r.method === method) && (!p || (p instanceof RegExp ? p.test(r.path) : r.path === p)),
		);
	return view;
}

async function main() {
	const argv = process.argv.slice(2);
	const only = process.env.E2E_ONLY || '';
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

	// fresh user folder
	const userFolder = path.join(WORK_DIR, 'user-folder');
	fs.rmSync(userFolder, { recursive: true, force: true });
	fs.mkdirSync(userFolder, { recursive: true });
	env.prepareUserFolder(userFolder);
	const n8nEnv = env.n8nEnv(userFolder);

	// sandbox in this process
	const { startSandbox } = require('../test/sandbox');
	const sandbox = await startSandbox({ port: 0 });
	env.log(`sandbox at ${sandbox.baseUrl}`);

	let passed = 0;
	let failed = 0;
	try {
		// credentials
		const importDir = path.join(WORK_DIR, 'import');
		fs.rmSync(importDir, { recursive: true, force: true });
		fs.mkdirSync(path.join(importDir, 'workflows'), { recursive: true });
		const creds = credentialFiles(sandbox.origin);
		fs.writeFileSync(path.join(importDir, 'credentials.json'), JSON.stringify(creds, null, 2));
		env.log(`n8n import:credentials (${creds.length})`);
		let res = await env.runN8n(p, n8nEnv, ['import:credentials', `--input=${path.join(importDir, 'credentials.json')}`]);
		if (res.code !== 0) throw new Error(`import:credentials failed:\n${errorText(res)}`);

		// workflows
		const names = fs
			.readdirSync(WORKFLOW_DIR)
			.filter((f) => f.endsWith('.json'))
			.map((f) => f.slice(0, -5))
			.filter((n) => n.includes(only))
			.sort();
		if (!names.length) throw new Error(`no workflows in ${WORKFLOW_DIR}${only ? ` matching "${only}"` : ''}`);
		const workflows = names.map((name) => {
			const wf = JSON.parse(fs.readFileSync(path.join(WORKFLOW_DIR, `${name}.json`), 'utf8'));
			if (!wf.id) throw new Error(`${name}.json has no "id" (n8n import:workflow needs one)`);
			const checkFile = path.join(WORKFLOW_DIR, `${name}.check.js`);
			if (!fs.existsSync(checkFile)) throw new Error(`${name}.json has no ${name}.check.js beside it`);
			fs.writeFileSync(path.join(importDir, 'workflows', `${name}.json`), JSON.stringify(wf));
			return { name, id: wf.id, checkFile };
		});
		env.log(`n8n import:workflow (${workflows.length})`);
		res = await env.runN8n(p, n8nEnv, ['import:workflow', '--separate', `--input=${path.join(importDir, 'workflows')}`]);
		if (res.code !== 0) throw new Error(`import:workflow failed:\n${errorText(res)}`);

		const tSetup = Date.now() - t0;
		console.log(`\nRunning ${workflows.length} workflow(s) with n8n ${env.N8N_VERSION} (setup took ${secs(tSetup)}, install check ${secs(tInstall)})\n`);

		for (const wf of workflows) {
			let problem;
			let from = sandbox.requests.length;
			let r = { ms: 0 };
			try {
				delete require.cache[require.resolve(wf.checkFile)];
				const check = require(wf.checkFile);
				// an optional `before(sandbox)` export prepares the sandbox (for example expireTokens())
				if (typeof check.before === 'function') await check.before(sandbox);
				from = sandbox.requests.length;
				r = await env.runN8n(p, n8nEnv, ['execute', `--id=${wf.id}`], { timeoutMs: 3 * 60 * 1000 });
				if (r.code !== 0) throw new Error(`n8n execute exited with ${r.code}:\n${errorText(r)}`);
				const run = parseRun(r.stdout);
				if (!run) throw new Error(`no "Execution was successful:" JSON in the output:\n${errorText(r)}`);
				await check(makeResult(wf.name, run, r), sandboxView(sandbox, from), assert);
			} catch (e) {
				problem = e || new Error('failed');
			}
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
				const reqs = sandbox.requests.slice(from);
				console.log(`      sandbox received ${reqs.length} request(s):`);
				for (const q of reqs.slice(0, 30)) console.log(`        ${q.status} ${q.method} ${q.path}${q.rawQuery ? `?${q.rawQuery}` : ''}`);
			}
		}
	} finally {
		await sandbox.close();
		if (!failed && !process.env.E2E_KEEP) fs.rmSync(userFolder, { recursive: true, force: true });
		else console.log(`\n(n8n user folder kept for inspection: ${userFolder})`);
	}
	console.log(`\ntotal ${secs(Date.now() - t0)}`);
	console.log(`${passed} passed, ${failed} failed`);
	return failed ? 1 : 0;
}

main().then(
	(code) => process.exit(code),
	(e) => {
		console.error(`\ne2e setup failed: ${e && e.stack ? e.stack : e}`);
		console.log('0 passed, 1 failed');
		process.exit(1);
	},
);
