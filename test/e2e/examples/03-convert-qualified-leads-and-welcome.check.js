'use strict';
/**
 * examples/03-convert-qualified-leads-and-welcome.json (API key, EspoCRM server): Record > Get Many of the leads In
 * Process that have an e-mail address → Lead > Convert (account and contact; "skip" if converted) → Email > Send a
 * welcome mail to each, linked to the new contact.
 *
 * `before` seeds two qualified leads (one with an account name, one without: the account is then named after the
 * person) and two that must be left alone (In Process without an address, New with one); the check expects exactly
 * the leads that were In Process with an address before the run, whichever workflow made them.
 */
const isQualified = (l) => l.status === 'In Process' && !!l.emailAddress;

module.exports = (result, sandbox, assert) => {
	const { expected, unqualified } = sandbox.state;
	for (const r of sandbox.requests)
		assert.equal(r.headers['x-api-key'], 'sandbox-api-key', `${r.method} ${r.path}: X-Api-Key`);

	const found = result.items('Qualified leads');
	assert.deepEqual(
		found.map((l) => l.id).sort(),
		expected.map((l) => l.id).sort(),
		'found exactly the qualified leads',
	);
	const [search] = sandbox.find('GET', '/Lead');
	assert.deepEqual(search.query.where, [
		{ type: 'equals', attribute: 'status', value: 'In Process' },
		{ type: 'isNotNull', attribute: 'emailAddress' },
	]);

	// each converted once, EspoCRM's way (POST /Lead/action/convert with the id in the body), after a look at the lead
	const converts = sandbox.find('POST', '/Lead/action/convert');
	assert.equal(converts.length, expected.length);
	const mails = sandbox.find('POST', '/Email');
	assert.equal(mails.length, expected.length);
	for (const lead of expected) {
		const [convert] = converts.filter((r) => r.body.id === lead.id);
		assert.ok(convert, `lead ${lead.id} converted`);
		assert.equal(sandbox.find('GET', `/Lead/${lead.id}`).length, 1, 'looked at the lead first');
		assert.deepEqual(convert.body.records, {
			Account: { name: lead.accountName || `${lead.firstName} ${lead.lastName}` },
			Contact: {
				emailAddress: lead.emailAddress,
				firstName: lead.firstName,
				lastName: lead.lastName,
			},
		});
		const now = sandbox.store.get('Lead', lead.id);
		assert.equal(now.status, 'Converted');
		const contact = sandbox.store.get('Contact', now.createdContactId);
		assert.ok(contact, 'the new contact exists');
		assert.equal(contact.emailAddress, lead.emailAddress);
		assert.equal(
			sandbox.store.get('Account', now.createdAccountId).name,
			lead.accountName || `${lead.firstName} ${lead.lastName}`,
		);

		// the welcome mail: sent through the CRM to the lead's address, from the sales address, linked to the contact
		const [mail] = mails.filter((r) => r.body.to === lead.emailAddress);
		assert.ok(mail, `a mail to ${lead.emailAddress}`);
		assert.deepEqual(
			{
				from: mail.body.from,
				name: mail.body.name,
				status: mail.body.status,
				parentType: mail.body.parentType,
				parentId: mail.body.parentId,
			},
			{
				from: 'sales@example.com',
				name: `Welcome aboard, ${lead.firstName}`,
				status: 'Sending',
				parentType: 'Contact',
				parentId: contact.id,
			},
		);
		assert.match(mail.body.body, new RegExp(`^Dear ${lead.firstName},\\n\\nthank you`));
		const sent = sandbox.outbox.filter((m) => m.to.includes(lead.emailAddress));
		assert.equal(sent.length, 1, `one mail in the outbox for ${lead.emailAddress}`);
		assert.equal(sent[0].subject, `Welcome aboard, ${lead.firstName}`);
		const email = sandbox.store.get('Email', sent[0].emailId);
		assert.deepEqual(
			[email.parentType, email.parentId],
			['Contact', contact.id],
			'the mail is linked to the new contact',
		);
	}
	for (const id of unqualified)
		assert.notEqual(sandbox.store.get('Lead', id).status, 'Converted', `lead ${id} left alone`);
	assert.equal(result.items('Welcome e-mail').length, expected.length);
};

module.exports.credential = 'devEspo';

module.exports.before = (sandbox) => {
	const lead = (fields) => sandbox.store.create('Lead', { firstName: 'Example03', ...fields }).id;
	lead({
		firstName: 'Katherine',
		lastName: 'E2eExample-Johnson',
		status: 'In Process',
		emailAddress: 'katherine.example@example.com',
		accountName: 'E2E Example Orbit Ltd',
	});
	lead({
		firstName: 'Dorothy',
		lastName: 'E2eExample-Vaughan',
		status: 'In Process',
		emailAddress: 'dorothy.example@example.com',
	});
	sandbox.state.unqualified = [
		lead({ lastName: 'E2eExample-NoAddress', status: 'In Process' }),
		lead({ lastName: 'E2eExample-StillNew', status: 'New', emailAddress: 'still.new@example.com' }),
	];
	sandbox.state.expected = sandbox.store.list('Lead').filter(isQualified);
};
