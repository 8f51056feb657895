'use strict';
/**
 * HMAC authentication with the EspoCRM dialect: link, list related, unlink (id in query and body), mass update and
 * mass delete through POST /MassAction, lead conversion through POST /Lead/action/convert, e-mail with status Sending.
 */
const crypto = require('crypto');

function hmacHeader(method, path) {
	const digest = crypto
		.createHmac('sha256', 'sandbox-hmac-secret')
		.update(`${method} ${path}`)
		.digest();
	return Buffer.concat([Buffer.from('sandbox-hmac-key:'), digest]).toString('base64');
}

module.exports = (result, sandbox, assert) => {
	for (const r of sandbox.requests) {
		assert.equal(
			r.headers['x-hmac-authorization'],
			hmacHeader(r.method, r.path),
			`${r.method} ${r.path}: HMAC signature`,
		);
		assert.equal(r.headers.authorization, undefined);
		assert.equal(r.status, 200, `${r.method} ${r.path} answered ${r.status}`);
	}

	const [account] = result.items('Create Account');
	const contacts = result.items('Create Contacts');
	assert.equal(contacts.length, 2);
	const [ada, charles] = contacts.map((c) => c.id);

	// link: one POST per item with {"id"}
	const links = sandbox.find('POST', `/Account/${account.id}/contacts`);
	assert.deepEqual(
		links.map((r) => r.body),
		[{ id: ada }, { id: charles }],
	);
	assert.deepEqual(result.items('Link Contacts'), [
		{ id: account.id, relationship: 'contacts', linked: [ada] },
		{ id: account.id, relationship: 'contacts', linked: [charles] },
	]);
	assert.deepEqual(
		result
			.items('Related Contacts')
			.map((c) => c.id)
			.sort(),
		[ada, charles].sort(),
	);

	// unlink: id in the query and in the body (EspoCRM reads the body)
	const unlinks = sandbox.find('DELETE', `/Account/${account.id}/contacts`);
	assert.equal(unlinks.length, 1);
	assert.equal(unlinks[0].query.id, ada);
	assert.deepEqual(unlinks[0].body, { id: ada });
	assert.deepEqual(
		result.items('Related After Unlink').map((c) => c.id),
		[charles],
	);

	// mass actions in EspoCRM's form
	const massActions = sandbox.find('POST', '/MassAction');
	assert.equal(massActions.length, 2);
	assert.deepEqual(massActions[0].body, {
		entityType: 'Contact',
		action: 'update',
		params: { ids: [ada, charles] },
		data: { description: 'espo mass update' },
	});
	assert.deepEqual(massActions[1].body, {
		entityType: 'Contact',
		action: 'delete',
		params: { ids: [ada, charles] },
	});
	assert.equal(result.items('Mass Delete')[0].count, 2);
	assert.equal(sandbox.store.get('Contact', ada), undefined);

	// lead conversion: the node looks at the lead first, then converts in EspoCRM's form
	const [lead] = result.items('Create Lead');
	assert.equal(sandbox.find('GET', `/Lead/${lead.id}`).length, 1);
	const converts = sandbox.find('POST', '/Lead/action/convert');
	assert.equal(converts.length, 1);
	assert.deepEqual(converts[0].body, {
		id: lead.id,
		records: {
			Account: { name: 'E2E Hmac Lead Co' },
			Contact: { firstName: 'Grace', lastName: 'E2eHmac-Lead' },
		},
	});
	const [converted] = result.items('Convert Lead');
	assert.equal(converted.status, 'Converted');
	assert.ok(converted.createdContactId && converted.createdAccountId);
	assert.equal(converted.createdOpportunityId ?? null, null);

	// e-mail: status Sending, from, subject also as name
	const mails = sandbox.find('POST', '/Email');
	assert.equal(mails.length, 1);
	assert.equal(mails[0].body.status, 'Sending');
	assert.equal(mails[0].body.from, 'sales@example.com');
	assert.equal(mails[0].body.name, 'Welcome (EspoCRM)');
	assert.equal(mails[0].body.parentId, converted.createdContactId);
	const [sent] = result.items('Send Email');
	assert.equal(sent.status, 'Sent');
	assert.ok(
		sandbox.outbox.some((m) => m.emailId === sent.id && m.to.includes('grace.hmac@example.com')),
	);
};
