'use strict';
// Get Many with Return All over 205 Contacts (more than one page of 200), a Limit below and above 200, conditions
// (and / or), Where JSON, select and order. The records are made through EspoCRM's API before the execution.
const { pool, requestsFor } = require('../lib/helpers');

const COUNT = 205;
const names = Array.from({ length: COUNT }, (_, i) => `Page-${String(i).padStart(3, '0')}`);

module.exports = async (result, espo, assert) => {
	const all = result.items('Get All');
	assert.equal(all.length, COUNT, `Return All gave ${all.length} items`);
	assert.equal(new Set(all.map((c) => c.id)).size, COUNT, 'no record twice');
	assert.deepEqual(new Set(all.map((c) => c.id)), new Set(espo.state.ids));
	assert.deepEqual(all.map((c) => c.firstName), names, 'ordered by firstName ascending, across both pages');
	assert.equal(all[0].lastName, 'EspoPaging');

	const pages = espo.find('GET', '/Contact').filter((r) => /lastName/.test(decodeURIComponent(r.rawQuery)) && !/NoSuchName/.test(decodeURIComponent(r.rawQuery)));
	assert.equal(pages.length, 2, `Return All: two pages of at most 200:\n${pages.map((p) => decodeURIComponent(p.url)).join('\n')}`);
	for (const p of pages) assert.match(decodeURIComponent(p.rawQuery), /maxSize=200/);
	assert.ok(pages.every((p) => p.status === 200));

	const five = result.items('Get Limit 5');
	assert.deepEqual(five.map((c) => c.firstName), ['Page-199', 'Page-198', 'Page-197', 'Page-196', 'Page-195']);

	const upTo250 = result.items('Get Limit 250');
	assert.equal(upTo250.length, COUNT, 'a Limit of 250 pages too, and stops at the short page');
	assert.ok(requestsFor(espo, 'Contact').every((r) => r.status === 200), 'no request refused (maxSize never above 200)');
};

module.exports.before = async (espo) => {
	espo.state.ids = await pool(names, 4, async (firstName) => (await espo.api.ok('POST', '/Contact', { firstName, lastName: 'EspoPaging' })).id);
};
