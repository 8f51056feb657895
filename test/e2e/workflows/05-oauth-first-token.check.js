'use strict';
/** OAuth 2.0 client credentials, first of three executions: n8n calls preAuthentication once (POST /Auth). */
module.exports = (result, sandbox, assert) => {
	const auth = sandbox.find('POST', '/Auth');
	assert.equal(auth.length, 1, 'one POST /Auth');
	assert.deepEqual(auth[0].body, {
		grant_type: 'client_credentials',
		client_id: 'sandbox-client',
		client_secret: 'sandbox-client-secret',
	});
	assert.match(auth[0].headers['content-type'] || '', /application\/json/);
	assert.equal(sandbox.requests[0], auth[0], 'the token is fetched before the first request');
	const others = sandbox.requests.filter((r) => r !== auth[0]);
	assert.equal(others.length, 2);
	const bearer = others[0].headers.authorization;
	assert.match(bearer, /^Bearer \S+$/);
	for (const r of others) {
		assert.equal(r.headers.authorization, bearer, 'one token for every request');
		assert.equal(r.status, 200);
	}
	assert.equal(sandbox.tokensIssued, 1);
	const [created] = result.items('Create Contact');
	assert.ok(result.items('List Contacts').some((c) => c.id === created.id));
};
