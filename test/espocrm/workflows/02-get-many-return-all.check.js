'use strict';
// Get Many with Return All over 205 Contacts (more than one page of 200), a Limit below and above 200, conditions
// (and / or), Where JSON, select and order. The records are made through EspoCRM's API before the execution.
// Version 1.1 (issue 48): Return All by firstName and without a sort order (EspoCRM's default, createdAt newest first,
// records made in the same second ordered by ID) comes in EspoCRM's order, the second page following on from the
// first page's last record after one read of Contact's metadata; a Return All of one page is one request.
const { pool, requestsFor } = require('../lib/helpers');

const COUNT = 205;
const names = Array.from({ length: COUNT }, (_, i) => `Page-${String(i).padStart(3, '0')}`);

module.exports = async (result, espo, assert) => {
	const all = result.items('Get All');
	assert.equal(all.length, COUNT, `Return All gave ${all.length} items`);
	assert.equal(new Set(all.map((c) => c.id)).size, COUNT, 'no record twice');
	assert.deepEqual(new Set(all.map((c) => c.id)), new Set(espo.state.ids));
	assert.deepEqual(
		all.map((c) => c.firstName),
		names,
		'ordered by firstName ascending, across both pages',
	);
	assert.equal(all[0].lastName, 'EspoPaging');

	const pages = espo
		.find('GET', '/Contact')
		.filter(
			(r) =>
				/lastName/.test(decodeURIComponent(r.rawQuery)) &&
				!/NoSuchName/.test(decodeURIComponent(r.rawQuery)) &&
				/(^|&)offset=/.test(r.rawQuery),
		);
	assert.equal(
		pages.length,
		2,
		`Return All: two pages of at most 200:\n${pages.map((p) => decodeURIComponent(p.url)).join('\n')}`,
	);
	for (const p of pages) assert.match(decodeURIComponent(p.rawQuery), /maxSize=200/);
	assert.ok(pages.every((p) => p.status === 200));

	const five = result.items('Get Limit 5');
	assert.deepEqual(
		five.map((c) => c.firstName),
		['Page-199', 'Page-198', 'Page-197', 'Page-196', 'Page-195'],
	);

	const upTo250 = result.items('Get Limit 250');
	assert.equal(upTo250.length, COUNT, 'a Limit of 250 pages too, and stops at the short page');
	assert.ok(
		requestsFor(espo, 'Contact').every((r) => r.status === 200),
		'no request refused (maxSize never above 200)',
	);

	// Version 1.1: in EspoCRM's order; the pages after the first follow on from its last record, never by offset.
	const text = (r) => decodeURIComponent(r.rawQuery.replace(/\+/g, ' '));
	const where = [{ type: 'equals', attribute: 'lastName', value: 'EspoPaging' }];
	for (const [node, order] of [
		['Get All 1.1', { orderBy: 'firstName', order: 'asc' }],
		['Get All 1.1 Newest First', {}],
	]) {
		const ids = result.items(node).map((c) => c.id);
		assert.equal(
			new Set(ids).size,
			COUNT,
			`${node}: ${ids.length} records, ${new Set(ids).size} different`,
		);
		assert.deepEqual(
			ids,
			(await espo.api.list('Contact', { select: 'id', where, ...order })).map((c) => c.id),
			`${node}: not in EspoCRM's order`,
		);
	}
	const onePageOnly = (r) => /\[type\]=startsWith/.test(text(r)) && /EspoPaging/.test(text(r));
	const followed = espo
		.find('GET', '/Contact')
		.filter(
			(r) => /EspoPaging/.test(text(r)) && !/(^|&)offset=/.test(r.rawQuery) && !onePageOnly(r),
		);
	// Each: a first page as the list comes (firstName asc; no orderBy at all), a second after its last record.
	assert.deepEqual(
		followed.map((r) => [
			/(^|&)orderBy=(\w+)/.exec(r.rawQuery)?.[2] ?? null,
			/\[attribute\]=id/.test(text(r)),
		]),
		[
			['firstName', false],
			['firstName', true],
			[null, false],
			['createdAt', true],
		],
		`version 1.1's pages:\n${followed.map((r) => text(r)).join('\n')}`,
	);
	const metadata = espo.find('GET', '/Metadata').filter((r) => /(^|&)key=/.test(r.rawQuery));
	assert.deepEqual(
		metadata.map((r) => text(r)),
		['key=entityDefs.Contact', 'key=entityDefs.Contact'],
		'the metadata: once per Return All of two pages, Contact only',
	);

	// A Return All of one page: one request, nothing else.
	const onePage = result.items('Get One Page 1.1');
	assert.deepEqual(
		onePage.map((c) => c.firstName).sort(),
		names.filter((name) => name.startsWith('Page-1')),
	);
	assert.equal(
		espo.find('GET', '/Contact').filter(onePageOnly).length,
		1,
		'Get One Page 1.1: one request',
	);
};

module.exports.before = async (espo) => {
	espo.state.ids = await pool(
		names,
		4,
		async (firstName) =>
			(await espo.api.ok('POST', '/Contact', { firstName, lastName: 'EspoPaging' })).id,
	);
};
