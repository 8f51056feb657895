'use strict';
const { requestsFor } = require('../lib/helpers');

// Record Get "By URL" (the mode's pattern saved with it, as the editor does) when the address comes from an expression:
// from a field of the input item, and built inside the expression itself.
module.exports = async (result, espo, assert) => {
	const [created] = result.items('Create Contact');
	const [fromField] = result.items('Get By Literal URL Pattern');
	assert.equal(fromField.id, created.id, 'address from an input field');
	const [built] = result.items('Get By URL Expression');
	assert.equal(built.id, created.id, 'address built in the expression');
	assert.equal(built.lastName, 'EspoUrl-Vaughan');
	const contacts = requestsFor(espo, 'Contact');
	assert.ok(
		contacts.length >= 3 && contacts.every((r) => r.status === 200),
		contacts.map((r) => `${r.status} ${decodeURIComponent(r.url)}`).join('\n'),
	);
};
