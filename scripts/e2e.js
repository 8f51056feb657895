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
 *
 * The steps are those of scripts/lib/e2e-runner.js (shared with npm run test:espocrm); this file adds the sandbox.
 */

const path = require('path');
const env = require('./n8n-env');
const { runE2E, exitWith } = require('./lib/e2e-runner');
const { credentialFiles } = require('../test/e2e/credentials');

const REPO = env.REPO_ROOT;
const WORKFLOW_DIR = path.join(REPO, 'test', 'e2e', 'workflows');
const WORK_DIR = path.join(REPO, '.e2e');

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

/** The sandbox in this process, as the runner uses it. */
async function startSandboxServer() {
	const { startSandbox } = require('../test/sandbox');
	const sandbox = await startSandbox({ port: 0 });
	env.log(`sandbox at ${sandbox.baseUrl}`);
	return {
		credentials: credentialFiles(sandbox.origin),
		mark: () => sandbox.requests.length,
		beforeArg: () => sandbox,
		checkArg: (from) => sandboxView(sandbox, from),
		failureLines(from) {
			const reqs = sandbox.requests.slice(from);
			return [
				`      sandbox received ${reqs.length} request(s):`,
				...reqs.slice(0, 30).map((q) => `        ${q.status} ${q.method} ${q.path}${q.rawQuery ? `?${q.rawQuery}` : ''}`),
			];
		},
		close: () => sandbox.close(),
	};
}

exitWith(runE2E({ workflowDir: WORKFLOW_DIR, workDir: WORK_DIR, start: startSandboxServer }), 'e2e');
