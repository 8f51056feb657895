#!/usr/bin/env node
'use strict';
/*
 * npm run bench:espocrm [-- --records N] [--cases rawCreate,nodeCreate,httpCreate,rawSel,nodeSel,http,rawAll,nodeAll,
 *                                                   rawSort,nodeSort,rawSortFirst,nodeSortFirst,nodeListOrder,rawJoins,
 *                                                   nodeListOrderJoins,rawSortJoins,nodeSortJoins]
 *                         [--runs N] [--linked] [--no-build] [--keep] [--json FILE]
 *
 * Creates on the real EspoCRM of the tests (the release given at run time: test/espocrm/rig/espocrm.js), the `create`
 * job of `npm run bench` on a server the bench did not write (issue 31, point 6): 1,000 Contacts with 3 fields from
 * expressions, by a raw client (5 in flight), this node (Max Parallel Requests 5) and the HTTP Request node (defaults:
 * every item at once), EspoCRM's own time per request in place of the sandbox's latency. Goals: this node ≤ 1.5x raw, and ahead of the
 * HTTP Request node.
 *
 * Return All from the same EspoCRM, seeded with N Contacts (default 100,000; SQL into its MariaDB), compared in one
 * run:
 *   - a raw client that pages by offset with the total on every page (what other EspoCRM clients do), one page after
 *     another, with all fields and with `select` of 4 fields;
 *   - this node, Get Many with Return All, without and with Fields to Return (the same 4 fields);
 *   - n8n's HTTP Request node with its own pagination (offset until an empty page) and Split Out, with the 4 fields.
 * The n8n cases run in a sub-workflow that ends with a Summarize (count and distinct count of the IDs), called by an
 * Execute Workflow node after n8n has idled for a while, as the memory job of `npm run bench` does (workflows.js
 * inSubWorkflow: the run data of 100,000 records is longer than the longest string `n8n execute` can print, and a
 * fresh n8n's start-up garbage must be collected first); their time is that node's, their memory the n8n process
 * tree's peak while it ran. Requests and the server's own time per case come from PHP's server log.
 * Return All in the list's order (issue 40.4, the node's version 1.1): sorted by lastName with the 4 fields, this
 * node (paged from the last record read, in segments of 5,000 records read side by side) against the raw client
 * paging by offset in the same order (rawSort, nodeSort; lastName has no index in EspoCRM's Contact, so every page
 * scans the table), the same by firstName (which has one: rawSortFirst, nodeSortFirst); and without a sort order
 * (EspoCRM's default, createdAt newest first) with the 4 fields (nodeListOrder, against rawSel). Goal: nodeSort ≤ 0.3x
 * rawSort; every record once.
 * Goals (issue 32): this node ≤ 0.3x the raw client's time with Fields to Return, ≤ 0.6x without; every record once;
 * peak memory ≤ the HTTP Request node's. With --runs N (default 1) every case runs N times, one run of all cases after
 * another; the table gives the median (min–max), ratios are taken within each run, and the goals are judged on the
 * medians (peak memory moves by tens of MB with when V8 collects garbage). PHP's server runs with
 * PHP_CLI_SERVER_WORKERS=$ESPOCRM_PHP_WORKERS (default 4, as in test:espocrm); the raw clients and version 1's Return
 * All send one request at a time, version 1.1's in the list's order up to 5 (Max Parallel Requests), one per segment.
 */

const fs = require('fs');
const os = require('os');
const path = require('path');
const http = require('http');
const { performance } = require('perf_hooks');
const env = require('../../test/lib/n8n-env');
const { Processes } = require('../../test/lib/n8n-server');
const { setupN8n, measure, onNode24 } = require('./n8n');
const { startEspo, releaseOrSkip } = require('../../test/espocrm/rig/espocrm');
const { toQuery } = require('../../test/espocrm/rig/client');
const raw = require('./raw');
const { median, stat, fmt } = require('./report');
const { contact } = require('./sandbox-server');
const {
	createsOfThisNode,
	createsOfHttpRequestNode,
	httpPages,
	inSubWorkflow,
	SETTLE_SECONDS,
} = require('./workflows');

const SELECT = ['firstName', 'lastName', 'description', 'createdAt'];
// the fields users pick (issue 48): the e-mail address and the account need joins (entity_email_address and
// email_address for the primary address, account for accountName)
const SELECT_JOINS = ['firstName', 'lastName', 'emailAddress', 'accountId'];
const CREATES = 1000;
const PARALLEL = 5;
// the items of the creates, as the workflows' Code node makes them (workflows.js)
const CREATE_ITEMS = Array.from({ length: CREATES }, (_, i) => {
	const c = contact(i);
	return { first: c.firstName, last: c.lastName, email: c.emailAddress };
});
const NODE_TYPE = 'n8n-nodes-record-management-service.recordManagementService';
const CREDENTIAL = { id: 'rmsBenchEspoKey1', name: 'RMS bench EspoCRM (API key)' };

function parseArgs(argv) {
	const o = {
		records: 100000,
		runs: 1,
		build: true,
		keep: false,
		json: undefined,
		cases: undefined,
		linked: false,
	};
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		const value = () => (a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i]);
		if (/^--records(=|$)/.test(a)) o.records = Number(value());
		else if (/^--json(=|$)/.test(a)) o.json = path.resolve(value());
		else if (/^--runs(=|$)/.test(a)) o.runs = Number(value());
		else if (/^--cases(=|$)/.test(a))
			o.cases = value()
				.split(',')
				.map((k) => k.trim());
		else if (a === '--no-build') o.build = false;
		else if (a === '--keep') o.keep = true;
		else if (a === '--linked') o.linked = true;
		else throw new Error(`unknown option ${a} (see the top of scripts/bench/espocrm.js)`);
	}
	if (!Number.isInteger(o.records) || o.records < 1)
		throw new Error('--records wants a whole number ≥ 1');
	if (!Number.isInteger(o.runs) || o.runs < 1) throw new Error('--runs wants a whole number ≥ 1');
	return o;
}

/** One GET as n8n sends it (a new connection per request), read in full and parsed. */
function get(apiBase, apiKey, pathname, query) {
	return new Promise((resolve, reject) => {
		const req = http.request(
			`${apiBase}${pathname}?${toQuery(query).join('&')}`,
			{ agent: new http.Agent(), headers: { Accept: 'application/json', 'X-Api-Key': apiKey } },
			(res) => {
				const chunks = [];
				res.on('data', (c) => chunks.push(c));
				res.on('end', () => {
					const text = Buffer.concat(chunks).toString('utf8');
					if (res.statusCode !== 200)
						reject(
							new Error(
								`GET ${pathname}: ${res.statusCode} ${res.headers['x-status-reason'] || ''}`,
							),
						);
					else resolve(JSON.parse(text));
				});
				res.on('error', reject);
			},
		);
		req.on('error', reject);
		req.end();
	});
}

/** The raw client: offset paging, the total counted on every page, one page after another until a short page. */
async function rawOffset(apiBase, apiKey, select, order = {}) {
	global.gc();
	const ids = new Set();
	let records = 0;
	const started = performance.now();
	for (let offset = 0; ; offset += 200) {
		const page = await get(apiBase, apiKey, '/Contact', {
			offset,
			maxSize: 200,
			...(select ? { select: select.join(',') } : {}),
			...order,
		});
		for (const r of page.list) ids.add(r.id);
		records += page.list.length;
		if (page.list.length < 200) break;
	}
	return { ms: performance.now() - started, records, unique: ids.size };
}

/** The PHP server log's request lines written since `from` (test/espocrm/rig/router.php: "RMS <status> <ms> <method> <uri>"). */
function requestsSince(logFile, from) {
	const text = fs.readFileSync(logFile, 'utf8').slice(from);
	return text
		.split('\n')
		.map((line) => /^RMS (\d+) (\d+) (\S+) (\S+)/.exec(line))
		.filter(Boolean)
		.map((m) => ({ status: Number(m[1]), ms: Number(m[2]), method: m[3], url: m[4] }));
}

function workflows() {
	const node = (parameters, typeVersion = 1) => ({
		name: 'Get Many',
		type: NODE_TYPE,
		typeVersion,
		parameters: {
			resource: 'record',
			operation: 'getMany',
			entityType: 'Contact',
			returnAll: true,
			...parameters,
		},
		credentials: { recordManagementServiceApi: CREDENTIAL },
	});
	return ({ apiBase, apiKey }) => [
		createsOfThisNode('rmsEspoCreate001', 'bench espocrm: creates, this node', CREATES, CREDENTIAL),
		createsOfHttpRequestNode(
			'rmsEspoCreate002',
			'bench espocrm: creates, HTTP Request node',
			CREATES,
			apiBase,
			apiKey,
		),
		...inSubWorkflow(
			'rmsEspoSubAll001',
			'rmsEspoRunAll001',
			'bench espocrm: Return All, this node',
			[node({})],
		),
		...inSubWorkflow(
			'rmsEspoSubSel001',
			'rmsEspoRunSel001',
			'bench espocrm: Return All, this node, 4 fields',
			[node({ listOptions: { select: SELECT } })],
		),
		...inSubWorkflow(
			'rmsEspoSubSrt001',
			'rmsEspoRunSrt001',
			'bench espocrm: Return All by lastName, this node 1.1, 4 fields',
			[node({ listOptions: { select: SELECT, orderBy: 'lastName', order: 'asc' } }, 1.1)],
		),
		...inSubWorkflow(
			'rmsEspoSubSrf001',
			'rmsEspoRunSrf001',
			'bench espocrm: Return All by firstName, this node 1.1, 4 fields',
			[node({ listOptions: { select: SELECT, orderBy: 'firstName', order: 'asc' } }, 1.1)],
		),
		...inSubWorkflow(
			'rmsEspoSubLst001',
			'rmsEspoRunLst001',
			"bench espocrm: Return All in the list's order, this node 1.1, 4 fields",
			[node({ listOptions: { select: SELECT } }, 1.1)],
		),
		...inSubWorkflow(
			'rmsEspoSubSrj001',
			'rmsEspoRunSrj001',
			'bench espocrm: Return All by lastName, this node 1.1, 4 fields with joins',
			[node({ listOptions: { select: SELECT_JOINS, orderBy: 'lastName', order: 'asc' } }, 1.1)],
		),
		...inSubWorkflow(
			'rmsEspoSubLsj001',
			'rmsEspoRunLsj001',
			"bench espocrm: Return All in the list's order, this node 1.1, 4 fields with joins",
			[node({ listOptions: { select: SELECT_JOINS } }, 1.1)],
		),
		...inSubWorkflow(
			'rmsEspoSubHtp001',
			'rmsEspoRunHtp001',
			'bench espocrm: Return All, HTTP Request node, 4 fields',
			httpPages(apiBase, { apiKey, query: [{ name: 'select', value: SELECT.join(',') }] }),
		),
	];
}

const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;
const mb = (kb) => (kb ? `${(kb / 1024).toFixed(0)} MB` : '–');

async function main() {
	let opts;
	try {
		opts = parseArgs(process.argv.slice(2));
	} catch (e) {
		console.error(`npm run bench:espocrm: ${e.message}`);
		return 2;
	}
	const release = await releaseOrSkip('npm run bench:espocrm', { log: env.log });
	if (!release) return 0;
	if (!(await onNode24(__filename))) return undefined;
	const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rms-bench-espocrm-'));
	const procs = new Processes({ log: env.log });
	let espo;
	procs.handleSignals({ beforeExit: async () => espo && (await espo.stop()) });
	try {
		if (opts.build) {
			env.log('npm run build');
			await env.runNpm(['run', 'build']);
		}
		espo = await startEspo({ instance: 'test', fresh: true, log: env.log, release });
		const apiKey = espo.keys.apiKey.apiKey;
		const apiBase = espo.apiBase;

		// Contacts by SQL (MariaDB's sequence engine): IDs of 17 characters as EspoCRM's, a name, a description.
		let t = Date.now();
		const sql = `USE espocrm; INSERT INTO contact (id, deleted, first_name, last_name, description, created_at, modified_at, do_not_call)
			SELECT CONCAT('b', LPAD(HEX(seq), 16, '0')), 0, CONCAT('First', seq), CONCAT('Last', seq), CONCAT('Bench contact number ', seq),
				DATE_SUB('2026-11-01 00:00:00', INTERVAL seq SECOND), DATE_SUB('2026-11-01 00:00:00', INTERVAL seq SECOND), 0
			FROM seq_1_to_${opts.records};`;
		await espo.query(sql);
		if (opts.linked) {
			// --linked: every Contact with a primary e-mail address and one of 1,000 Accounts, as in a CRM in use. With
			// the joined tables empty (the default), MariaDB joins every row that passes the where before it sorts (a
			// block nested loop into a temporary table); with them filled, it sorts the Contacts first and joins a page.
			await espo.query(`USE espocrm;
				INSERT INTO email_address (id, name, deleted, lower, invalid, opt_out)
					SELECT CONCAT('e', LPAD(HEX(seq), 16, '0')), CONCAT('contact', seq, '@bench.example.com'), 0, CONCAT('contact', seq, '@bench.example.com'), 0, 0 FROM seq_1_to_${opts.records};
				INSERT INTO entity_email_address (entity_id, email_address_id, entity_type, \`primary\`, deleted)
					SELECT CONCAT('b', LPAD(HEX(seq), 16, '0')), CONCAT('e', LPAD(HEX(seq), 16, '0')), 'Contact', 1, 0 FROM seq_1_to_${opts.records};
				INSERT INTO account (id, deleted, name, created_at, modified_at)
					SELECT CONCAT('a', LPAD(HEX(seq), 16, '0')), 0, CONCAT('Account ', seq), DATE_SUB('2026-11-01 00:00:00', INTERVAL seq MINUTE), DATE_SUB('2026-11-01 00:00:00', INTERVAL seq MINUTE) FROM seq_1_to_1000;
				UPDATE contact SET account_id = CONCAT('a', LPAD(HEX(1 + CONV(SUBSTRING(id, 2), 16, 10) % 1000), 16, '0')) WHERE id LIKE 'b%';
				ANALYZE TABLE contact, email_address, entity_email_address, account;`);
		}
		let total = (await get(apiBase, apiKey, '/Contact', { maxSize: 1, select: 'id' })).total;
		env.log(
			`${opts.records.toLocaleString('en')} Contacts seeded by SQL${opts.linked ? ', each with an e-mail address and an account,' : ''} in ${Date.now() - t} ms; EspoCRM counts ${total}`,
		);

		const wfs = workflows()({ apiBase, apiKey });
		const credentials = [
			{
				...CREDENTIAL,
				type: 'recordManagementServiceApi',
				data: { baseUrl: espo.origin, server: 'espocrm', authentication: 'apiKey', apiKey },
			},
		];
		const n8n = await setupN8n({ procs, workDir, credentials, workflows: wfs });

		const contacts = async () =>
			Number((await espo.query('SELECT COUNT(*) AS n FROM contact WHERE deleted = 0'))[0].n);
		const cases = [
			// the creates first (they add 1,000 Contacts each: Return All then reads more than N, and says how many)
			{
				key: 'rawCreate',
				creates: true,
				label: `raw client, ${CREATES.toLocaleString('en')} creates, ${PARALLEL} in flight`,
				raw: () => {
					global.gc();
					return raw.creates(apiBase, { items: CREATE_ITEMS, concurrency: PARALLEL, apiKey });
				},
			},
			{
				key: 'nodeCreate',
				creates: true,
				label: `this node, ${CREATES.toLocaleString('en')} creates, Max Parallel Requests ${PARALLEL}`,
				workflow: 'rmsEspoCreate001',
				measured: 'Create',
			},
			{
				key: 'httpCreate',
				creates: true,
				label: `HTTP Request node, ${CREATES.toLocaleString('en')} creates (defaults: all at once)`,
				workflow: 'rmsEspoCreate002',
				measured: 'Create',
			},
			// the shorter cases with 4 fields first, all fields after
			{
				key: 'rawSel',
				label: `raw client, offset + total on every page, select ${SELECT.length} fields`,
				raw: () => rawOffset(apiBase, apiKey, SELECT),
			},
			{
				key: 'nodeSel',
				label: `this node, Return All, Fields to Return (${SELECT.length})`,
				workflow: 'rmsEspoRunSel001',
			},
			{
				key: 'http',
				label: `HTTP Request node, pagination + Split Out, select ${SELECT.length} fields`,
				workflow: 'rmsEspoRunHtp001',
			},
			{
				key: 'rawAll',
				label: 'raw client, offset + total on every page, all fields',
				raw: () => rawOffset(apiBase, apiKey),
			},
			{ key: 'nodeAll', label: 'this node, Return All', workflow: 'rmsEspoRunAll001' },
			{
				key: 'rawSort',
				label: `raw client, sorted by lastName, offset + total on every page, select ${SELECT.length} fields`,
				raw: () => rawOffset(apiBase, apiKey, SELECT, { orderBy: 'lastName', order: 'asc' }),
			},
			{
				key: 'nodeSort',
				label: `this node 1.1, Return All sorted by lastName, Fields to Return (${SELECT.length})`,
				workflow: 'rmsEspoRunSrt001',
			},
			{
				key: 'rawSortFirst',
				label: `raw client, sorted by firstName, offset + total on every page, select ${SELECT.length} fields`,
				raw: () => rawOffset(apiBase, apiKey, SELECT, { orderBy: 'firstName', order: 'asc' }),
			},
			{
				key: 'nodeSortFirst',
				label: `this node 1.1, Return All sorted by firstName, Fields to Return (${SELECT.length})`,
				workflow: 'rmsEspoRunSrf001',
			},
			{
				key: 'nodeListOrder',
				label: `this node 1.1, Return All in the list's order (createdAt desc), Fields to Return (${SELECT.length})`,
				workflow: 'rmsEspoRunLst001',
			},
			{
				key: 'rawJoins',
				label: `raw client, offset + total on every page, select ${SELECT_JOINS.join(', ')}`,
				raw: () => rawOffset(apiBase, apiKey, SELECT_JOINS),
			},
			{
				key: 'nodeListOrderJoins',
				label: `this node 1.1, Return All in the list's order (createdAt desc), Fields to Return ${SELECT_JOINS.join(', ')}`,
				workflow: 'rmsEspoRunLsj001',
			},
			{
				key: 'rawSortJoins',
				label: `raw client, sorted by lastName, offset + total on every page, select ${SELECT_JOINS.join(', ')}`,
				raw: () => rawOffset(apiBase, apiKey, SELECT_JOINS, { orderBy: 'lastName', order: 'asc' }),
			},
			{
				key: 'nodeSortJoins',
				label: `this node 1.1, Return All sorted by lastName, Fields to Return ${SELECT_JOINS.join(', ')}`,
				workflow: 'rmsEspoRunSrj001',
			},
		];
		const chosen = cases.filter((c) => !opts.cases || opts.cases.includes(c.key));
		// runs[k][case key]: one measurement
		const runs = [];
		for (let run = 1; run <= opts.runs; run++) {
			const results = {};
			for (const c of chosen) {
				const from = fs.statSync(espo.logs.php).size;
				const r = { label: c.label };
				try {
					const before = c.creates ? await contacts() : 0;
					// what Return All must read: EspoCRM's count before the case (the creates add to it)
					if (!c.creates) r.expected = total;
					if (c.raw) Object.assign(r, await c.raw());
					else if (c.creates) {
						const m = measure(await n8n.execute(c.workflow, { timeoutMs: 60 * 60 * 1000 }), [
							c.measured,
						]);
						Object.assign(r, { ms: m.ms, out: m.outputs[c.measured].length, peakKb: m.peakNodeKb });
					} else {
						const m = measure(await n8n.execute(c.workflow, { timeoutMs: 60 * 60 * 1000 }), [
							'Run',
						]);
						const [summary] = m.outputs.Run;
						Object.assign(r, {
							ms: m.ms,
							records: summary.count_id,
							unique: summary.unique_count_id,
							peakKb: m.peakNodeKb,
							samples: m.samples,
						});
					}
					// the Contacts the case created, and how many Return All finds from now on
					if (c.creates) {
						total = await contacts();
						r.created = total - before;
					}
				} catch (e) {
					r.error = String((e && e.message) || e).split('\n')[0];
				}
				const requests = requestsSince(espo.logs.php, from);
				r.requests = requests.length;
				r.serverMs = requests.reduce((sum, q) => sum + q.ms, 0);
				r.non200 = requests.filter((q) => q.status !== 200).length;
				results[c.key] = r;
				const what = c.creates
					? `${r.created} Contacts created`
					: `${r.records} records (${r.unique} distinct)`;
				env.log(
					`run ${run}/${opts.runs}: ${c.label}: ${r.error ? `FAILED: ${r.error}` : `${secs(r.ms)}, ${r.requests} requests, ${what}${r.peakKb ? `, peak ${mb(r.peakKb)}` : ''}`}`,
				);
			}
			runs.push(results);
		}

		/** The median of a figure over the runs, with min–max when there are several (as `npm run bench` prints them). */
		const spread = (values, format) =>
			fmt(stat(values.filter((v) => typeof v === 'number')), format);
		const refOf = {
			rawAll: 'rawAll',
			nodeAll: 'rawAll',
			rawSel: 'rawSel',
			nodeSel: 'rawSel',
			http: 'rawSel',
			rawCreate: 'rawCreate',
			nodeCreate: 'rawCreate',
			httpCreate: 'rawCreate',
			rawSort: 'rawSort',
			nodeSort: 'rawSort',
			rawSortFirst: 'rawSortFirst',
			nodeSortFirst: 'rawSortFirst',
			nodeListOrder: 'rawSel',
			rawJoins: 'rawJoins',
			nodeListOrderJoins: 'rawJoins',
			rawSortJoins: 'rawSortJoins',
			nodeSortJoins: 'rawSortJoins',
		};
		const ratiosOf = (a, b) =>
			runs
				.filter((results) => results[a]?.ms && results[b]?.ms)
				.map((results) => results[a].ms / results[b].ms);
		const lines = [
			'',
			`EspoCRM ${espo.version} with ${opts.records.toLocaleString('en')} Contacts seeded${opts.linked ? ', each with an e-mail address and an account' : ''} (PHP's server with PHP_CLI_SERVER_WORKERS=${process.env.ESPOCRM_PHP_WORKERS || '4'}; Return All sends one request at a time but in version 1.1's list order (segments side by side, up to 5 at once), the creates ${PARALLEL} or, the HTTP Request node, all at once; the n8n Return All cases start after n8n has idled ${SETTLE_SECONDS} s), ${opts.runs} run(s), load ${os
				.loadavg()
				.map((l) => l.toFixed(2))
				.join(' ')}`,
			'',
			'| case | time | ratio to raw | requests | server time | records (distinct) | peak memory |',
			'| --- | --- | --- | --- | --- | --- | --- |',
		];
		for (const c of chosen) {
			const all = runs.map((results) => results[c.key]);
			const failed = all.some((r) => r.error);
			const ratio =
				c.key === refOf[c.key]
					? '–'
					: spread(ratiosOf(c.key, refOf[c.key]), (x) => `${x.toFixed(2)}x`);
			const counts = [
				...new Set(
					all.map((r) =>
						c.creates ? `${r.created ?? '–'} created` : `${r.records ?? '–'} (${r.unique ?? '–'})`,
					),
				),
			].join(', ');
			lines.push(
				`| ${c.label} | ${
					failed
						? 'FAILED'
						: spread(
								all.map((r) => r.ms),
								secs,
							)
				} | ${ratio} | ${[...new Set(all.map((r) => r.requests))].join(', ')} | ${spread(
					all.map((r) => r.serverMs),
					secs,
				)} | ${counts} | ${spread(
					all.map((r) => r.peakKb),
					mb,
				)} |`,
			);
		}
		const has = (...keys) =>
			keys.every((k) => runs.every((results) => results[k] && !results[k].error));
		const once = (k) =>
			runs.every(
				(results) =>
					results[k].records === results[k].expected &&
					results[k].unique === results[k].expected &&
					results[k].non200 === 0,
			);
		const createdAll = (k) =>
			runs.every(
				(results) =>
					results[k].created === CREATES &&
					results[k].requests === CREATES &&
					results[k].non200 === 0 &&
					results[k].out === CREATES,
			);
		lines.push('');
		if (has('nodeCreate', 'rawCreate')) {
			const ratio = median(ratiosOf('nodeCreate', 'rawCreate'));
			lines.push(
				`Goal: creates, this node ≤ 1.5x raw: ${createdAll('nodeCreate') && ratio <= 1.5 ? 'met' : 'NOT MET'} (${ratio.toFixed(2)}x)`,
			);
		}
		if (has('nodeCreate', 'httpCreate')) {
			const ratio = median(ratiosOf('nodeCreate', 'httpCreate'));
			lines.push(
				`Goal: creates, this node ahead of the HTTP Request node: ${createdAll('nodeCreate') && ratio < 1 ? 'met' : 'NOT MET'} (${ratio.toFixed(2)}x)`,
			);
		}
		for (const [key, max, what] of [
			['nodeSel', 0.3, 'with Fields to Return'],
			['nodeAll', 0.6, 'without'],
			['nodeSort', 0.3, 'sorted by lastName, with Fields to Return (version 1.1)'],
			['nodeSortFirst', 0.3, 'sorted by firstName, with Fields to Return (version 1.1)'],
			[
				'nodeListOrderJoins',
				0.3,
				`in the list's order, with Fields to Return ${SELECT_JOINS.join(', ')} (version 1.1)`,
			],
			[
				'nodeSortJoins',
				0.3,
				`sorted by lastName, with Fields to Return ${SELECT_JOINS.join(', ')} (version 1.1)`,
			],
		]) {
			if (!has(key, refOf[key])) continue;
			const ratio = median(ratiosOf(key, refOf[key]));
			lines.push(
				`Goal: ${what} ≤ ${max}x raw: ${once(key) && ratio <= max ? 'met' : 'NOT MET'} (${ratio.toFixed(2)}x)`,
			);
		}
		const nodes = ['nodeAll', 'nodeSel'].filter((k) => has(k));
		if (nodes.length)
			lines.push(
				`Goal: every record once: ${nodes.every(once) ? 'met' : 'NOT MET'} (${nodes.join(', ')}; ${runs[0][nodes[0]].expected} in EspoCRM in the first run)`,
			);
		if (has('nodeSel', 'http')) {
			const [ours, theirs] = ['nodeSel', 'http'].map((k) =>
				median(runs.map((results) => results[k].peakKb)),
			);
			const lower = runs.filter((results) => results.nodeSel.peakKb <= results.http.peakKb).length;
			lines.push(
				`Goal: peak memory ≤ the HTTP Request node's (same fields, medians): ${ours <= theirs ? 'met' : 'NOT MET'} (${mb(ours)} vs ${mb(theirs)}; lower or equal in ${lower} of ${runs.length} runs)`,
			);
		}
		console.log(lines.join('\n'));
		if (opts.json) fs.writeFileSync(opts.json, JSON.stringify({ opts, total, runs }, null, 2));
		return runs.some((results) => Object.values(results).some((r) => r.error)) ? 1 : 0;
	} finally {
		await procs.stopAll();
		if (espo) await espo.stop();
		if (!opts.keep) fs.rmSync(workDir, { recursive: true, force: true });
		else env.log(`scratch folder kept: ${workDir}`);
	}
}

main().then(
	(code) => code !== undefined && process.exit(code),
	(e) => {
		console.error(`bench:espocrm failed: ${(e && e.stack) || e}`);
		process.exit(1);
	},
);
