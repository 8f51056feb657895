'use strict';
// Create or Update by phone number (issues 40.1 and 46): 20 items with the number written "+1 555 400 0041", for 20
// Contacts stored with other spellings: "+1 (555) 400-0041" (even ones) or "+15554000042". EspoCRM 8 and later store
// every one in E.164 ("+15554000041", its phoneNumberInternational default); 7.5 stores each as written. All 20
// updated, none created, on both: the look-up compares the numbers' digits (phoneNumberNumeric), whatever the form
// stored (before issue 46, 7.5 created the dashed ones again; before 40.1, every version created all 20). Three of them
// have the number only as their second one. One look-up.
const { pool, requestsFor } = require('../lib/helpers');

const COUNT = 20;
const SECOND_NUMBER = [4, 11, 17];
const number = (i) => `+1555400${String(41 + i).padStart(4, '0')}`;
/** How the before hook writes the number of Contact i: dashed or in E.164. */
const written = (i) =>
	i % 2 === 0 ? `+1 (555) 400-${String(41 + i).padStart(4, '0')}` : number(i);
const storesAsWritten = (espo) => Number(espo.version.split('.')[0]) < 8;

module.exports = async (result, espo, assert) => {
	const error = result.error('Create or Update');
	assert.ok(!error, `the node failed: ${error && (error.message || JSON.stringify(error))}`);
	const out = result.rawItems('Create or Update');
	assert.equal(out.length, COUNT, `${out.length} output items`);
	const failed = out.filter((item) => item.error);
	assert.equal(
		failed.length,
		0,
		`items failed: ${failed
			.slice(0, 3)
			.map((item) => JSON.stringify(item.error))
			.join('; ')}`,
	);
	assert.deepEqual(
		out.map((item) => item.json.id),
		espo.state.ids,
		'each item updated the Contact stored with its number',
	);

	const contacts = await espo.api.list('Contact', {
		select: 'id,lastName,description,phoneNumber',
		where: [{ type: 'startsWith', attribute: 'lastName', value: 'Phone18n' }],
	});
	assert.equal(contacts.length, COUNT, `${contacts.length} Contacts, expected ${COUNT}`);
	for (const contact of contacts)
		assert.equal(contact.description, 'updated', `${contact.lastName}: ${contact.description}`);

	const requests = requestsFor(espo, 'Contact');
	const refused = requests.filter((r) => r.status !== 200);
	assert.equal(
		refused.length,
		0,
		`requests refused: ${refused
			.slice(0, 5)
			.map((r) => `${r.status} ${r.method} ${r.path} ${r.reason}`)
			.join('; ')}`,
	);
	assert.equal(requests.filter((r) => r.method === 'POST').length, 0, 'no Contact created');
	assert.equal(
		requests.filter((r) => r.method === 'PUT').length,
		COUNT,
		'each Contact updated once',
	);
	const lookups = requests.filter((r) => r.method === 'GET' && r.path === '/Contact');
	assert.equal(lookups.length, 1, 'one look-up');
	assert.match(
		decodeURIComponent(lookups[0].rawQuery),
		/\[attribute\]=phoneNumberNumeric/,
		'by the digits of the numbers',
	);
};

module.exports.before = async (espo) => {
	espo.state.ids = await pool(
		Array.from({ length: COUNT }, (_, i) => i),
		4,
		async (i) => {
			const body = SECOND_NUMBER.includes(i)
				? {
						phoneNumberData: [
							{ phoneNumber: `+1 555 499 ${String(i).padStart(4, '0')}`, primary: true },
							{ phoneNumber: written(i), primary: false },
						],
					}
				: { phoneNumber: written(i) };
			const created = await espo.api.ok('POST', '/Contact', {
				firstName: 'Old',
				lastName: `Phone18n${i}`,
				description: 'stored',
				...body,
			});
			return created.id;
		},
	);
	// EspoCRM 8 and later store them in E.164, whatever form they were sent in; 7.5 as written.
	const i = SECOND_NUMBER[0];
	const stored = await espo.api.ok('GET', `/Contact/${espo.state.ids[i]}`);
	const numbers = (stored.phoneNumberData || []).map((entry) => entry.phoneNumber);
	const expected = storesAsWritten(espo) ? written(i) : number(i);
	if (!numbers.includes(expected))
		throw new Error(`EspoCRM ${espo.version} stored ${JSON.stringify(numbers)}, not ${expected}`);
};
