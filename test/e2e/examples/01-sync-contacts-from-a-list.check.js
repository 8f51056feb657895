'use strict';
/**
 * examples/01-sync-contacts-from-a-list.json (API key, standard server): three rows → Record > Create or Update
 * (Contact, matched by emailAddress). Run twice: the first run creates the three contacts, the second finds each by
 * its address and updates it, so that each address still has exactly one contact.
 */
const ROWS = [
	{
		email: 'ada.lovelace@example.com',
		firstName: 'Ada',
		lastName: 'Lovelace',
		phone: '+44 20 7946 0001',
	},
	{
		email: 'grace.hopper@example.com',
		firstName: 'Grace',
		lastName: 'Hopper',
		phone: '+1 212 555 0100',
	},
	{
		email: 'alan.turing@example.com',
		firstName: 'Alan',
		lastName: 'Turing',
		phone: '+44 20 7946 0002',
	},
];

const contactsOf = (sandbox, email) =>
	sandbox.store.list('Contact').filter((c) => String(c.emailAddress).toLowerCase() === email);

module.exports = (result, sandbox, assert) => {
	for (const r of sandbox.requests)
		assert.equal(r.headers['x-api-key'], 'sandbox-api-key', `${r.method} ${r.path}: X-Api-Key`);
	const out = result.items('Create or update the contact');
	assert.equal(out.length, 3);

	// the three rows looked up together by their addresses, in one request (only the id and the address asked for)
	const lookups = sandbox.find('GET', '/Contact');
	assert.equal(lookups.length, 1, 'one look-up for the three rows');
	assert.deepEqual(lookups[0].query.where, [
		{ type: 'in', attribute: 'emailAddress', value: ROWS.map((row) => row.email) },
	]);
	assert.equal(lookups[0].query.select, 'id,emailAddress');

	const creates = sandbox.find('POST', '/Contact');
	const updates = sandbox.find('PUT', /^\/Contact\//);
	if (result.runNumber === 1) {
		assert.equal(updates.length, 0, 'first run: nothing to update');
		assert.deepEqual(
			creates.map((r) => r.body).sort((a, b) => a.emailAddress.localeCompare(b.emailAddress)),
			ROWS.map((row) => ({
				emailAddress: row.email,
				firstName: row.firstName,
				lastName: row.lastName,
				phoneNumber: row.phone,
			})).sort((a, b) => a.emailAddress.localeCompare(b.emailAddress)),
		);
		sandbox.state.ids = {};
		for (const row of ROWS) {
			const [contact] = contactsOf(sandbox, row.email);
			sandbox.state.ids[row.email] = contact.id;
		}
	} else {
		assert.equal(creates.length, 0, 'second run: no contact created again');
		assert.deepEqual(
			updates.map((r) => r.path).sort(),
			ROWS.map((row) => `/Contact/${sandbox.state.ids[row.email]}`).sort(),
			'second run: each contact of the first run updated',
		);
		for (const r of updates) {
			const row = ROWS.find((x) => sandbox.state.ids[x.email] === r.path.split('/')[2]);
			assert.deepEqual(r.body, {
				firstName: row.firstName,
				lastName: row.lastName,
				phoneNumber: row.phone,
			});
		}
	}

	// afterwards: one contact per address, with the row's fields
	for (const row of ROWS) {
		const found = contactsOf(sandbox, row.email);
		assert.equal(found.length, 1, `${row.email}: ${found.length} contacts`);
		assert.equal(found[0].id, sandbox.state.ids[row.email]);
		// the server keeps phone numbers without spaces (+44 20 7946 0001 → +442079460001)
		assert.deepEqual(
			[found[0].firstName, found[0].lastName, found[0].phoneNumber],
			[row.firstName, row.lastName, row.phone.replace(/ /g, '')],
		);
	}
	assert.deepEqual(out.map((c) => c.id).sort(), Object.values(sandbox.state.ids).sort());
};

module.exports.credential = 'devStandard';
module.exports.runs = 2;

module.exports.before = (sandbox) => {
	for (const row of ROWS)
		if (contactsOf(sandbox, row.email).length)
			throw new Error(`${row.email} exists before the example ran`);
};
