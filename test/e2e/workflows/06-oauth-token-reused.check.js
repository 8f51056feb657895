'use strict';
/**
 * OAuth, second execution (a new `n8n execute` process): the token stored in n8n's database by the first run is
 * reused, no POST /Auth. Needs 05-oauth-first-token to have run before (the runner sorts by name).
 */
module.exports = (result, sandbox, assert) => {
	assert.equal(sandbox.find('POST', '/Auth').length, 0, 'no new token');
	assert.equal(sandbox.tokensIssued, 1, 'still the one token of the first execution');
	const first = sandbox.allRequests.find((r) => /^Bearer /.test(r.headers.authorization || ''));
	assert.equal(sandbox.requests.length, 1);
	assert.equal(
		sandbox.requests[0].headers.authorization,
		first.headers.authorization,
		'same Bearer token as before',
	);
	assert.equal(sandbox.requests[0].status, 200);
	assert.deepEqual(sandbox.requests[0].query.where, [
		{ type: 'equals', attribute: 'lastName', value: 'E2eOAuth-First' },
	]);
	assert.deepEqual(
		result.items('Find Contact').map((c) => c.lastName),
		['E2eOAuth-First'],
	);
};
