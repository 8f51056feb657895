'use strict';
/*
 * The webhook trigger in the real n8n against the real EspoCRM 8.1.5: `n8n start` with the workflow published,
 * EspoCRM delivering through its own scheduled job. A phase of `npm run test:espocrm` (scripts/espocrm/run.js),
 * alongside the workflows: the trigger watches Cases, which no workflow touches, so that their records cannot reach it.
 * The same steps as the sandbox's phase (test/e2e/webhook/webhook-trigger.js), with EspoCRM in the sandbox's place:
 *
 *   1. owner set up, logged in; the workflow published through the REST API, as the editor does
 *   2. EspoCRM holds one webhook per event (Case.create, Case.update), made by the API key's user, with n8n's
 *      production URL
 *   3. two Cases created by the API key's user; EspoCRM's job "Process Webhook Queue" run (php command.php run-job):
 *      one execution whose trigger items are the two Cases, oldest first
 *   4. one Case updated, the job run again: EspoCRM's delivery carries only what changed; the execution's item is the
 *      whole Case, which the trigger read with GET /Case/{id}
 *   5. a POST with a wrong X-Signature and one without get 401, one signed for a webhook id the trigger does not know
 *      gets 410; none starts an execution
 *   6. unpublished: both webhooks gone from EspoCRM
 *   7. n8n stopped (also when a step fails; on Ctrl-C scripts/espocrm/run.js kills it)
 */
const fs = require('fs');
const path = require('path');
const crypto = require('crypto');
const assert = require('assert/strict');
const env = require('../../../scripts/n8n-env');
const srv = require('../../../scripts/lib/n8n-server');

const workflow = require('./webhook-trigger.json');

const NAME = 'webhook-trigger on EspoCRM (n8n start)';
const TRIGGER = 'Case Changed';
const NEXT = 'Received';

/** X-Signature as EspoCRM 8.1.5 signs a delivery: base64("<webhookId>:" + raw HMAC-SHA256 of the body). */
function signature(webhookId, secret, body) {
	return Buffer.concat([Buffer.from(`${webhookId}:`), crypto.createHmac('sha256', secret).update(body).digest()]).toString('base64');
}

/** The json of a node's items in an execution recorded by n8n (first run, output 0). */
function itemsOf(execution, node) {
	const runs = (execution.data.resultData && execution.data.resultData.runData && execution.data.resultData.runData[node]) || [];
	assert.ok(runs.length, `execution ${execution.id}: node "${node}" did not run`);
	return ((runs[0].data && runs[0].data.main && runs[0].data.main[0]) || []).map((i) => i.json);
}

/**
 * The phase. ctx: the runner's phase context (p, n8nEnv, databaseFiles, packageRoot, workDir, keep, log) plus `espo`,
 * the EspoCRM that scripts/espocrm/espocrm.js startEspo started, with `requests(from)`: what it served since `from`.
 */
async function run({ p, n8nEnv, databaseFiles, packageRoot, workDir, keep, log, espo }) {
	const t0 = Date.now();
	const dir = path.join(workDir, 'webhook');
	fs.rmSync(dir, { recursive: true, force: true });
	const userFolder = path.join(dir, 'user-folder');
	env.prepareUserFolder(userFolder, { repoRoot: packageRoot });
	for (const f of databaseFiles) fs.copyFileSync(f, path.join(userFolder, '.n8n', path.basename(f)));
	const logFile = path.join(dir, 'n8n.log');
	const procs = new srv.Processes({ log });
	const timings = {};
	const mark = (what) => (timings[what] = Date.now() - t0);
	const webhookId = workflow.nodes.find((n) => n.name === TRIGGER).webhookId;
	const apiUser = espo.client('apiKey');
	const from = espo.mark();
	/** EspoCRM's webhooks for Cases, as the admin sees them. */
	const caseWebhooks = async () =>
		(await espo.admin.list('Webhook')).filter((w) => String(w.event).startsWith('Case.')).sort((a, b) => a.event.localeCompare(b.event));
	let ok = false;
	try {
		const main = await srv.startN8n({ procs, p, role: 'main', env: { ...n8nEnv, N8N_USER_FOLDER: userFolder }, logFile, expectPackage: env.PACKAGE_NAME });
		mark('n8n ready');
		const { cookie } = await srv.setupOwner(main.baseUrl);
		const url = `${main.baseUrl}/webhook/${webhookId}/webhook`;

		// 1, 2: publish; one webhook per event, with the production URL, made by the API key's user
		await srv.activateWorkflow(main.baseUrl, cookie, workflow.id);
		await srv.waitForPublication(main.baseUrl, cookie, workflow.id, { proc: main.proc });
		mark('published');
		const registered = await caseWebhooks();
		assert.deepEqual(
			registered.map((w) => ({ event: w.event, url: w.url, userId: w.userId, isActive: w.isActive })),
			[
				{ event: 'Case.create', url, userId: espo.keys.apiKey.id, isActive: true },
				{ event: 'Case.update', url, userId: espo.keys.apiKey.id, isActive: true },
			],
			"EspoCRM holds one webhook per event, with main's production URL",
		);
		await srv.waitForWebhook(main.baseUrl, `${webhookId}/webhook`, { proc: main.proc });

		const executions = async () => srv.listExecutions(main.baseUrl, cookie, { workflowId: workflow.id });
		const finished = (e) => ['success', 'error', 'crashed', 'canceled'].includes(e.status);
		/** Waits for the `n`-th execution to finish, returns it with its run data. */
		const nthExecution = async (n) => {
			const list = await srv.waitFor(`execution ${n} of the webhook trigger`, async () => {
				const l = await executions();
				return l.length >= n && l.every(finished) ? l : undefined;
			}, { timeoutMs: 60000, intervalMs: 200, proc: main.proc });
			assert.equal(list.length, n, `${list.length} executions, expected ${n}`);
			const newest = list.sort((a, b) => Number(b.id) - Number(a.id))[0];
			const e = await srv.getExecution(main.baseUrl, cookie, newest.id, { n8nBin: p.n8nBin });
			assert.equal(e.status, 'success', `execution ${e.id}: ${e.status} ${JSON.stringify(e.data.resultData && e.data.resultData.error)}`);
			assert.equal(e.mode, 'webhook');
			return e;
		};
		/** EspoCRM's scheduled job, run once: it turns the queued events into deliveries and sends them. */
		const deliver = async () => await espo.runJob('ProcessWebhookQueue');

		// 3: two Cases created; one delivery, one execution with both
		const first = await apiUser.ok('POST', '/Case', { name: 'EspoWebhook first case', description: 'one' });
		const second = await apiUser.ok('POST', '/Case', { name: 'EspoWebhook second case' });
		await deliver();
		mark('create delivered');
		const created = await nthExecution(1);
		mark('create executed');
		const createdItems = itemsOf(created, TRIGGER);
		assert.deepEqual(createdItems.map((i) => [i.id, i.name]), [
			[first.id, 'EspoWebhook first case'],
			[second.id, 'EspoWebhook second case'],
		]);
		assert.deepEqual(itemsOf(created, NEXT), createdItems, `"${NEXT}" got the trigger's items`);

		// 4: an update: EspoCRM sends what changed; the execution has the whole Case, read as the API key's user
		const readFrom = espo.mark();
		await apiUser.ok('PUT', `/Case/${first.id}`, { description: 'changed by the EspoCRM test' });
		await deliver();
		mark('update delivered');
		const updated = await nthExecution(2);
		mark('update executed');
		const updatedItems = itemsOf(updated, TRIGGER);
		assert.equal(updatedItems.length, 1);
		assert.deepEqual(
			{ id: updatedItems[0].id, name: updatedItems[0].name, description: updatedItems[0].description, status: updatedItems[0].status },
			{ id: first.id, name: 'EspoWebhook first case', description: 'changed by the EspoCRM test', status: 'New' },
			'the updated Case in full',
		);
		const reads = espo.requests(readFrom).filter((r) => r.method === 'GET' && r.path.startsWith('/Case/'));
		assert.deepEqual(reads.map((r) => `${r.status} ${r.path}`), [`200 /Case/${first.id}`]);

		// 5: refused deliveries start nothing
		const body = JSON.stringify([{ id: first.id, description: 'forged' }]);
		const json = { 'content-type': 'application/json' };
		const webhook = await espo.admin.ok('GET', `/Webhook/${registered[0].id}`);
		assert.ok(webhook.secretKey, 'the admin reads the webhook with its secret key');
		const wrong = await srv.request('POST', url, { body, headers: { ...json, 'x-signature': signature(webhook.id, 'not-the-secret', body) } });
		const missing = await srv.request('POST', url, { body, headers: json });
		const unknown = await srv.request('POST', url, { body, headers: { ...json, 'x-signature': signature('0000000000000beef', webhook.secretKey, body) } });
		assert.deepEqual(
			{ wrongSignature: wrong.status, noSignature: missing.status, unknownWebhookId: unknown.status },
			{ wrongSignature: 401, noSignature: 401, unknownWebhookId: 410 },
		);
		await srv.sleep(1000);
		assert.equal((await executions()).length, 2, 'refused deliveries started no execution');
		mark('refusals checked');

		// 6: unpublishing deletes the webhooks from EspoCRM
		await srv.deactivateWorkflow(main.baseUrl, cookie, workflow.id);
		await srv.waitForPublication(main.baseUrl, cookie, workflow.id, { published: false, proc: main.proc });
		mark('unpublished');
		assert.deepEqual(await caseWebhooks(), [], 'unpublishing deleted the webhooks from EspoCRM');
		ok = true;
	} catch (e) {
		const problem = e instanceof Error ? e : new Error(String(e));
		problem.lines = [
			'      EspoCRM served (all users, since the phase started):',
			...espo
				.requests(from)
				.slice(0, 40)
				.map((q) => `        ${q.status} ${q.method} ${q.url}${q.reason ? `  (${q.reason.slice(0, 200)})` : ''}`),
			`      last lines of ${logFile}:`,
			...srv
				.tailFile(logFile, 25)
				.split('\n')
				.map((l) => `        ${l}`),
		];
		throw problem;
	} finally {
		await procs.stopAll();
		mark('n8n stopped');
		log(`EspoCRM webhook phase: ${Object.entries(timings).map(([k, ms]) => `${k} ${(ms / 1000).toFixed(1)}s`).join(', ')}`);
		if (ok && !keep) fs.rmSync(dir, { recursive: true, force: true });
		else log(`EspoCRM webhook phase: n8n user folder and log kept in ${dir}`);
	}
}

module.exports = { name: NAME, workflow, run };
