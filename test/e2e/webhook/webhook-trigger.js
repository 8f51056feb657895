'use strict';
/*
 * The webhook trigger in the real n8n (issue 17): `n8n start` with the workflow published, against a sandbox of its
 * own (EspoCRM dialect, so that /Webhook exists). A phase of `npm run test:e2e` (test/e2e/run.js): it runs alongside
 * the `n8n execute` workflows, so its n8n start-up costs no time of its own.
 *
 *   workflow   webhook-trigger.json: Record Management Service Webhook Trigger (Contact; events create and update;
 *              Include Full Record on; credential "RMS webhook sandbox (EspoCRM, API key)") → No Operation "Received"
 *   n8n        its own user folder (<workDir>/webhook/user-folder), with the database that the run's import left
 *              (credentials and workflows, this one included; copied before any execution) and the same package;
 *              one main process (SQLite, regular mode), started with test/lib/n8n-server.js
 *
 * Steps and what they assert:
 *   1. owner set up, logged in; the workflow published through the REST API, as the editor does
 *   2. the sandbox holds one webhook per event (Contact.create, Contact.update), each with n8n's production URL
 *      <base>/webhook/<webhookId>/webhook, made by the API key's user; n8n serves that URL
 *   3. two contacts created, sandbox.webhooks.deliver(): one signed POST, 200; one execution whose trigger items are
 *      the two created records, oldest first, and "Received" got the same
 *   4. one contact updated, deliver(): the delivery carries only the changed field and the id; the execution's item
 *      is the whole record, which the trigger read with GET /Contact/{id}
 *   5. a POST with a wrong X-Signature and one without get 401, one signed for a webhook id the trigger does not
 *      know gets 410; none starts an execution
 *   6. unpublished: both webhooks deleted from the sandbox (DELETE /Webhook/{id}, 200 each)
 *   7. n8n stopped (also when a step fails; on Ctrl-C test/e2e/run.js kills it)
 */
const assert = require('assert/strict');
const srv = require('../../lib/n8n-server');
const { espoSignature, itemsOf, startPhaseN8n, logTail } = require('../../lib/webhook-phase');

const workflow = require('./webhook-trigger.json');

const NAME = 'webhook-trigger (n8n start)';
const TRIGGER = 'Contact Changed';
const NEXT = 'Received';
const API_KEY_USER_ID = require('../../sandbox').SANDBOX_USERS.apiKey.id;

/**
 * The phase. ctx: the runner's phase context (p, n8nEnv, databaseFiles, packageRoot, workDir, keep, log) plus `sandbox`,
 * the webhook sandbox that the credential points at.
 */
async function run(ctx) {
	const { sandbox } = ctx;
	const fromRequest = sandbox.requests.length;
	// 1: n8n started, the owner set up, the workflow published
	const phase = await startPhaseN8n(ctx, {
		folder: 'webhook',
		label: 'webhook phase',
		workflow,
		trigger: TRIGGER,
	});
	const { url, mark } = phase;
	let ok = false;
	try {
		// 2: one webhook per event, with the production URL
		const registered = sandbox.webhooks.list();
		assert.deepEqual(
			registered
				.map((w) => ({ event: w.event, url: w.url, userId: w.userId, isActive: w.isActive }))
				.sort((a, b) => a.event.localeCompare(b.event)),
			[
				{ event: 'Contact.create', url, userId: API_KEY_USER_ID, isActive: true },
				{ event: 'Contact.update', url, userId: API_KEY_USER_ID, isActive: true },
			],
			"the sandbox holds one webhook per event, with main's production URL",
		);
		const posts = sandbox.requests
			.slice(fromRequest)
			.filter((r) => r.method === 'POST' && r.path === '/Webhook');
		assert.deepEqual(
			posts.map((r) => [r.status, r.headers['x-api-key'], r.body.url]),
			[
				[201, 'sandbox-api-key', url],
				[201, 'sandbox-api-key', url],
			],
		);
		await phase.webhookServed();

		// 3: two contacts created, one signed delivery, one execution with both records
		const ada = sandbox.store.create('Contact', {
			firstName: 'Ada',
			lastName: 'E2eWebhook-Lovelace',
			emailAddress: 'ada.webhook@example.com',
		});
		const alan = sandbox.store.create('Contact', {
			firstName: 'Alan',
			lastName: 'E2eWebhook-Turing',
		});
		let report = await sandbox.webhooks.deliver();
		mark('create delivered');
		assert.deepEqual(
			report.requests.map((r) => [r.event, r.count, r.status, r.outcome]),
			[['Contact.create', 2, 200, 'delivered']],
		);
		const createDelivery = sandbox.webhooks.deliveries[sandbox.webhooks.deliveries.length - 1];
		assert.match(
			createDelivery.requestHeaders['X-Signature'] || createDelivery.requestHeaders['x-signature'],
			/^[A-Za-z0-9+/=]+$/,
		);
		const created = await phase.nthExecution(1);
		mark('create executed');
		const createdItems = itemsOf(created, TRIGGER);
		assert.deepEqual(
			createdItems.map((i) => [i.id, i.firstName, i.lastName]),
			[
				[ada.id, 'Ada', 'E2eWebhook-Lovelace'],
				[alan.id, 'Alan', 'E2eWebhook-Turing'],
			],
		);
		assert.deepEqual(itemsOf(created, NEXT), createdItems, `"${NEXT}" got the trigger's items`);

		// 4: an update: the delivery names the changed field, the execution has the whole record
		const readsBefore = sandbox.requests.length;
		sandbox.store.update('Contact', ada.id, { description: 'changed by the e2e test' });
		report = await sandbox.webhooks.deliver();
		mark('update delivered');
		assert.deepEqual(
			report.requests.map((r) => [r.event, r.count, r.status, r.outcome]),
			[['Contact.update', 1, 200, 'delivered']],
		);
		const updateDelivery = sandbox.webhooks.deliveries[sandbox.webhooks.deliveries.length - 1];
		assert.equal(updateDelivery.payload[0].id, ada.id);
		assert.equal(
			updateDelivery.payload[0].lastName,
			undefined,
			'an update delivery carries only what changed',
		);
		const updated = await phase.nthExecution(2);
		mark('update executed');
		const [full] = itemsOf(updated, TRIGGER);
		assert.equal(itemsOf(updated, TRIGGER).length, 1);
		assert.deepEqual(
			{
				id: full.id,
				firstName: full.firstName,
				lastName: full.lastName,
				emailAddress: full.emailAddress,
				description: full.description,
			},
			{
				id: ada.id,
				firstName: 'Ada',
				lastName: 'E2eWebhook-Lovelace',
				emailAddress: 'ada.webhook@example.com',
				description: 'changed by the e2e test',
			},
			'the updated record in full',
		);
		const reads = sandbox.requests
			.slice(readsBefore)
			.filter((r) => r.method === 'GET' && r.path.startsWith('/Contact/'));
		assert.deepEqual(
			reads.map((r) => [r.status, r.path, r.headers['x-api-key']]),
			[[200, `/Contact/${ada.id}`, 'sandbox-api-key']],
		);

		// 5: refused deliveries start nothing
		const body = JSON.stringify([{ id: ada.id, description: 'forged' }]);
		const json = { 'content-type': 'application/json' };
		const someWebhook = registered[0];
		const wrong = await srv.n8nRequest('POST', url, {
			body,
			headers: { ...json, 'x-signature': espoSignature(someWebhook.id, 'not-the-secret', body) },
		});
		const missing = await srv.n8nRequest('POST', url, { body, headers: json });
		const unknown = await srv.n8nRequest('POST', url, {
			body,
			headers: {
				...json,
				'x-signature': espoSignature('0000000000000beef', someWebhook.secretKey, body),
			},
		});
		assert.deepEqual(
			{
				wrongSignature: wrong.status,
				noSignature: missing.status,
				unknownWebhookId: unknown.status,
			},
			{ wrongSignature: 401, noSignature: 401, unknownWebhookId: 410 },
		);
		await srv.sleep(1000);
		const after = await phase.executions();
		assert.equal(after.length, 2, `refused deliveries started executions: ${after.length} in all`);
		mark('refusals checked');

		// 6: unpublishing deletes the webhooks
		const beforeDelete = sandbox.requests.length;
		await phase.unpublish();
		assert.deepEqual(
			sandbox.webhooks.list(),
			[],
			'unpublishing deleted the webhooks from the sandbox',
		);
		const deletes = sandbox.requests.slice(beforeDelete).filter((r) => r.method === 'DELETE');
		assert.deepEqual(
			deletes.map((r) => `${r.status} ${r.path}`).sort(),
			registered.map((w) => `200 /Webhook/${w.id}`).sort(),
		);
		ok = true;
	} catch (e) {
		const problem = e instanceof Error ? e : new Error(String(e));
		problem.lines = [
			`      sandbox (webhook phase) received ${sandbox.requests.length - fromRequest} request(s):`,
			...sandbox.requests
				.slice(fromRequest)
				.slice(0, 30)
				.map(
					(q) => `        ${q.status} ${q.method} ${q.path}${q.rawQuery ? `?${q.rawQuery}` : ''}`,
				),
			...logTail(phase.logFile),
		];
		throw problem;
	} finally {
		await phase.stop(ok);
	}
}

module.exports = { name: NAME, workflow, run };
