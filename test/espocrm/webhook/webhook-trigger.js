'use strict';
/*
 * The webhook trigger in the real n8n against the real EspoCRM (7.5.6 to 9.3.4): `n8n start` with the workflow published,
 * EspoCRM delivering through its own scheduled job. A phase of `npm run test:espocrm` (test/espocrm/run.js),
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
 *   7. n8n stopped (also when a step fails; on Ctrl-C test/espocrm/run.js kills it)
 */
const assert = require('assert/strict');
const srv = require('../../lib/n8n-server');
const { espoSignature, itemsOf, startPhaseN8n, logTail } = require('../../lib/webhook-phase');

const workflow = require('./webhook-trigger.json');

const NAME = 'webhook-trigger on EspoCRM (n8n start)';
const TRIGGER = 'Case Changed';
const NEXT = 'Received';

/**
 * The phase. ctx: the runner's phase context (p, n8nEnv, databaseFiles, packageRoot, workDir, keep, log) plus `espo`,
 * the EspoCRM that test/espocrm/rig/espocrm.js startEspo started, with `mark()` and `requests(from)`: what it served
 * since a mark, and `port`, n8n's port (the one EspoCRM 9.3's webhookAllowedAddressList holds).
 */
async function run(ctx) {
	const { espo } = ctx;
	const apiUser = espo.client('apiKey');
	const from = espo.mark();
	/** EspoCRM's webhooks for Cases, as the admin sees them. */
	const caseWebhooks = async () =>
		(await espo.admin.list('Webhook'))
			.filter((w) => String(w.event).startsWith('Case.'))
			.sort((a, b) => a.event.localeCompare(b.event));
	/** EspoCRM's scheduled job, run once: it turns the queued events into deliveries and sends them. */
	const deliver = async () => await espo.runJob('ProcessWebhookQueue');
	// 1: n8n started, the owner set up, the workflow published
	// n8n on the port EspoCRM 9.3's webhookAllowedAddressList holds (test/espocrm/run.js)
	const phase = await startPhaseN8n(ctx, {
		folder: 'webhook',
		label: 'EspoCRM webhook phase',
		workflow,
		trigger: TRIGGER,
		port: ctx.port,
	});
	const { url, mark } = phase;
	let ok = false;
	try {
		// 2: one webhook per event, with the production URL, made by the API key's user
		const registered = await caseWebhooks();
		assert.deepEqual(
			registered.map((w) => ({
				event: w.event,
				url: w.url,
				userId: w.userId,
				isActive: w.isActive,
			})),
			[
				{ event: 'Case.create', url, userId: espo.keys.apiKey.id, isActive: true },
				{ event: 'Case.update', url, userId: espo.keys.apiKey.id, isActive: true },
			],
			"EspoCRM holds one webhook per event, with main's production URL",
		);
		await phase.webhookServed();

		// 3: two Cases created; one delivery, one execution with both
		const first = await apiUser.ok('POST', '/Case', {
			name: 'EspoWebhook first case',
			description: 'one',
		});
		const second = await apiUser.ok('POST', '/Case', { name: 'EspoWebhook second case' });
		await deliver();
		mark('create delivered');
		const created = await phase.nthExecution(1);
		mark('create executed');
		const createdItems = itemsOf(created, TRIGGER);
		assert.deepEqual(
			createdItems.map((i) => [i.id, i.name]),
			[
				[first.id, 'EspoWebhook first case'],
				[second.id, 'EspoWebhook second case'],
			],
		);
		assert.deepEqual(itemsOf(created, NEXT), createdItems, `"${NEXT}" got the trigger's items`);

		// 4: an update: EspoCRM sends what changed; the execution has the whole Case, read as the API key's user
		const readFrom = espo.mark();
		await apiUser.ok('PUT', `/Case/${first.id}`, { description: 'changed by the EspoCRM test' });
		await deliver();
		mark('update delivered');
		const updated = await phase.nthExecution(2);
		mark('update executed');
		const updatedItems = itemsOf(updated, TRIGGER);
		assert.equal(updatedItems.length, 1);
		assert.deepEqual(
			{
				id: updatedItems[0].id,
				name: updatedItems[0].name,
				description: updatedItems[0].description,
				status: updatedItems[0].status,
			},
			{
				id: first.id,
				name: 'EspoWebhook first case',
				description: 'changed by the EspoCRM test',
				status: 'New',
			},
			'the updated Case in full',
		);
		const reads = espo
			.requests(readFrom)
			.filter((r) => r.method === 'GET' && r.path.startsWith('/Case/'));
		assert.deepEqual(
			reads.map((r) => `${r.status} ${r.path}`),
			[`200 /Case/${first.id}`],
		);

		// 5: refused deliveries start nothing
		const body = JSON.stringify([{ id: first.id, description: 'forged' }]);
		const json = { 'content-type': 'application/json' };
		const webhook = await espo.admin.ok('GET', `/Webhook/${registered[0].id}`);
		assert.ok(webhook.secretKey, 'the admin reads the webhook with its secret key');
		const wrong = await srv.n8nRequest('POST', url, {
			body,
			headers: { ...json, 'x-signature': espoSignature(webhook.id, 'not-the-secret', body) },
		});
		const missing = await srv.n8nRequest('POST', url, { body, headers: json });
		const unknown = await srv.n8nRequest('POST', url, {
			body,
			headers: {
				...json,
				'x-signature': espoSignature('0000000000000beef', webhook.secretKey, body),
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
		assert.equal((await phase.executions()).length, 2, 'refused deliveries started no execution');
		mark('refusals checked');

		// 6: unpublishing deletes the webhooks from EspoCRM
		await phase.unpublish();
		assert.deepEqual(await caseWebhooks(), [], 'unpublishing deleted the webhooks from EspoCRM');
		ok = true;
	} catch (e) {
		const problem = e instanceof Error ? e : new Error(String(e));
		problem.lines = [...espo.servedLines(from), ...logTail(phase.logFile)];
		throw problem;
	} finally {
		await phase.stop(ok);
	}
}

module.exports = { name: NAME, workflow, run };
