'use strict';
// Return All in the list's order (issue 40.4, node version 1.1) on EspoCRM's MariaDB (utf8mb4_unicode_ci): 450
// Accounts whose SIC code (varchar) is NULL, empty, or differs only in letter case, accents or a trailing space, and
// whose names tie the same ways. Return All sorted by the SIC code (both ways) or by name, paged from the last record
// read, gives exactly the records and the order of EspoCRM's own list read by offset; sorted by an enum (options'
// order) it pages by offset; without a sort order it follows the default (createdAt, newest first). A long list
// (15,200 Accounts by SQL, the same SIC codes: every cut between segments falls among records that tie) is read in
// three segments side by side, cut at two records read by offset, and still gives EspoCRM's order exactly.
// What it costs (issue 48): the first page goes out as the list comes (no orderBy without a sort order: EspoCRM's
// default), and only a node whose first page came back full reads the metadata, once, and only Account's part of it
// (`GET /Metadata?key=entityDefs.Account`: 8.2+ answer that part, earlier versions the whole); a list of one page is one request.
const { pool, requestsFor } = require('../lib/helpers');

const COUNT = 450;
const SIC_CODES = [null, 'alpha', 'Alpha', 'alpha ', 'beta', 'Béta', 'BETA', '', 'gamma'];
const NAME_FORMS = ['x', 'X', 'x ', 'é'];
const TYPES = ['Reseller', 'Customer', '', 'Partner', 'Investor'];
const WHERE = [{ type: 'startsWith', attribute: 'name', value: 'Order19 ' }];
const LONG_COUNT = 15200;
const LONG_WHERE = [{ type: 'startsWith', attribute: 'name', value: 'Order19L ' }];
const ONE_PAGE_WHERE = [...WHERE, { type: 'equals', attribute: 'type', value: 'Partner' }];
const ONE_PAGE_COUNT = TYPES.reduce(
	(count, type, index) =>
		type === 'Partner' ? count + Math.ceil((COUNT - index) / TYPES.length) : count,
	0,
);

const CASES = [
	{ node: 'By SIC Code Asc', query: { orderBy: 'sicCode', order: 'asc' }, keyset: true },
	{ node: 'By SIC Code Desc', query: { orderBy: 'sicCode', order: 'desc' }, keyset: true },
	{ node: 'By Name', query: { orderBy: 'name', order: 'asc' }, keyset: true },
	{ node: 'By Type', query: { orderBy: 'type', order: 'asc' }, keyset: false },
	{ node: 'Newest First', query: {}, keyset: true },
	{
		node: 'Long List By SIC Code Asc',
		query: { orderBy: 'sicCode', order: 'asc' },
		keyset: true,
		cuts: 2,
	},
	{
		node: 'Long List By SIC Code Desc',
		query: { orderBy: 'sicCode', order: 'desc' },
		keyset: true,
		cuts: 2,
	},
];

module.exports = async (result, espo, assert) => {
	const lists = requestsFor(espo, 'Account').filter(
		(r) => r.method === 'GET' && r.path === '/Account',
	);
	const text = (r) => decodeURIComponent(r.rawQuery.replace(/\+/g, ' '));
	// Every node but the one of a single page reads Account's metadata once, after its first page.
	const metadata = espo.requests.filter(
		(r) => r.method === 'GET' && r.path === '/Metadata' && /(^|&)key=/.test(r.rawQuery),
	);
	assert.deepEqual(
		metadata.map((r) => text(r)),
		CASES.map(() => 'key=entityDefs.Account'),
		'the metadata: once per node whose list goes on, Account only',
	);
	assert.ok(
		metadata.every((r) => r.status === 200),
		'the metadata read',
	);
	for (const { node, query, keyset, cuts = 0 } of CASES) {
		const count = cuts ? LONG_COUNT : COUNT;
		const where = cuts ? LONG_WHERE : WHERE;
		const error = result.error(node);
		assert.ok(!error, `${node} failed: ${error && (error.message || JSON.stringify(error))}`);
		const ids = result.items(node).map((item) => item.id);
		assert.equal(new Set(ids).size, ids.length, `${node}: a record came twice`);
		const expected = (await espo.api.list('Account', { select: 'id', where, ...query })).map(
			(record) => record.id,
		);
		assert.equal(ids.length, count, `${node}: ${ids.length} records`);
		assert.deepEqual(ids, expected, `${node}: not in the order of EspoCRM's list`);
		const orderBy = query.orderBy ?? 'createdAt';
		const ofCase = lists.filter(
			(r) =>
				new RegExp(`[?&]orderBy=${orderBy}(&|$)`).test(r.rawQuery) &&
				decodeURIComponent(r.rawQuery.replace(/\+/g, ' ')).includes(where[0].value),
		);
		const paged = ofCase.filter(
			(r) => /(^|&)offset=/.test(r.rawQuery) && !/(^|&)maxSize=1(&|$)/.test(r.rawQuery),
		);
		const cutsRead = ofCase.filter(
			(r) =>
				new RegExp(`[?&]order=${query.order}(&|$)`).test(r.rawQuery) &&
				/(^|&)maxSize=1(&|$)/.test(r.rawQuery),
		);
		if (query.order)
			assert.equal(
				cutsRead.length,
				cuts,
				`${node}: ${cutsRead.length} records read by offset to cut the list`,
			);
		if (keyset)
			assert.equal(
				paged.length,
				0,
				`${node}: paged by offset: ${paged.map((r) => r.url).join(' ')}`,
			);
		else assert.ok(paged.length >= 2, `${node}: ${paged.length} requests by offset`);
		// The first page: as the list comes, without a condition of paging (EspoCRM's default order without a sort order).
		const asked = query.orderBy
			? new RegExp(`(^|&)orderBy=${query.orderBy}&order=${query.order}(&|$)`)
			: /^(?!.*(^|&)orderBy=)(?!.*Partner)/;
		const first = lists.filter(
			(r) =>
				text(r).includes(where[0].value) &&
				!/\[attribute\]=id/.test(text(r)) &&
				!/(^|&)offset=/.test(r.rawQuery) &&
				asked.test(r.rawQuery),
		);
		assert.equal(
			first.length,
			1,
			`${node}: ${first.length} first pages:\n${first.map((r) => r.url).join('\n')}`,
		);
	}

	// A list of one page: one request (no metadata, nothing after it), in EspoCRM's order.
	const node = 'One Page Newest First';
	assert.ok(!result.error(node), `${node} failed: ${JSON.stringify(result.error(node))}`);
	const ids = result.items(node).map((item) => item.id);
	assert.equal(ids.length, ONE_PAGE_COUNT, `${node}: ${ids.length} records`);
	assert.deepEqual(
		ids,
		(await espo.api.list('Account', { select: 'id', where: ONE_PAGE_WHERE })).map(
			(record) => record.id,
		),
		`${node}: not in EspoCRM's order`,
	);
	const onePage = lists.filter((r) => text(r).includes('Partner') && text(r).includes('Order19 '));
	assert.equal(
		onePage.length,
		1,
		`${node}: ${onePage.length} requests: ${onePage.map((r) => r.url).join(' ')}`,
	);
	assert.ok(!/(^|&)(orderBy|offset)=/.test(onePage[0].rawQuery), `${node}: ${onePage[0].url}`);
};

module.exports.before = async (espo) => {
	// The long list by SQL (15,000 posts would take minutes): IDs of 17 characters as EspoCRM's; 'Béta' as UTF-8 bytes,
	// whatever the client's character set.
	await espo.query(`INSERT INTO account (id, deleted, name, sic_code, created_at, modified_at)
		SELECT CONCAT('o19', LPAD(HEX(seq), 14, '0')), 0, CONCAT('Order19L ', seq % 40),
			CASE seq % 9 WHEN 0 THEN NULL WHEN 1 THEN 'alpha' WHEN 2 THEN 'Alpha' WHEN 3 THEN 'alpha ' WHEN 4 THEN 'beta'
				WHEN 5 THEN CONVERT(X'42C3A97461' USING utf8mb4) WHEN 6 THEN 'BETA' WHEN 7 THEN '' ELSE 'gamma' END,
			DATE_SUB('2026-11-01 00:00:00', INTERVAL seq SECOND), DATE_SUB('2026-11-01 00:00:00', INTERVAL seq SECOND)
		FROM seq_1_to_${LONG_COUNT}`);
	await pool(
		Array.from({ length: COUNT }, (_, i) => i),
		4,
		async (i) => {
			const body = {
				name: `Order19 ${NAME_FORMS[i % NAME_FORMS.length]}${i % 40}`,
				sicCode: SIC_CODES[i % SIC_CODES.length],
				type: TYPES[i % TYPES.length],
			};
			// Names that tie (letter case, a trailing space) are what EspoCRM's duplicate check refuses.
			const r = await espo.api.post('/Account', body, {
				headers: { 'X-Skip-Duplicate-Check': 'true' },
			});
			if (r.status !== 200) throw new Error(`POST /Account: ${r.status} ${r.reason || ''}`);
		},
	);
};
