'use strict';
/*
 * EspoCRM 9.3 set up without its allow-lists (ESPOCRM_ALLOW_LISTS=off), in the real n8n: the webhook trigger of the
 * webhook phase (test/espocrm/webhook/) published as the editor does, n8n on 127.0.0.1 as EspoCRM sees it. EspoCRM
 * refuses the webhook (400, notInternal); publishing fails, and what n8n shows for it (the publication status's error
 * message, all that n8n 2.41.1 shows there) names the setting, the value to add (n8n's host:port) and where. EspoCRM
 * holds no webhook afterwards.
 */
const assert = require('assert/strict');
const srv = require('../../lib/n8n-server');
const { startPhaseN8n, logTail } = require('../../lib/webhook-phase');

const workflow = require('../webhook/webhook-trigger.json');

const NAME = 'webhook trigger refused by EspoCRM 9.3 without webhookAllowedAddressList (n8n start)';
const TRIGGER = 'Case Changed';

/** ctx: the runner's phase context plus `espo` (test/espocrm/rig/espocrm.js startEspo, with `mark()` and `requests(from)`). */
async function run(ctx) {
	const { espo } = ctx;
	const from = espo.mark();
	const phase = await startPhaseN8n(ctx, {
		folder: 'webhook-refused',
		label: 'EspoCRM webhook refused',
		workflow,
		trigger: TRIGGER,
		publish: false,
	});
	let ok = false;
	try {
		const entry = `127.0.0.1:${phase.main.port}`;
		await srv.activateWorkflow(phase.main.baseUrl, phase.cookie, workflow.id);
		const status = await srv.waitFor(
			'the publication to end',
			async () => {
				const s = await srv.publicationStatus(phase.main.baseUrl, phase.cookie, workflow.id);
				return ['failed', 'partial', 'published'].includes(s.status) ? s : undefined;
			},
			{ timeoutMs: 180000, intervalMs: 200, proc: phase.main.proc },
		);
		phase.mark('publication ended');
		assert.equal(status.status, 'failed', `publishing ended "${status.status}"`);
		const [trigger] = status.triggers;
		const message = String(trigger && trigger.errorMessage);
		assert.match(
			message,
			/^EspoCRM refused to register the webhook for Case\.(create|update) \(400\): n8n's webhook URL http:\/\/127\.0\.0\.1:\d+\/webhook\/\S+ is on an internal address/,
		);
		assert.ok(
			message.includes(
				`add ${entry} to webhookAllowedAddressList: 'webhookAllowedAddressList' => ['${entry}'],`,
			),
			message,
		);
		assert.match(message, /data\/config\.php/);
		const posted = espo.requests(from).filter((r) => r.method === 'POST' && r.path === '/Webhook');
		assert.ok(posted.length >= 1, 'the trigger asked EspoCRM to register a webhook');
		for (const r of posted)
			assert.deepEqual(
				[r.status, r.reason],
				[400, 'Field validation failure; entityType: Webhook, field: url, type: notInternal.'],
			);
		const left = (await espo.admin.list('Webhook')).filter((w) =>
			String(w.event).startsWith('Case.'),
		);
		assert.deepEqual(left, [], 'EspoCRM holds no webhook of the trigger');
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
