'use strict';
// Return All in the list's order (issue 40.4, node version 1.1) on EspoCRM's MariaDB (utf8mb4_unicode_ci): 450
// Accounts whose SIC code (varchar) is NULL, empty, or differs only in letter case, accents or a trailing space, and
// whose names tie the same ways. Return All sorted by the SIC code (both ways) or by name, paged from the last record
// read, gives exactly the records and the order of EspoCRM's own list read by offset; sorted by an enum (options'
// order) it pages by offset; without a sort order it follows the default (createdAt, newest first).
const { pool, requestsFor } = require('../lib/helpers');

const COUNT = 450;
const SIC_CODES = [null, 'alpha', 'Alpha', 'alpha ', 'beta', 'Béta', 'BETA', '', 'gamma'];
const NAME_FORMS = ['x', 'X', 'x ', 'é'];
const TYPES = ['Reseller', 'Customer', '', 'Partner', 'Investor'];
const WHERE = [{ type: 'startsWith', attribute: 'name', value: 'Order19 ' }];

const CASES = [
	{ node: 'By SIC Code Asc', query: { orderBy: 'sicCode', order: 'asc' }, keyset: true },
	{ node: 'By SIC Code Desc', query: { orderBy: 'sicCode', order: 'desc' }, keyset: true },
	{ node: 'By Name', query: { orderBy: 'name', order: 'asc' }, keyset: true },
	{ node: 'By Type', query: { orderBy: 'type', order: 'asc' }, keyset: false },
	{ node: 'Newest First', query: {}, keyset: true },
];

module.exports = async (result, espo, assert) => {
	const lists = requestsFor(espo, 'Account').filter((r) => r.method === 'GET' && r.path === '/Account');
	for (const { node, query, keyset } of CASES) {
		const error = result.error(node);
		assert.ok(!error, `${node} failed: ${error && (error.message || JSON.stringify(error))}`);
		const ids = result.items(node).map((item) => item.id);
		assert.equal(new Set(ids).size, ids.length, `${node}: a record came twice`);
		const expected = (await espo.api.list('Account', { select: 'id', where: WHERE, ...query })).map((record) => record.id);
		assert.equal(ids.length, COUNT, `${node}: ${ids.length} records`);
		assert.deepEqual(ids, expected, `${node}: not in the order of EspoCRM's list`);
		const orderBy = query.orderBy ?? 'createdAt';
		const paged = lists.filter((r) => new RegExp(`[?&]orderBy=${orderBy}(&|$)`).test(r.rawQuery) && /(^|&)offset=/.test(r.rawQuery));
		if (keyset) assert.equal(paged.length, 0, `${node}: paged by offset: ${paged.map((r) => r.url).join(' ')}`);
		else assert.ok(paged.length >= 2, `${node}: ${paged.length} requests by offset`);
	}
};

module.exports.before = async (espo) => {
	await pool(Array.from({ length: COUNT }, (_, i) => i), 4, async (i) => {
		const body = {
			name: `Order19 ${NAME_FORMS[i % NAME_FORMS.length]}${i % 40}`,
			sicCode: SIC_CODES[i % SIC_CODES.length],
			type: TYPES[i % TYPES.length],
		};
		// Names that tie (letter case, a trailing space) are what EspoCRM's duplicate check refuses.
		const r = await espo.api.post('/Account', body, { headers: { 'X-Skip-Duplicate-Check': 'true' } });
		if (r.status !== 200) throw new Error(`POST /Account: ${r.status} ${r.reason || ''}`);
	});
};
