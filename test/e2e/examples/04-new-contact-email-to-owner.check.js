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
 * `before` creates a user with an e-mail address and, as the newest contact, one assigned to that user.
 */
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const { formatDateTime } = require('../../sandbox/util');

module.exports = (result, sandbox, assert) => {
	const { owner, contact } = sandbox.state;
	for (const r of sandbox.requests) assert.equal(r.headers['x-api-key'], 'sandbox-api-key', `${r.method} ${r.path}: X-Api-Key`);
	assert.deepEqual(result.nodesRun, ['Start (test: instead of the polling trigger)', 'New contact', 'Its owner', 'Tell the owner']);

	// what "Fetch Test Event" asks for: the newest contact
	const [list, ...more] = sandbox.find('GET', '/Contact');
	assert.equal(more.length, 0);
	assert.deepEqual(list.query, { orderBy: 'createdAt', order: 'desc', offset: '0', maxSize: '1' });
	const [newest] = result.items('New contact');
	assert.equal(newest.id, contact.id);
	assert.equal(result.items('New contact').length, 1);

	// its owner, read by id
	assert.deepEqual(sandbox.find('GET', `/User/${owner.id}`).map((r) => r.status), [200]);
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
	});
	const [sent] = result.items('Tell the owner');
	const mail = sandbox.outbox.find((m) => m.emailId === sent.id);
	assert.ok(mail, 'the mail is in the outbox');
	assert.deepEqual([mail.to, mail.from, mail.subject], [['olivia.owner@example.com'], 'crm@example.com', 'New contact: Nora E2eExample-Newest']);
};

module.exports.credential = 'apiKey';

module.exports.before = async (sandbox) => {
	const owner = sandbox.store.create('User', {
		userName: 'e2e-example-owner',
		firstName: 'Olivia',
		lastName: 'Owner',
		type: 'regular',
		emailAddress: 'olivia.owner@example.com',
	});
	// the newest by createdAt (whole seconds): wait for a second that no contact was created in
	const newestBefore = sandbox.store.list('Contact').reduce((max, c) => (c.createdAt > max ? c.createdAt : max), '');
	while (formatDateTime() <= newestBefore) await sleep(100);
	const contact = sandbox.store.create('Contact', {
		firstName: 'Nora',
		lastName: 'E2eExample-Newest',
		emailAddress: 'nora.newest@example.com',
		assignedUserId: owner.id,
	});
	Object.assign(sandbox.state, { owner, contact });
};
