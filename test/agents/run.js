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
 * Options as test/e2e/run.js: E2E_ONLY=<substring>, --no-build, E2E_KEEP=1 (also keeps what the model received:
 * .e2e/agents/<name>.model-requests.json).
 * A real EspoCRM instead of the sandbox: RMS_ESPOCRM={"origin", "credentials"} (as test:espocrm's phases get it; the
 * credential with authentication apiKey is used). Then only the workflows whose check says `anyCrm: true` run, the
 * credential "RMS sandbox (EspoCRM, API key)" points at that EspoCRM, a fixed `assignedUserId` of "1" becomes the API
 * user's ID, and checks get `sandbox: undefined`. Every check gets `crm` (test/agents/crm.js), the CRM's API.
 * The steps are those of test/lib/e2e-runner.js; this file adds the sandbox and the scripted model.
 */

const fs = require('fs');
const path = require('path');
const env = require('../lib/n8n-env');
const { runE2E, exitWith } = require('../lib/e2e-runner');
const { CREDENTIALS, credentialFiles } = require('../e2e/credentials');
const { agentExampleWorkflows, MODEL_CREDENTIAL } = require('./agent-examples');
const { crmClient } = require('./crm');
const { SANDBOX_CREDENTIALS } = require('../sandbox');

const REPO = env.REPO_ROOT;
const WORKFLOW_DIR = path.join(REPO, 'test', 'agents', 'workflows');
// inside .e2e/ (ignored by git), apart from what npm run test:e2e keeps there
const WORK_DIR = path.join(REPO, '.e2e', 'agents');
const keep = !!process.env.E2E_KEEP;
/** A real EspoCRM to run on: { origin, credentials: [{ id, name, data }] }. */
const target = process.env.RMS_ESPOCRM ? JSON.parse(process.env.RMS_ESPOCRM) : undefined;
const targetKey =
	target && target.credentials.map((c) => c.data).find((data) => data.authentication === 'apiKey');
if (target && !targetKey)
	throw new Error('RMS_ESPOCRM has no credential with authentication apiKey');

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
			requests.filter(
				(r) =>
					(!method || r.method === method) &&
					(!p || (p instanceof RegExp ? p.test(r.path) : r.path === p)),
			),
		setRestrictedScopes: (types) => sandbox.setRestrictedScopes(types),
	};
}

async function startServers() {
	const { startSandbox, seedDemoData } = require('../sandbox');
	const { startScriptedModel } = require('./scripted-model');
	const sandbox = await startSandbox({ port: 0 });
	const model = await startScriptedModel();
	env.log(`sandbox at ${sandbox.baseUrl}, scripted model at ${model.baseUrl}`);
	const crm = target
		? crmClient(target.origin, targetKey.apiKey)
		: crmClient(sandbox.origin, SANDBOX_CREDENTIALS.apiKey);
	const server = (from, wf) => ({
		sandbox: target ? undefined : sandboxView(sandbox, from),
		crm,
		model,
		state: wf.state,
	});
	// on a real EspoCRM, the workflows' EspoCRM credential is that EspoCRM's API user
	const credentials = credentialFiles(sandbox.origin).map((c) =>
		target && c.id === CREDENTIALS.espoApiKey.id ? { ...c, data: targetKey } : c,
	);
	return {
		credentials: [
			...credentials,
			{
				...MODEL_CREDENTIAL,
				type: 'openAiApi',
				data: { apiKey: 'sk-scripted-model-no-real-key', url: model.baseUrl },
			},
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
			if (keep)
				fs.writeFileSync(
					path.join(WORK_DIR, `${wf.name}.model-requests.json`),
					JSON.stringify(
						model.requests.map((r) => r.body),
						null,
						2,
					),
				);
			return server(from, wf);
		},
		failureLines(from) {
			const reqs = sandbox.requests.slice(from);
			return [
				`      sandbox received ${reqs.length} request(s):`,
				...reqs
					.slice(0, 30)
					.map(
						(q) =>
							`        ${q.status} ${q.method} ${q.path}${q.rawQuery ? `?${decodeURIComponent(q.rawQuery)}` : ''}`,
					),
				`      the model received ${model.requests.length} request(s); overruns ${model.overruns}${model.unexpected.length ? `; unexpected: ${model.unexpected.join(', ')}` : ''}`,
				...model.requests.flatMap((r) =>
					model
						.toolResults(r)
						.slice(-1)
						.map((t) => `        after turn ${r.turn}: ${t.name} → ${t.text.slice(0, 300)}`),
				),
			];
		},
		async close() {
			await Promise.all([sandbox.close(), model.close()]);
		},
	};
}

/**
 * On a real EspoCRM: the workflows whose check runs on any CRM, with the API user's ID where the workflow fixes the
 * assigned user to the sandbox's "1" (EspoCRM requires a Task's assigned user, and its users' IDs are generated).
 */
async function targetWorkflows() {
	const userId = (await crmClient(target.origin, targetKey.apiKey).apiUser()).id;
	return fs
		.readdirSync(WORKFLOW_DIR)
		.filter((f) => f.endsWith('.json'))
		.sort()
		.map((file) => ({
			name: file.slice(0, -5),
			checkFile: path.join(WORKFLOW_DIR, `${file.slice(0, -5)}.check.js`),
		}))
		.filter(({ checkFile }) => fs.existsSync(checkFile) && require(checkFile).anyCrm === true)
		.map(({ name, checkFile }) => ({
			name,
			checkFile,
			json: JSON.parse(
				fs
					.readFileSync(path.join(WORKFLOW_DIR, `${name}.json`), 'utf8')
					.replace(/"assignedUserId": "1"/g, `"assignedUserId": ${JSON.stringify(userId)}`),
			),
		}));
}

/** An empty folder: on a real EspoCRM, the workflows come as extraWorkflows only. */
function noWorkflows() {
	const dir = path.join(WORK_DIR, 'no-workflows');
	fs.mkdirSync(dir, { recursive: true });
	return dir;
}

exitWith(
	(async () =>
		runE2E({
			workflowDir: target ? noWorkflows() : WORKFLOW_DIR,
			workDir: WORK_DIR,
			start: startServers,
			tolerateCrashAfterSuccess: true,
			isolatePackage: true,
			extraWorkflows: target ? await targetWorkflows() : agentExampleWorkflows(),
			saveOutput: keep,
			n8nEnv: {
				N8N_RUNNERS_MODE: 'external',
				N8N_RUNNERS_AUTH_TOKEN: 'rms-agents-no-runner-connects',
			},
		}))(),
	'agents',
);
