'use strict';
/**
 * Stream > Post and Follow where EspoCRM 8.1.5 does not say what is wrong (issue 40, item 3), on the real EspoCRM (API
 * key), each node with Continue on fail:
 *   - a post to a Contact that does not exist: EspoCRM answers 403 "No create access.", as for a role that does not
 *     allow it; the node reads the record (404) and says the record does not exist, naming its ID;
 *   - a post to, and a follow of, a Call (scopes.Call.stream is not set: EspoCRM would store the post where nobody sees
 *     it, and answer the follow true recording nothing): refused before the request, the server's metadata read once
 *     per node run. Before the execution admin creates the Call.
 * Checked against the requests EspoCRM served and its database (`note`, `subscription`).
 */

const CALL_NAME = 'EspoNoStreamCall';
const MISSING_ID = '6b0000000000dead1';
const quote = (value) => `'${String(value).replace(/[^0-9a-zA-Z_-]/g, '')}'`;

module.exports = async (result, espo, assert) => {
	const { callId } = espo.state;

	// the missing Contact: 403 to the post, 404 to the read, and the error says so
	const [missing] = result.rawItems('Post To Missing Contact');
	assert.deepEqual(
		espo.find('POST', '/Note').map((r) => [r.status, r.reason]),
		[[403, 'No create access.']],
		'one post reached EspoCRM: the one to the missing contact, refused',
	);
	assert.deepEqual(
		espo.find('GET', `/Contact/${MISSING_ID}`).map((r) => r.status),
		[404],
		'the record was read after the 403',
	);
	assert.equal(missing.json.error, `The Contact record "${MISSING_ID}" does not exist (404)`);
	assert.match(
		String(missing.error && missing.error.description),
		/answered the post with 403 "No create access\.".*reading the record answered 404/,
	);
	assert.equal(
		result.error('Post To Missing Contact'),
		undefined,
		'Continue on fail: the node itself did not fail',
	);

	// the Call: neither the post nor the follow was sent; the metadata was read once by each node
	const [post] = result.rawItems('Post To Call');
	assert.equal(
		post.json.error,
		'The parameter "Entity Type" is Call, whose records have no stream in EspoCRM (item 0)',
	);
	assert.match(
		String(post.error && post.error.description),
		/^EspoCRM would store the post, but shows it nowhere.*with a stream on this server: Account, Case, Contact, Lead, Meeting, Opportunity, Task\./,
	);
	const [follow] = result.rawItems('Follow Call');
	assert.equal(
		follow.json.error,
		'The parameter "Entity Type" is Call, whose records have no stream in EspoCRM (item 0)',
	);
	assert.deepEqual(
		espo.find('PUT', `/Call/${callId}/subscription`),
		[],
		'no follow of the call was sent',
	);
	assert.deepEqual(
		espo.find('GET', '/Metadata').map((r) => r.status),
		[200, 200],
		'the metadata, once per node run',
	);
	assert.deepEqual(
		await espo.query(
			`SELECT id FROM note WHERE parent_type = 'Call' AND parent_id = ${quote(callId)} AND type = 'Post'`,
		),
		[],
		'no post on the call',
	);
	assert.deepEqual(
		await espo.query(
			`SELECT id FROM ${espo.tables.subscription} WHERE entity_type = 'Call' AND entity_id = ${quote(callId)}`,
		),
		[],
	);
};

module.exports.before = async (espo) => {
	const call = await espo.api.ok('POST', '/Call', {
		name: CALL_NAME,
		dateStart: '2026-11-28 10:00:00',
		dateEnd: '2026-11-28 10:30:00',
		assignedUserId: espo.keys.apiKey.id,
	});
	espo.state.callId = call.id;
};
