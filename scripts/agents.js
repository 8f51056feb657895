#!/usr/bin/env node
'use strict';
/*
 * The node as a tool of n8n's AI Agent, end to end in the real n8n (npm run test:agents). See test/agents/README.md.
 *
 * The workflows of test/agents/workflows/ and the AI-agent examples of examples/ (those with an AI Agent node) run
 * with `n8n execute`: a Manual Trigger, n8n's AI Agent node (@n8n/n8n-nodes-langchain.agent), its OpenAI Chat Model
 * node pointed at a scripted OpenAI-compatible server on 127.0.0.1 (test/agents/scripted-model.js), and this node as
 * tools (n8n-nodes-record-management-service.recordManagementServiceTool) against the sandbox.
 * Each workflow's check (<name>.check.js beside it) exports:
 *   script   the model's turns for the execution (see scripted-model.js), set before it runs
 *   (result, server, assert) => { ... }   server.model: the model's requests (tool definitions, tool results);
 *            server.sandbox: requests of this execution (find(method, path|RegExp)), store
 *   before(server) required, even if empty: the runner's hook before each execution, where the sandbox is emptied and
 *            the script loaded; the check's own may then add records or restrict scopes
 *
 * Options as scripts/e2e.js: E2E_ONLY=<substring>, --no-build, E2E_KEEP=1 (also keeps what the model received:
 * .e2e/agents/<name>.model-requests.json).
 * The steps are those of scripts/lib/e2e-runner.js; this file adds the sandbox and the scripted model.
 */

const fs = require('fs');
const path = require('path');
const env = require('./n8n-env');
const { runE2E, exitWith } = require('./lib/e2e-runner');
const { credentialFiles } = require('../test/e2e/credentials');
const { agentExampleWorkflows, MODEL_CREDENTIAL } = require('../test/agents/agent-examples');

const REPO = env.REPO_ROOT;
const WORKFLOW_DIR = path.join(REPO, 'test', 'agents', 'workflows');
// inside .e2e/ (ignored by git), apart from what npm run test:e2e keeps there
const WORK_DIR = path.join(REPO, '.e2e', 'agents');
const keep = !!process.env.E2E_KEEP;

/** The sandbox as a check sees it: the requests of this execution only. */
function sandboxView(sandbox, from) {
	const requests = sandbox.requests.slice(from);
	return {
		requests,
		store: sandbox.store,
		/** EspoCRM's streams: the notes (posts and what the server wrote itself) */
		streams: sandbox.streams,
		baseUrl: sandbox.baseUrl,
		/** find('POST', '/Lead') or find('GET', /^\/Contact/) */
		find: (method, p) =>
			requests.filter((r) => (!method || r.method === method) && (!p || (p instanceof RegExp ? p.test(r.path) : r.path === p))),
		setRestrictedScopes: (types) => sandbox.setRestrictedScopes(types),
	};
}

async function startServers() {
	const { startSandbox, seedDemoData } = require('../test/sandbox');
	const { startScriptedModel } = require('../test/agents/scripted-model');
	const sandbox = await startSandbox({ port: 0 });
	const model = await startScriptedModel();
	env.log(`sandbox at ${sandbox.baseUrl}, scripted model at ${model.baseUrl}`);
	const server = (from, wf) => ({ sandbox: sandboxView(sandbox, from), model, state: wf.state });
	return {
		credentials: [
			...credentialFiles(sandbox.origin),
			{ ...MODEL_CREDENTIAL, type: 'openAiApi', data: { apiKey: 'sk-scripted-model-no-real-key', url: model.baseUrl } },
		],
		mark: () => sandbox.requests.length,
		beforeArg(wf) {
			// each execution starts from an empty sandbox and the check's script; an example (example-..., with the dev
			// credential) from the demo data of `npm run dev`, as users run it in the dev editor
			sandbox.reset();
			sandbox.setRestrictedScopes([]);
			if (wf.name.startsWith('example-')) seedDemoData(sandbox.store);
			const check = require(wf.checkFile);
			model.play(check.script || []);
			return server(sandbox.requests.length, wf);
		},
		checkArg(from, wf) {
			if (keep) fs.writeFileSync(path.join(WORK_DIR, `${wf.name}.model-requests.json`), JSON.stringify(model.requests.map((r) => r.body), null, 2));
			return server(from, wf);
		},
		failureLines(from) {
			const reqs = sandbox.requests.slice(from);
			return [
				`      sandbox received ${reqs.length} request(s):`,
				...reqs.slice(0, 30).map((q) => `        ${q.status} ${q.method} ${q.path}${q.rawQuery ? `?${decodeURIComponent(q.rawQuery)}` : ''}`),
				`      the model received ${model.requests.length} request(s); overruns ${model.overruns}${model.unexpected.length ? `; unexpected: ${model.unexpected.join(', ')}` : ''}`,
				...model.requests.flatMap((r) => model.toolResults(r).slice(-1).map((t) => `        after turn ${r.turn}: ${t.name} → ${t.text.slice(0, 300)}`)),
			];
		},
		async close() {
			await Promise.all([sandbox.close(), model.close()]);
		},
	};
}

exitWith(
	runE2E({
		workflowDir: WORKFLOW_DIR,
		workDir: WORK_DIR,
		start: startServers,
		tolerateCrashAfterSuccess: true,
		isolatePackage: true,
		extraWorkflows: agentExampleWorkflows(),
		saveOutput: keep,
		n8nEnv: {
			N8N_RUNNERS_MODE: 'external',
			N8N_RUNNERS_AUTH_TOKEN: 'rms-agents-no-runner-connects',
		},
	}),
	'agents',
);
