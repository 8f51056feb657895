'use strict';
/**
 * examples/04-new-contact-email-to-owner.json (API key, standard server): the polling trigger (a new Contact) →
 * Record > Get of its assigned user → Email > Send to that user, linked to the contact.
 *
 * Why the start differs: `n8n execute` starts a workflow at its Manual Trigger and cannot run a polling trigger
 * (that needs `n8n start` with the workflow published, and a minute between polls). So for the test only
 * (test/e2e/examples/index.js), the trigger node becomes a Manual Trigger followed by our node's Record > Get Many
 * under the trigger's name, "New contact": the newest Contact by createdAt, limit 1, the same request the
 * trigger's "Fetch Test Event" sends (nodes/RecordManagementServiceTrigger/poll.ts, manual mode) and the item it
 * would emit. The two nodes after it run unchanged. The polling itself is covered by the unit tests and by
 * npm run test:queue.
 *
 * `before` creates a user with an e-mail address and, as the newest contact, one assigned to that user. The
 * workflow runs twice: after the first run the check adds a newer contact without an owner, which the second run
 * gets and lets through the false branch of "Has an owner?" (no owner read, no e-mail, no error).
 * With "Sandbox as EspoCRM (API key)": User is an entity type of EspoCRM (the Standard interface lists none).
 */
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const { formatDateTime } = require('../../sandbox/util');

/** A contact created in a second of its own, so that it is the newest by createdAt (whole seconds). */
async function newestContact(sandbox, fields) {
	const newestBefore = sandbox.store
		.list('Contact')
		.reduce((max, c) => (c.createdAt > max ? c.createdAt : max), '');
	while (formatDateTime() <= newestBefore) await sleep(100);
	return sandbox.store.create('Contact', fields);
}

module.exports = async (result, sandbox, assert) => {
	const { owner, contact } = sandbox.state;
	for (const r of sandbox.requests)
		assert.equal(r.headers['x-api-key'], 'sandbox-api-key', `${r.method} ${r.path}: X-Api-Key`);
	if (result.runNumber === 2) {
		// the newest contact has no owner: the run succeeds without reading a user or sending anything
		assert.deepEqual(
			result.items('New contact').map((c) => c.id),
			[sandbox.state.ownerless.id],
		);
		assert.deepEqual(result.nodesRun, [
			'Start (test: instead of the polling trigger)',
			'New contact',
			'Has an owner?',
		]);
		assert.deepEqual(sandbox.find('GET', /^\/User\//), []);
		assert.deepEqual(sandbox.find('POST', '/Email'), []);
		return;
	}
	assert.deepEqual(result.nodesRun, [
		'Start (test: instead of the polling trigger)',
		'New contact',
		'Has an owner?',
		'Its owner',
		'Tell the owner',
	]);

	// what "Fetch Test Event" asks for: the newest contact
	const [list, ...more] = sandbox.find('GET', '/Contact');
	assert.equal(more.length, 0);
	assert.deepEqual(list.query, { orderBy: 'createdAt', order: 'desc', offset: '0', maxSize: '1' });
	const [newest] = result.items('New contact');
	assert.equal(newest.id, contact.id);
	assert.equal(result.items('New contact').length, 1);

	// its owner, read by id
	assert.deepEqual(
		sandbox.find('GET', `/User/${owner.id}`).map((r) => r.status),
		[200],
	);
	assert.equal(result.items('Its owner')[0].emailAddress, 'olivia.owner@example.com');

	// the mail to the owner, about the contact, linked to it
	const mails = sandbox.find('POST', '/Email');
	assert.equal(mails.length, 1);
	assert.deepEqual(mails[0].body, {
		to: 'olivia.owner@example.com',
		subject: 'New contact: Nora E2eExample-Newest',
		body: 'Hello Olivia,\n\na new contact was assigned to you: Nora E2eExample-Newest (nora.newest@example.com).',
		isHtml: false,
		from: 'crm@example.com',
		parentType: 'Contact',
		parentId: contact.id,
		// as EspoCRM takes an e-mail to send
		name: 'New contact: Nora E2eExample-Newest',
		status: 'Sending',
	});
	const [sent] = result.items('Tell the owner');
	const mail = sandbox.outbox.find((m) => m.emailId === sent.id);
	assert.ok(mail, 'the mail is in the outbox');
	assert.deepEqual(
		[mail.to, mail.from, mail.subject],
		[['olivia.owner@example.com'], 'crm@example.com', 'New contact: Nora E2eExample-Newest'],
	);

	sandbox.state.ownerless = await newestContact(sandbox, {
		firstName: 'Otto',
		lastName: 'E2eExample-NoOwner',
		emailAddress: 'otto.noowner@example.com',
	});
};

module.exports.credential = 'devEspo';
module.exports.runs = 2;

module.exports.before = async (sandbox) => {
	const owner = sandbox.store.create('User', {
		userName: 'e2e-example-owner',
		firstName: 'Olivia',
		lastName: 'Owner',
		type: 'regular',
		emailAddress: 'olivia.owner@example.com',
	});
	const contact = await newestContact(sandbox, {
		firstName: 'Nora',
		lastName: 'E2eExample-Newest',
		emailAddress: 'nora.newest@example.com',
		assignedUserId: owner.id,
	});
	Object.assign(sandbox.state, { owner, contact });
};
