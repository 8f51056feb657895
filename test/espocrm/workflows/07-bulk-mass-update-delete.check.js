'use strict';
const { assertDeleted } = require('../lib/helpers');
// Bulk Mass Update (IDs from a field, chunks of 2) and Mass Delete (IDs from an expression) through POST /MassAction.
module.exports = async (result, espo, assert) => {
	const toUpdate = result.items('Create To Update');
	assert.equal(toUpdate.length, 3);
	const updated = result.items('Mass Update');
	assert.equal(updated.length, 2, 'three IDs in chunks of two: two requests, one item each');
	assert.deepEqual(
		updated.map((u) => u.count),
		[2, 1],
	);
	assert.deepEqual(updated.flatMap((u) => u.ids).sort(), toUpdate.map((c) => c.id).sort());

	const toDelete = result.items('Create To Delete');
	assert.equal(toDelete.length, 2);
	const deleted = result.items('Mass Delete');
	assert.equal(deleted.length, 1);
	assert.equal(deleted[0].count, 2);

	assert.equal(espo.find('POST', '/MassAction').length, 3);
	assert.equal(
		espo.find('PUT', /massUpdate/).length + espo.find('POST', /massDelete/).length,
		0,
		'not the paths EspoCRM dropped',
	);

	// what EspoCRM holds
	for (const c of toUpdate) {
		const held = await espo.api.ok('GET', `/Contact/${c.id}`);
		assert.equal(held.description, 'mass updated by n8n', `Contact ${c.firstName}`);
		assert.equal(held.lastName, 'EspoBulk-Update', 'other fields unchanged');
	}
	for (const c of toDelete)
		await assertDeleted(espo, assert, 'Contact', c.id, `Contact ${c.firstName}`);
};
