'use strict';
const { requestsFor } = require('../lib/helpers');

// Link three Contacts to an Account, list them, unlink one (EspoCRM reads the id from the body), list again; HMAC.
module.exports = async (result, espo, assert) => {
	const [account] = result.items('Create Account');
	const contacts = result.items('Create Contacts');
	assert.equal(contacts.length, 3);
	const id = (last) => contacts.find((c) => c.lastName === last).id;

	const linked = result.items('Link Contacts');
	assert.equal(linked.length, 3);
	for (const l of linked) assert.equal(l.relationship, 'contacts');

	const related = result.items('Related Contacts');
	assert.deepEqual(
		related.map((c) => c.lastName),
		['EspoRels-Babbage', 'EspoRels-Lovelace', 'EspoRels-Turing'],
	);
	assert.deepEqual(
		related.map((c) => c.firstName),
		['Charles', 'Ada', 'Alan'],
		'select=firstName,lastName',
	);

	const unlinked = result.items('Unlink Babbage');
	assert.equal(unlinked.length, 1);
	assert.deepEqual(unlinked[0].unlinked, [id('EspoRels-Babbage')]);

	const after = result.items('Related After Unlink');
	assert.deepEqual(after.map((c) => c.lastName).sort(), ['EspoRels-Lovelace', 'EspoRels-Turing']);

	// what EspoCRM holds
	const held = await espo.api.ok('GET', `/Account/${account.id}/contacts`);
	assert.deepEqual(
		held.list.map((c) => c.id).sort(),
		[id('EspoRels-Lovelace'), id('EspoRels-Turing')].sort(),
	);
	const babbage = await espo.api.ok('GET', `/Contact/${id('EspoRels-Babbage')}`);
	assert.equal(babbage.accountId, null, 'the unlinked Contact still exists, without the Account');

	assert.equal(espo.find('POST', `/Account/${account.id}/contacts`).length, 3);
	assert.equal(
		espo.find('DELETE', `/Account/${account.id}/contacts`).length +
			espo.find('DELETE', new RegExp(`^/Account/${account.id}/contacts\\?`)).length,
		1,
	);
	assert.ok(
		requestsFor(espo, 'Account', 'Contact').every((r) => r.status === 200),
		'every request accepted (HMAC signature)',
	);
};
