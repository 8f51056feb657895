'use strict';
// Create or Update by phone number (issue 40.1): 20 items with the number written "+1 555 400 0041", for 20 Contacts
// that EspoCRM stores as "+15554000041" (its phoneNumberInternational default: E.164). All 20 updated, none created
// (before the fix: 20 creates, each refused 409 by the duplicate check or a second Contact with the same number).
// Three of them have the number only as their second one. One look-up.
const { pool, requestsFor } = require('../lib/helpers');

const COUNT = 20;
const SECOND_NUMBER = [4, 11, 17];
const number = (i) => `+1555400${String(41 + i).padStart(4, '0')}`;

module.exports = async (result, espo, assert) => {
	const error = result.error('Create or Update');
	assert.ok(!error, `the node failed: ${error && (error.message || JSON.stringify(error))}`);
	const out = result.rawItems('Create or Update');
	assert.equal(out.length, COUNT, `${out.length} output items`);
	const failed = out.filter((item) => item.error);
	assert.equal(failed.length, 0, `items failed: ${failed.slice(0, 3).map((item) => JSON.stringify(item.error)).join('; ')}`);
	assert.deepEqual(out.map((item) => item.json.id), espo.state.ids, 'each item updated the Contact stored with its number');

	const contacts = await espo.api.list('Contact', {
		select: 'id,lastName,description,phoneNumber',
		where: [{ type: 'startsWith', attribute: 'lastName', value: 'Phone18n' }],
	});
	assert.equal(contacts.length, COUNT, `${contacts.length} Contacts, expected ${COUNT}`);
	for (const contact of contacts) assert.equal(contact.description, 'updated', `${contact.lastName}: ${contact.description}`);

	const requests = requestsFor(espo, 'Contact');
	const refused = requests.filter((r) => r.status !== 200);
	assert.equal(refused.length, 0, `requests refused: ${refused.slice(0, 5).map((r) => `${r.status} ${r.method} ${r.path} ${r.reason}`).join('; ')}`);
	assert.equal(requests.filter((r) => r.method === 'POST').length, 0, 'no Contact created');
	assert.equal(requests.filter((r) => r.method === 'PUT').length, COUNT, 'each Contact updated once');
	assert.equal(requests.filter((r) => r.method === 'GET' && r.path === '/Contact').length, 1, 'one look-up');
};

module.exports.before = async (espo) => {
	espo.state.ids = await pool(Array.from({ length: COUNT }, (_, i) => i), 4, async (i) => {
		const body = SECOND_NUMBER.includes(i)
			? {
					phoneNumberData: [
						{ phoneNumber: `+1 555 499 ${String(i).padStart(4, '0')}`, primary: true },
						{ phoneNumber: `+1 555 400 ${String(41 + i).padStart(4, '0')}`, primary: false },
					],
				}
			: { phoneNumber: number(i) };
		const created = await espo.api.ok('POST', '/Contact', { firstName: 'Old', lastName: `Phone18n${i}`, description: 'stored', ...body });
		return created.id;
	});
	// EspoCRM stores them in E.164, whatever form they were sent in.
	const stored = await espo.api.ok('GET', `/Contact/${espo.state.ids[SECOND_NUMBER[0]]}`);
	const numbers = (stored.phoneNumberData || []).map((entry) => entry.phoneNumber);
	if (!numbers.includes(number(SECOND_NUMBER[0]))) throw new Error(`EspoCRM stored ${JSON.stringify(numbers)}, not ${number(SECOND_NUMBER[0])}`);
};
