'use strict';
const { assertDeleted } = require('../lib/helpers');
// Record create, get, update, delete of a Contact with the API key; EspoCRM holds the result.
module.exports = async (result, espo, assert) => {
	const [created] = result.items('Create Contact');
	assert.match(created.id, /^[0-9a-f]{17}$/);
	assert.equal(created.firstName, 'Grace');
	assert.equal(created.lastName, 'EspoCrud-Hopper');
	assert.equal(created.emailAddress, 'grace.hopper@espocrm.test');
	assert.equal(created.title, 'Rear Admiral', 'custom field "title" sent');
	assert.match(created.createdAt, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);

	const [got] = result.items('Get Contact');
	assert.equal(got.id, created.id);
	// EspoCRM 8 and later store a phone number in E.164; 7.5 as written.
	assert.equal(
		got.phoneNumber,
		Number(espo.version.split('.')[0]) < 8 ? '+1 555 0100' : '+15550100',
		'EspoCRM stores the phone number in its form',
	);
	assert.equal(got.description, null, 'a read has every attribute, nulls included');

	const [updated] = result.items('Update Contact');
	assert.equal(updated.id, created.id);
	assert.equal(updated.description, 'updated by n8n');
	assert.equal(updated.title, 'Commodore');
	assert.equal(updated.firstName, 'Grace', 'an update replies with the whole record');

	const [kept] = result.items('Create Kept Contact');
	const deleted = result.items('Delete Contact');
	assert.equal(deleted.length, 1);
	assert.equal(deleted[0].deleted, true);

	// what EspoCRM holds afterwards
	await assertDeleted(espo, assert, 'Contact', created.id);
	const stored = await espo.api.ok('GET', `/Contact/${kept.id}`);
	assert.equal(stored.lastName, 'EspoCrud-Johnson');
	const list = await espo.api.list('Contact', {
		where: [{ type: 'startsWith', attribute: 'lastName', value: 'EspoCrud-' }],
	});
	assert.deepEqual(
		list.map((c) => c.id),
		[kept.id],
	);

	// what the node sent. Creates are counted in the database, not in EspoCRM's request log: the forms phase creates
	// Contacts of its own at the same time. EspoCRM deletes softly, so the deleted one is still a row.
	const rows = await espo.query(
		"SELECT id, deleted FROM contact WHERE last_name LIKE 'EspoCrud-%' ORDER BY deleted",
	);
	assert.deepEqual(
		rows.map((row) => [row.id, Number(row.deleted)]),
		[
			[kept.id, 0],
			[created.id, 1],
		],
		'two Contacts created, each once; the deleted one marked deleted',
	);
	assert.equal(espo.find('PUT', `/Contact/${created.id}`).length, 1);
	assert.equal(espo.find('DELETE', `/Contact/${created.id}`).length, 1);
	assert.equal(espo.find('GET', `/Contact/${created.id}`).length, 1);
};
