'use strict';
/** Manual Trigger → Create Contact → Get Contact (by the created id, through an expression), API key. */
module.exports = (result, sandbox, assert) => {
	const [created] = result.items('Create Contact');
	assert.ok(created, 'Create Contact returned no item');
	assert.match(String(created.id), /^\S+$/);
	assert.equal(created.firstName, 'Ada');
	assert.equal(created.lastName, 'E2e-Create-Get');

	const got = result.items('Get Contact');
	assert.equal(got.length, 1);
	assert.equal(got[0].id, created.id);
	assert.equal(got[0].emailAddress, 'ada.create-get@example.com');

	const posts = sandbox.find('POST', '/Contact');
	assert.equal(posts.length, 1, 'one POST /Contact');
	assert.equal(posts[0].headers['x-api-key'], 'sandbox-api-key');
	assert.match(posts[0].headers['content-type'] || '', /application\/json/);
	assert.deepEqual(posts[0].body, {
		firstName: 'Ada',
		lastName: 'E2e-Create-Get',
		emailAddress: 'ada.create-get@example.com',
	});
	const gets = sandbox.find('GET', `/Contact/${created.id}`);
	assert.equal(gets.length, 1, `one GET /Contact/${created.id}`);
	assert.equal(gets[0].status, 200);
	assert.equal(gets[0].headers['x-api-key'], 'sandbox-api-key');
};
