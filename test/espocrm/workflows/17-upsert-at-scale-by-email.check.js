'use strict';
// Create or Update at scale (issue 31) by a trimmed key (issue 33.2): 2,050 items by e-mail address, 2,000 different
// addresses, 1,000 of them on EspoCRM before (stored in other letter case; 5 of them only as a record's second
// address), the input's addresses with spaces around them, 50 addresses twice. Afterwards exactly 2,000 Contacts
// with these addresses, each with the values of the address's last item; no request refused (no 409 from EspoCRM's
// duplicate check: a create is sent only for an address no record has); the look-ups in chunks.
const { pool, requestsFor } = require('../lib/helpers');

const DOMAIN = 'upsert13.example.com';
const STORED = 1000;
const ITEMS = 2050;
const ADDRESSES = 2000;
/** Of the stored ones, these have the address only as their second one (the primary is another). */
const SECOND_ADDRESS = [3, 250, 500, 750, 999];
const repeated = new Set(Array.from({ length: 50 }, (_, k) => k * 40));

module.exports = async (result, espo, assert) => {
	const error = result.error('Create or Update');
	assert.ok(!error, `the node failed: ${error && (error.message || JSON.stringify(error))}`);
	const out = result.rawItems('Create or Update');
	assert.equal(out.length, ITEMS, `${out.length} output items`);
	const failed = out.filter((item) => item.error);
	assert.equal(
		failed.length,
		0,
		`items failed: ${failed
			.slice(0, 3)
			.map((item) => JSON.stringify(item.error))
			.join('; ')}`,
	);

	const contacts = await espo.api.list('Contact', {
		select: 'id,firstName,lastName,description,emailAddress',
		where: [{ type: 'endsWith', attribute: 'emailAddress', value: `@${DOMAIN}` }],
	});
	assert.equal(
		contacts.length,
		ADDRESSES,
		`${contacts.length} Contacts with an address at ${DOMAIN}, expected ${ADDRESSES}`,
	);
	const byLast = new Map(contacts.map((c) => [c.lastName, c]));
	assert.equal(byLast.size, ADDRESSES, 'each address one record');
	for (let i = 0; i < ADDRESSES; i++) {
		const c = byLast.get(`Sync${i}`);
		assert.ok(c, `no Contact Sync${i}`);
		assert.equal(
			c.description,
			repeated.has(i) ? 'second' : 'first',
			`Sync${i}: description ${c.description}`,
		);
		assert.equal(c.firstName, repeated.has(i) ? `Again${i}` : `Up${i}`);
		if (i < STORED)
			assert.equal(c.id, espo.state.ids[i], `Sync${i} is the record that was there (${c.id})`);
		else
			assert.equal(
				c.emailAddress,
				`sync${i}@${DOMAIN}`,
				`a new record gets the address trimmed: ${JSON.stringify(c.emailAddress)}`,
			);
	}
	for (const i of SECOND_ADDRESS) {
		assert.equal(
			byLast.get(`Sync${i}`).emailAddress,
			`primary${i}@other13.example.com`,
			`Sync${i} kept its primary address`,
		);
	}

	const requests = requestsFor(espo, 'Contact');
	const refused = requests.filter((r) => r.status !== 200);
	assert.equal(
		refused.length,
		0,
		`requests refused: ${refused
			.slice(0, 5)
			.map((r) => `${r.status} ${r.method} ${r.path} ${r.reason}`)
			.join('; ')}`,
	);
	const lookups = requests.filter((r) => r.method === 'GET' && r.path === '/Contact');
	const reads = requests.filter((r) => r.method === 'GET' && r.path !== '/Contact');
	const posts = requests.filter((r) => r.method === 'POST');
	const puts = requests.filter((r) => r.method === 'PUT');
	assert.equal(posts.length, ADDRESSES - STORED, `${posts.length} creates`);
	assert.equal(puts.length, ITEMS - (ADDRESSES - STORED), `${puts.length} updates`);
	assert.equal(
		lookups.length,
		Math.ceil(ADDRESSES / 100),
		`${lookups.length} look-ups of at most 100 addresses`,
	);
	// Records found by their second address are read to tell which address found them.
	assert.equal(reads.length, SECOND_ADDRESS.length, `${reads.length} records read`);
	assert.ok(
		requests.length <= ITEMS + Math.ceil(ITEMS / 100) + SECOND_ADDRESS.length,
		`${requests.length} requests`,
	);
};

module.exports.before = async (espo) => {
	// The stored addresses in other letter case than the input; 5 of them as a second address only.
	espo.state.ids = await pool(
		Array.from({ length: STORED }, (_, i) => i),
		4,
		async (i) => {
			const address = `Sync${i}@Upsert13.Example.COM`;
			const body = SECOND_ADDRESS.includes(i)
				? {
						emailAddressData: [
							{ emailAddress: `primary${i}@other13.example.com`, primary: true },
							{ emailAddress: address, primary: false },
						],
					}
				: { emailAddress: address };
			return (
				await espo.api.ok('POST', '/Contact', {
					firstName: 'Old',
					lastName: `Sync${i}`,
					description: 'stored',
					...body,
				})
			).id;
		},
	);
};
