'use strict';
/**
 * scripts/dev-workflow.json, the workflow `npm run dev` puts into the editor, run first: the examples must run after
 * it as imported (it creates the contact Ada Lovelace, ada@example.com, which example 01 must not collide with).
 */
module.exports = (result, sandbox, assert) => {
	const [created] = result.items('Create Contact');
	assert.ok(created && created.id, 'the dev workflow created a contact');
	assert.deepEqual(
		[created.firstName, created.lastName, created.emailAddress],
		['Ada', 'Lovelace', 'ada@example.com'],
	);
	assert.equal(result.items('Get Created Contact')[0].id, created.id);
};

module.exports.credential = 'devStandard';
