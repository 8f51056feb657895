'use strict';
/**
 * Basic authentication, standard dialect: Create (3 items) → Update → Mass Update → Get Many with a condition
 * → Mass Delete (2 of them) → Delete (the last one).
 */
const BASIC = `Basic ${Buffer.from('admin:sandbox-password').toString('base64')}`;

module.exports = (result, sandbox, assert) => {
	for (const r of sandbox.requests) {
		assert.equal(
			r.headers.authorization,
			BASIC,
			`${r.method} ${r.path}: Basic authorization header`,
		);
		assert.equal(
			r.headers['espo-authorization'],
			undefined,
			'no Espo-Authorization on a standard server',
		);
		assert.equal(r.status, 200, `${r.method} ${r.path} answered ${r.status}`);
	}

	const created = result.items('Create Contacts');
	assert.deepEqual(
		created.map((c) => c.lastName),
		['E2eBasic-Turing', 'E2eBasic-Hopper', 'E2eBasic-Dijkstra'],
	);
	const ids = created.map((c) => c.id);
	assert.equal(new Set(ids).size, 3);
	const posts = sandbox.find('POST', '/Contact');
	assert.equal(posts.length, 3);
	assert.deepEqual(posts[0].body, {
		firstName: 'Alan',
		lastName: 'E2eBasic-Turing',
		emailAddress: 'alan.basic@example.com',
	});

	// Update: one PUT per item, only the changed field; the reply is the whole record (phone normalised)
	const puts = sandbox.find('PUT', /^\/Contact\/[^/]+$/);
	assert.deepEqual(puts.map((r) => r.path).sort(), ids.map((id) => `/Contact/${id}`).sort());
	for (const r of puts) assert.deepEqual(r.body, { phoneNumber: '+1 555 0100' });
	assert.deepEqual(
		result.items('Update Contacts').map((c) => c.phoneNumber),
		['+15550100', '+15550100', '+15550100'],
	);

	// Mass Update: one request for the three items
	const mass = sandbox.find('PUT', '/Contact/action/massUpdate');
	assert.equal(mass.length, 1, 'one PUT /Contact/action/massUpdate');
	assert.deepEqual([...mass[0].body.ids].sort(), [...ids].sort());
	assert.deepEqual(mass[0].body.attributes, { description: 'mass updated by e2e' });
	const [massOut] = result.items('Mass Update');
	assert.equal(massOut.count, 3);

	// Get Many with a condition: the where list in bracket form
	const lists = sandbox.find('GET', '/Contact');
	assert.equal(lists.length, 1);
	assert.deepEqual(lists[0].query.where, [
		{ type: 'startsWith', attribute: 'lastName', value: 'E2eBasic-' },
	]);
	const found = result.items('Find Contacts');
	assert.equal(found.length, 3);
	for (const c of found) assert.equal(c.description, 'mass updated by e2e');

	// Mass Delete of two, Delete of the last
	const massDel = sandbox.find('POST', '/Contact/action/massDelete');
	assert.equal(massDel.length, 1);
	assert.deepEqual(
		massDel[0].body.ids,
		found.slice(0, 2).map((c) => c.id),
	);
	const del = sandbox.find('DELETE', `/Contact/${found[2].id}`);
	assert.equal(del.length, 1);
	assert.deepEqual(result.items('Delete Last'), [{ deleted: true }]);

	assert.equal(
		sandbox.store.list('Contact').filter((c) => String(c.lastName).startsWith('E2eBasic-')).length,
		0,
		'all deleted',
	);
	assert.equal(sandbox.requests.length, 10, 'no extra requests');
};
