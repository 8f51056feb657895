'use strict';
/**
 * OAuth, third execution, after the sandbox expired every token: the request gets 401, n8n calls
 * preAuthentication again (one POST /Auth) and repeats the request with the new token.
 */
module.exports = (result, sandbox, assert) => {
	assert.deepEqual(
		sandbox.requests.map((r) => `${r.status} ${r.method} ${r.path}`),
		['401 GET /Contact', '200 POST /Auth', '200 GET /Contact'],
	);
	const [old, , retried] = sandbox.requests;
	assert.notEqual(retried.headers.authorization, old.headers.authorization, 'a new token');
	assert.match(retried.headers.authorization, /^Bearer \S+$/);
	assert.equal(sandbox.tokensIssued, 2);
	assert.ok(result.items('List Contacts').length >= 1);
};

module.exports.before = (sandbox) => sandbox.expireTokens();
