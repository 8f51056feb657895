#!/usr/bin/env node
'use strict';
/*
 * End-to-end test with the real n8n (npm run test:e2e). See test/e2e/README.md.
 *
 *   1. installs or reuses Node 24 + n8n 2.41.1 (test/lib/n8n-env.js, cached outside the repository)
 *   2. a fresh n8n user folder (.e2e/user-folder) with a copy of the built package (.e2e/package, so that a build
 *      meanwhile cannot change it) linked in as a community package
 *   3. npm run build, and meanwhile:
 *   4. three sandbox servers in this process, on free ports: the one of the workflows, the one of the examples (started
 *      as `npm run dev` starts its sandbox: both dialects, the demo data, no failed-login lock-out; the dev
 *      credentials point at it, so the examples run after the dev workflow as they do in the dev editor, demo data
 *      included) and the one of the webhook phase
 *   5. credentials (one per authentication scheme) and the workflows imported with the n8n CLI: test/e2e/workflows/,
 *      the examples of examples/ (rewired for the test by test/e2e/examples/index.js), the webhook phase's workflow
 *   6. each workflow run with `n8n execute --id=<id>`, the execution it saved in n8n's database read (not its printed
 *      output: test/lib/saved-executions.js) and handed to the sibling
 *      <name>.check.js: module.exports = (result, sandbox, assert) => { ... }
 *      (optional: module.exports.before = (sandbox) => { ... } runs before the execution;
 *       module.exports.runs = 2 runs the workflow twice, result.runNumber telling which run it is)
 *      result.items(nodeName) = json of the node's output items, result.rawItems(nodeName), result.error(nodeName);
 *      sandbox.requests = requests of this execution only, sandbox.find(method, path|RegExp), sandbox.allRequests,
 *      sandbox.state (shared by before and check), sandbox.filesDir (the folder n8n may read and write files in);
 *      the sandbox of the examples (example-...) is the seeded one
 *   7. meanwhile, the webhook phase (test/e2e/webhook/webhook-trigger.js): `n8n start` with the webhook trigger's
 *      workflow published, deliveries from its own sandbox, unpublished; one more PASS/FAIL line
 *
 * Options: E2E_ONLY=<substring> runs only matching workflows, examples (example-...) and phases (webhook-trigger);
 *          --no-build skips the build; E2E_KEEP=1 keeps .e2e/user-folder, .e2e/webhook and .e2e/files (the user
 *          folders are always kept on failure).
 *
 * The steps are those of test/lib/e2e-runner.js (shared with npm run test:espocrm); this file adds the sandboxes.
 */

const fs = require('fs');
const path = require('path');
const env = require('../lib/n8n-env');
const { runE2E, exitWith } = require('../lib/e2e-runner');
const { credentialFiles } = require('./credentials');
const { exampleWorkflows } = require('./examples');
const webhookPhase = require('./webhook/webhook-trigger');

const REPO = env.REPO_ROOT;
const WORKFLOW_DIR = path.join(REPO, 'test', 'e2e', 'workflows');
const WORK_DIR = path.join(REPO, '.e2e');
/**
 * The only folder n8n's file nodes may read and write in (N8N_RESTRICT_FILE_ACCESS_TO; 2.41.1's default is
 * ~/.n8n-files of the user's home, not of N8N_USER_FOLDER, and the .n8n folder itself is always refused).
 * Workflows name it `%E2E_FILES%`.
 */
const FILES_DIR = path.join(WORK_DIR, 'files');

/** The sandbox methods, bound to it: a view made with Object.create() must not set fields on itself. */
function boundMethods(sandbox) {
	const out = {};
	for (
		let proto = Object.getPrototypeOf(sandbox);
		proto && proto !== Object.prototype;
		proto = Object.getPrototypeOf(proto)
	) {
		for (const name of Object.getOwnPropertyNames(proto)) {
			const d = Object.getOwnPropertyDescriptor(proto, name);
			if (name !== 'constructor' && typeof d.value === 'function' && !(name in out))
				out[name] = d.value.bind(sandbox);
		}
	}
	return out;
}

/** The sandbox as a check sees it: `requests` are only those of this workflow's execution. */
function sandboxView(sandbox, from, wf) {
	const view = Object.assign(Object.create(sandbox), boundMethods(sandbox));
	const requests = sandbox.requests.slice(from);
	Object.defineProperty(view, 'requests', { value: requests });
	Object.defineProperty(view, 'allRequests', { get: () => sandbox.requests });
	/** requests of this execution, filtered: find('POST', '/Contact') or find('GET', /^\/Contact\//) */
	view.find = (method, p) =>
		requests.filter(
			(r) =>
				(!method || r.method === method) &&
				(!p || (p instanceof RegExp ? p.test(r.path) : r.path === p)),
		);
	view.state = wf.state;
	view.filesDir = FILES_DIR;
	return view;
}

/** `%E2E_FILES%` in the workflow's parameters becomes FILES_DIR (with forward slashes, as file selectors want). */
function withFilesDir(json) {
	return JSON.parse(
		JSON.stringify(json).split('%E2E_FILES%').join(FILES_DIR.split(path.sep).join('/')),
	);
}

let webhookSandbox;

/** Direct children of this process (each n8n process it started leads a process group of its own). */
function directChildren() {
	if (fs.existsSync('/proc/self/stat')) {
		const out = [];
		for (const d of fs.readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
			try {
				const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
				if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === process.pid)
					out.push(Number(d));
			} catch {}
		}
		return out;
	}
	const r = require('child_process').spawnSync('pgrep', ['-P', String(process.pid)], {
		encoding: 'utf8',
	});
	return (r.stdout || '').split('\n').filter(Boolean).map(Number);
}

/**
 * Ctrl-C, SIGTERM, SIGHUP: the process groups of this run's children are killed (an `n8n execute` whose sandbox is
 * gone would otherwise retry for minutes, and SIGTERM lets n8n finish the running execution first; the webhook
 * phase's `n8n start` and a running `npm run build` go too), then the run exits with 128 + the signal number.
 */
function stopChildrenOnSignals() {
	const codes = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };
	for (const signal of Object.keys(codes)) {
		process.on(signal, () => {
			for (const pid of directChildren()) {
				try {
					process.kill(-pid, 'SIGKILL');
				} catch {}
			}
			console.log(`\n${signal}: stopped the n8n processes of this run`);
			process.exit(codes[signal]);
		});
	}
}

/** Whether a workflow is one of the examples (or the dev workflow run before them): test/e2e/examples/index.js names them. */
const isExample = (wf) => wf.name.startsWith('example-');

/** The sandboxes in this process, as the runner uses them. */
async function startSandboxServers() {
	const { startSandbox, DEV_SANDBOX_OPTIONS } = require('../sandbox');
	fs.rmSync(FILES_DIR, { recursive: true, force: true });
	const sandbox = await startSandbox({ port: 0 });
	// the examples' own, as `npm run dev` starts it (test/sandbox/cli.js): a collision of an example with the demo
	// data fails here as it would in the dev editor, and the other workflows keep their empty sandbox
	const devSandbox = await startSandbox({ ...DEV_SANDBOX_OPTIONS, port: 0 });
	// the webhook phase's own: its requests must not mix with those of the workflows running meanwhile
	webhookSandbox = await startSandbox({ port: 0, dialect: 'espocrm' });
	env.log(
		`sandbox at ${sandbox.baseUrl}, examples' sandbox (seeded, as npm run dev's) at ${devSandbox.baseUrl}, webhook sandbox at ${webhookSandbox.baseUrl}`,
	);
	const sandboxOf = (wf) => (isExample(wf) ? devSandbox : sandbox);
	// the runner's mark() knows no workflow: where both sandboxes' records of traffic stand
	const mark = () => ({ sandbox: sandbox.requests.length, devSandbox: devSandbox.requests.length });
	const markOf = (from, wf) => (isExample(wf) ? from.devSandbox : from.sandbox);
	return {
		credentials: credentialFiles(sandbox.origin, {
			webhookOrigin: webhookSandbox.origin,
			devOrigin: devSandbox.origin,
		}),
		mark,
		beforeArg: (wf) => sandboxView(sandboxOf(wf), sandboxOf(wf).requests.length, wf),
		checkArg: (from, wf) => sandboxView(sandboxOf(wf), markOf(from, wf), wf),
		failureLines(from) {
			// one workflow runs at a time: what each sandbox received since `from`
			const lines = [
				[sandbox, from.sandbox, 'sandbox'],
				[devSandbox, from.devSandbox, "examples' sandbox"],
			].flatMap(([server, since, label]) => {
				const reqs = server.requests.slice(since);
				if (!reqs.length) return [];
				return [
					`      ${label} received ${reqs.length} request(s):`,
					...reqs
						.slice(0, 30)
						.map(
							(q) =>
								`        ${q.status} ${q.method} ${q.path}${q.rawQuery ? `?${q.rawQuery}` : ''}`,
						),
				];
			});
			return lines.length ? lines : ['      no sandbox received a request'];
		},
		async close() {
			await Promise.all([sandbox.close(), devSandbox.close(), webhookSandbox.close()]);
			if (!process.env.E2E_KEEP) fs.rmSync(FILES_DIR, { recursive: true, force: true });
		},
	};
}

stopChildrenOnSignals();
exitWith(
	runE2E({
		workflowDir: WORKFLOW_DIR,
		workDir: WORK_DIR,
		start: startSandboxServers,
		// a build in another terminal can remove dist/ under a running test
		isolatePackage: true,
		extraWorkflows: exampleWorkflows(),
		prepareWorkflow: withFilesDir,
		n8nEnv: {
			N8N_RESTRICT_FILE_ACCESS_TO: FILES_DIR,
			// no JavaScript task runner child per n8n process (about 1 to 2 s of start-up each): no workflow here runs
			// a Code node, the only user of the runner (one would fail after waiting for a runner that never comes).
			N8N_RUNNERS_MODE: 'external',
			N8N_RUNNERS_AUTH_TOKEN: 'rms-e2e-no-runner-connects',
		},
		importOnly: [webhookPhase.workflow],
		phases: [
			{
				name: webhookPhase.name,
				run: (ctx) => webhookPhase.run({ ...ctx, sandbox: webhookSandbox }),
			},
		],
	}),
	'e2e',
);
