'use strict';
/**
 * EspoCRM dialect with an API key: n8n's field mapper ("Using the Field Mapper") with values of the wrong JSON type
 * converted by the node (numbers, booleans, dates, date-times, lists, a literal "a, b"), "Map Automatically" (input fields the
 * schema has, others dropped), and a custom entity type (CProject) for create and get many.
 */
module.exports = (result, sandbox, assert) => {
	for (const r of sandbox.requests) {
		assert.equal(r.headers['x-api-key'], 'sandbox-api-key');
		assert.equal(r.status, 200, `${r.method} ${r.path} answered ${r.status}`);
	}

	const posts = sandbox.find('POST', '/CProject');
	assert.equal(posts.length, 3);
	const byName = Object.fromEntries(posts.map((r) => [r.body.name, r.body]));
	assert.deepEqual(byName['E2E Apollo'], {
		name: 'E2E Apollo',
		budget: 1500.5, // "1500.5"
		priority: 3,
		isBillable: true, // "yes"
		startDate: '2026-12-24', // date only
		deadline: '2026-12-31 17:30:00', // 18:30 at +01:00, in UTC
		labels: ['Internal', 'Urgent'], // "Internal, Urgent"
		status: 'Active',
	});
	assert.deepEqual(byName['E2E Gemini'], {
		name: 'E2E Gemini',
		budget: 99,
		priority: 1, // "1"
		isBillable: false,
		startDate: '2027-01-05',
		deadline: '2027-02-01 09:00:00',
		labels: ['Client'],
		status: 'Draft',
	});
	assert.ok(!('description' in byName['E2E Apollo']), 'an empty mapped value is left out');
	// a list typed into the mapper as the editor saves it (a text field labelled "list: a, b"): n8n refused the literal
	// before the run while list fields had n8n's type "array" ("expects a array")
	assert.deepEqual(byName['E2E Literal'], {
		name: 'E2E Literal',
		labels: ['Research', 'Maintenance'],
	});
	assert.equal(result.items('Create Projects').length, 2);

	const list = sandbox.find('GET', '/CProject');
	assert.equal(list.length, 1);
	assert.deepEqual(list[0].query.where, [
		{ type: 'isTrue', attribute: 'isBillable' },
		{ type: 'startsWith', attribute: 'name', value: 'E2E ' },
	]);
	assert.deepEqual(
		result.items('Billable Projects').map((p) => p.name),
		['E2E Apollo'],
	);

	const contact = sandbox.find('POST', '/Contact');
	assert.equal(contact.length, 1);
	assert.deepEqual(contact[0].body, {
		firstName: 'Auto',
		lastName: 'E2eMapper-Auto',
		doNotCall: true, // "true"
		emailAddress: 'auto.mapper@example.com',
	});
};
