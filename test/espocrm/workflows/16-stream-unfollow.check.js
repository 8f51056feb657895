'use strict';
/**
 * Stream > Unfollow on the real EspoCRM (API key): before the execution the API user follows a Contact (a row in
 * `subscription`, the contact under the Followed filter); the workflow unfollows it twice. Checked: both answers,
 * no row left, and the contact no longer under the Followed filter.
 */

const quote = (value) => `'${String(value).replace(/[^0-9a-zA-Z_-]/g, '')}'`;

const followedIds = async (espo) =>
	(
		await espo
			.client('apiKey')
			.ok('GET', '/Contact', { boolFilterList: ['followed'], select: 'id', maxSize: 200 })
	).list.map((c) => c.id);

module.exports = async (result, espo, assert) => {
	const { contactId } = espo.state;
	assert.equal(espo.state.rowsBefore, 1, 'the API user followed the contact before the execution');
	assert.ok(
		espo.state.followedBefore,
		'the contact was under the Followed filter before the execution',
	);

	assert.deepEqual(
		espo.find('DELETE', `/Contact/${contactId}/subscription`).map((r) => r.status),
		[200, 200],
		'two unfollows, both 200',
	);
	const [summary] = result.items('Summary');
	assert.deepEqual(summary, { unfollowed: [{ followed: false }], again: [{ followed: false }] });

	const rows = await espo.query(
		`SELECT id FROM ${espo.tables.subscription} WHERE entity_type = 'Contact' AND entity_id = ${quote(contactId)}`,
	);
	assert.deepEqual(rows, [], 'no subscription row left');
	assert.ok(
		!(await followedIds(espo)).includes(contactId),
		'the contact is no longer under the Followed filter',
	);
};

module.exports.before = async (espo) => {
	const contact = await espo.api.ok('POST', '/Contact', {
		firstName: 'Stream',
		lastName: 'EspoUnfollow',
	});
	espo.state.contactId = contact.id;
	await espo.client('apiKey').ok('PUT', `/Contact/${contact.id}/subscription`);
	const rows = await espo.query(
		`SELECT id FROM ${espo.tables.subscription} WHERE entity_type = 'Contact' AND entity_id = ${quote(contact.id)} AND user_id = ${quote(espo.keys.apiKey.id)}`,
	);
	espo.state.rowsBefore = rows.length;
	espo.state.followedBefore = (await followedIds(espo)).includes(contact.id);
};
