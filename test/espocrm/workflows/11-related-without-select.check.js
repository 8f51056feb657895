'use strict';
// Get Many Related without "Select": EspoCRM 8.1.5 answers a related list without `select` with only id, createdAt and
// a few system attributes (a main list has every field). Users expect the records' fields.
module.exports = async (result, espo, assert) => {
	const [contact] = result.items('Create Contact');
	const related = result.items('Related Contacts');
	assert.equal(related.length, 1);
	assert.equal(related[0].id, contact.id);
	const missing = ['firstName', 'lastName', 'emailAddress', 'title'].filter(
		(f) => related[0][f] === undefined,
	);
	assert.deepEqual(
		missing,
		[],
		`fields missing from the related record: ${missing.join(', ')}; it has: ${Object.keys(related[0]).join(', ')}; requests:\n${espo
			.find('GET')
			.map((r) => decodeURIComponent(r.url))
			.join('\n')}`,
	);
	assert.equal(related[0].lastName, 'EspoRelFields-Lamarr');
	assert.equal(related[0].emailAddress, 'hedy@espocrm.test');
};
