'use strict';
/*
 * The jobs of `npm run bench`, their cases (system × server latency) and their goals.
 *
 * A case is one measured thing: `n8n` (a workflow run by `n8n execute`, timed by its node(s)' own executionTime) or
 * `raw` (the raw client, timed in the bench process). `ref` names the raw case it is compared with in the same run.
 * `prepare` puts the server in the same state before every case (not timed); `check` says what is wrong with a
 * result (wrong request count, records missing …): a case that fails its check counts as a failed goal.
 */

const raw = require('./raw');
const { benchId, contact } = require('./sandbox-server');

const CREATES = 1000;
const MASS_IDS = 10000;
const LIST_RECORDS = 20000;
const MEMORY_RECORDS = 100000;
const PARALLEL = 5; // the node's default Max Parallel Requests
const UPSERTS = 10000;
const UPSERT_CHUNK = 100; // the node's default Match Values per Look-Up

const items = Array.from({ length: CREATES }, (_, i) => {
	const c = contact(i);
	return { first: c.firstName, last: c.lastName, email: c.emailAddress };
});
const ids = Array.from({ length: MASS_IDS }, (_, i) => benchId(i));
const upsertItems = Array.from({ length: UPSERTS }, (_, i) => {
	const c = contact(i);
	return { first: c.firstName, last: c.lastName, email: c.emailAddress };
});
// half of the items' addresses are on the server before each case: every other one
const storedIndexes = Array.from({ length: UPSERTS / 2 }, (_, k) => 2 * k);
let keyServerVerified = false;

// ---------------------------------------------------------------------------------------------------------
// checks: each returns a list of problems ([] = fine)

const expectRequests = (n) => (r) =>
	r.requests === n ? [] : [`${r.requests} requests, expected ${n}`];
const all2xx = (r) =>
	Object.keys(r.byStatus).every((s) => s >= 200 && s < 300)
		? []
		: [`statuses ${JSON.stringify(r.byStatus)}`];

/** Every record once in the output (n8n) or read (raw). */
const eachRecordOnce =
	(n) =>
	({ output }) =>
		output && output.records === n && output.unique === n
			? []
			: [
					`${output ? output.records : 'no'} records out, ${output ? output.unique : 0} different, expected ${n}`,
				];

const checks =
	(...fns) =>
	async (r, sb) => {
		const problems = [];
		for (const f of fns) problems.push(...(await f(r, sb)));
		return problems;
	};

// ---------------------------------------------------------------------------------------------------------

const JOBS = [
	{
		name: 'create',
		title: `${CREATES.toLocaleString('en')} creates (Contact, 3 fields from expressions)`,
		prepare: (sb, c) => sb.call('reset', { latencyMs: c.latency }),
		check: checks(expectRequests(CREATES), all2xx, async (r, sb) => {
			const n = await sb.call('count', { entityType: 'Contact' });
			return n === CREATES ? [] : [`${n} Contacts in the store, expected ${CREATES}`];
		}),
		cases: [
			{
				key: 'node20',
				system: 'n8n',
				label: 'this node',
				workflow: 'rmsBenchCreate01',
				latency: 20,
				ref: 'raw20',
			},
			{
				key: 'raw20',
				system: 'raw',
				label: `raw, ${PARALLEL} in flight`,
				latency: 20,
				raw: (u) => raw.creates(u, { items, concurrency: PARALLEL }),
			},
			{
				key: 'rawKa20',
				system: 'raw',
				label: `raw, ${PARALLEL} in flight, keep-alive`,
				latency: 20,
				ref: 'raw20',
				raw: (u) => raw.creates(u, { items, concurrency: PARALLEL, keepAlive: true }),
			},
			// issue 48: n8n's own request function without any node, beside its reference: the floor of any n8n node's ratio
			{
				key: 'n8nRequest20',
				system: 'raw',
				label: `n8n's request function alone (no node), ${PARALLEL} in flight`,
				latency: 20,
				ref: 'raw20',
				raw: (u) => raw.createsThroughN8n(u, { items, concurrency: PARALLEL }),
			},
			// the same fields written `{{ ($json.first) }}`: what every expression other than a dropped field costs
			{
				key: 'nodeEngine20',
				system: 'n8n',
				label: 'this node, fields through the engine',
				workflow: 'rmsBenchCreate06',
				latency: 20,
				ref: 'raw20',
			},
			{
				key: 'node0',
				system: 'n8n',
				label: 'this node',
				workflow: 'rmsBenchCreate01',
				latency: 0,
				ref: 'raw0',
			},
			{
				key: 'http0',
				system: 'n8n',
				label: 'HTTP Request node',
				workflow: 'rmsBenchCreate02',
				latency: 0,
				ref: 'raw0',
			},
			{
				key: 'nodeEngine0',
				system: 'n8n',
				label: 'this node, fields through the engine',
				workflow: 'rmsBenchCreate06',
				latency: 0,
				ref: 'raw0',
			},
			{
				key: 'raw0',
				system: 'raw',
				label: `raw, ${PARALLEL} in flight`,
				latency: 0,
				raw: (u) => raw.creates(u, { items, concurrency: PARALLEL }),
			},
			{
				key: 'n8nRequest0',
				system: 'raw',
				label: `n8n's request function alone (no node), ${PARALLEL} in flight`,
				latency: 0,
				ref: 'raw0',
				raw: (u) => raw.createsThroughN8n(u, { items, concurrency: PARALLEL }),
			},
		],
		goals: [
			{
				text: `creates at 20 ms, ${PARALLEL} in flight: this node ≤ 1.1x raw (issue 48; 1.5x before)`,
				ratio: ['node20', 'raw20'],
				max: 1.1,
			},
			{
				text: 'creates at 0 ms: this node ≤ 1.5x raw (issue 48)',
				ratio: ['node0', 'raw0'],
				max: 1.5,
			},
			// not a goal of the node: what its goals need of n8n (a node cannot do better than the function it sends with)
			{
				text: `creates at 20 ms: n8n's request function alone ≤ 1.1x raw (the floor under the node's 20 ms goal)`,
				ratio: ['n8nRequest20', 'raw20'],
				max: 1.1,
			},
			{
				text: "creates at 0 ms: n8n's request function alone ≤ 1.5x raw (the floor under the node's 0 ms goal)",
				ratio: ['n8nRequest0', 'raw0'],
				max: 1.5,
			},
			{
				text: 'creates at 0 ms: this node ahead of the HTTP Request node',
				ratio: ['node0', 'http0'],
				below: 1,
			},
		],
	},

	...['massUpdate', 'massDelete'].map((action, i) => ({
		name: action,
		title: `${action === 'massUpdate' ? 'Mass Update' : 'Mass Delete'} of ${MASS_IDS.toLocaleString('en')} input items (100 IDs per request)`,
		prepare: async (sb, c) => {
			await sb.call('reset', { latencyMs: c.latency });
			await sb.call('seed', { entityType: 'Contact', count: MASS_IDS });
		},
		check: checks(expectRequests(MASS_IDS / 100), all2xx, async (r, sb) => {
			const n =
				action === 'massUpdate'
					? await sb.call('countWith', {
							entityType: 'Contact',
							field: 'description',
							value: 'bench',
						})
					: MASS_IDS - (await sb.call('count', { entityType: 'Contact' }));
			return n === MASS_IDS
				? []
				: [`${n} records ${action === 'massUpdate' ? 'updated' : 'deleted'}, expected ${MASS_IDS}`];
		}),
		// the goal names no latency: judged at 20 ms (the server of the other goals) and at 0 ms, where the requests
		// cost the server almost nothing and what is left is n8n's and the node's own time
		cases: [20, 0].flatMap((latency) => [
			{
				key: `node${latency}`,
				system: 'n8n',
				label: 'this node',
				workflow: `rmsBenchMass000${i + 1}`,
				latency,
				ref: `raw${latency}`,
			},
			{
				key: `raw${latency}`,
				system: 'raw',
				label: `raw, ${PARALLEL} in flight`,
				latency,
				raw: (u) => raw.mass(u, { action, ids, chunkSize: 100, concurrency: PARALLEL }),
			},
			{
				key: `rawKa${latency}`,
				system: 'raw',
				label: `raw, ${PARALLEL} in flight, keep-alive`,
				latency,
				ref: `raw${latency}`,
				raw: (u) =>
					raw.mass(u, { action, ids, chunkSize: 100, concurrency: PARALLEL, keepAlive: true }),
			},
		]),
		goals: [20, 0].map((latency) => ({
			text: `${action} of ${MASS_IDS.toLocaleString('en')} items at ${latency} ms: this node ≤ 3x raw`,
			ratio: [`node${latency}`, `raw${latency}`],
			max: 3,
		})),
	})),

	{
		name: 'upsert',
		title: `Create or Update of ${UPSERTS.toLocaleString('en')} items by e-mail address, ${(UPSERTS / 2).toLocaleString('en')} of them on the server (key server)`,
		prepare: async (sb, c) => {
			await sb.call('reset', { latencyMs: c.latency });
			await sb.call('fillKeyServer', { indexes: storedIndexes, verify: !keyServerVerified });
			keyServerVerified = true;
		},
		check: checks(all2xx, async (r, sb) => {
			const n = await sb.call('keyServerCounts');
			return n.count === UPSERTS && n.emails === UPSERTS && n.stored === 0
				? []
				: [
						`${n.count} Contacts (${n.emails} addresses, ${n.stored} not updated) on the key server, expected ${UPSERTS}, each once and updated`,
					];
		}),
		cases: [
			{
				key: 'node20',
				server: 'keys',
				system: 'n8n',
				label: 'this node',
				workflow: 'rmsBenchUpsert01',
				latency: 20,
				ref: 'rawChunk20',
				check: expectRequests(UPSERTS + UPSERTS / UPSERT_CHUNK),
			},
			{
				key: 'rawChunk20',
				server: 'keys',
				system: 'raw',
				label: `raw, chunked look-ups (${UPSERT_CHUNK}), ${PARALLEL} in flight`,
				latency: 20,
				check: expectRequests(UPSERTS + UPSERTS / UPSERT_CHUNK),
				raw: (u) =>
					raw.upsertsChunked(u, {
						items: upsertItems,
						chunkSize: UPSERT_CHUNK,
						concurrency: PARALLEL,
					}),
			},
			{
				key: 'rawItem20',
				server: 'keys',
				system: 'raw',
				label: `raw, per item (look-up + write), ${PARALLEL} in flight`,
				latency: 20,
				ref: 'rawChunk20',
				check: expectRequests(2 * UPSERTS),
				raw: (u) => raw.upsertsPerItem(u, { items: upsertItems, concurrency: PARALLEL }),
			},
		],
		goals: [
			{
				text: `Create or Update of ${UPSERTS.toLocaleString('en')} at 20 ms: this node ≤ 1.3x the chunked raw client`,
				ratio: ['node20', 'rawChunk20'],
				max: 1.3,
			},
			{
				text: `Create or Update of ${UPSERTS.toLocaleString('en')} at 20 ms: this node at least 1.6x faster than the per-item raw client (ratio ≤ 0.625)`,
				ratio: ['node20', 'rawItem20'],
				max: 1 / 1.6,
			},
		],
	},

	{
		// Issue 31, point 6: the creates of the `create` job on a server the bench did not take from the sandbox
		// (second-server.py: Python's threading server, its own CPU on the same cores as n8n), with both references
		name: 'createSecondServer',
		title: `${CREATES.toLocaleString('en')} creates (Contact, 3 fields from expressions) on the second server (Python)`,
		prepare: async (sb, c) => {
			await sb.call('reset', { latencyMs: c.latency });
			// fails, saying why, where the second server could not start (no python3)
			await sb.call('secondServerCount');
		},
		check: checks(expectRequests(CREATES), all2xx, async (r, sb) => {
			const n = await sb.call('secondServerCount');
			return n === CREATES ? [] : [`${n} Contacts on the second server, expected ${CREATES}`];
		}),
		cases: [20, 0].flatMap((latency) => [
			{
				key: `node${latency}`,
				server: 'second',
				system: 'n8n',
				label: 'this node',
				workflow: 'rmsBenchCreate04',
				latency,
				ref: `raw${latency}`,
			},
			{
				key: `http${latency}`,
				server: 'second',
				system: 'n8n',
				label: 'HTTP Request node',
				workflow: 'rmsBenchCreate05',
				latency,
				ref: `raw${latency}`,
			},
			{
				key: `raw${latency}`,
				server: 'second',
				system: 'raw',
				label: `raw, ${PARALLEL} in flight`,
				latency,
				raw: (u) => raw.creates(u, { items, concurrency: PARALLEL }),
			},
			{
				key: `rawKa${latency}`,
				server: 'second',
				system: 'raw',
				label: `raw, ${PARALLEL} in flight, keep-alive`,
				latency,
				ref: `raw${latency}`,
				raw: (u) => raw.creates(u, { items, concurrency: PARALLEL, keepAlive: true }),
			},
		]),
		goals: [
			{
				text: `creates at 20 ms on the second server, ${PARALLEL} in flight: this node ≤ 1.5x raw`,
				ratio: ['node20', 'raw20'],
				max: 1.5,
			},
			{
				text: 'creates at 0 ms on the second server: this node ahead of the HTTP Request node',
				ratio: ['node0', 'http0'],
				below: 1,
			},
		],
	},

	{
		// Issue 31, point 6: the creates of the `create` job against a server that spends CPU on each request on the
		// same cores as n8n (the key server, one thread), without and with 3 ms per request
		name: 'createServerCpu',
		onlyWhenAsked: true,
		title: `${CREATES.toLocaleString('en')} creates against a server that spends CPU per request (key server)`,
		prepare: (sb, c) => sb.call('reset', { latencyMs: c.latency, cpuMs: c.cpuMs }),
		check: checks(expectRequests(CREATES), all2xx, async (r, sb) => {
			const n = await sb.call('keyServerCounts');
			return n.count === CREATES
				? []
				: [`${n.count} Contacts on the key server, expected ${CREATES}`];
		}),
		cases: [0, 3].flatMap((cpuMs) => [
			{
				key: `node${cpuMs}`,
				server: 'keys',
				cpuMs,
				system: 'n8n',
				label: `this node, server CPU ${cpuMs} ms per request`,
				workflow: 'rmsBenchCreate03',
				latency: 20,
				ref: `raw${cpuMs}`,
			},
			{
				key: `raw${cpuMs}`,
				server: 'keys',
				cpuMs,
				system: 'raw',
				label: `raw, ${PARALLEL} in flight, server CPU ${cpuMs} ms per request`,
				latency: 20,
				raw: (u) => raw.creates(u, { items, concurrency: PARALLEL }),
			},
		]),
		goals: [0, 3].map((cpuMs) => ({
			text: `creates at 20 ms, server CPU ${cpuMs} ms per request: this node ≤ 1.5x raw (the create job's goal, for comparison)`,
			ratio: [`node${cpuMs}`, `raw${cpuMs}`],
			max: 1.5,
		})),
	},

	{
		name: 'returnAll',
		title: `Return All, ${LIST_RECORDS.toLocaleString('en')} records`,
		setup: async (sb) => {
			await sb.call('reset', { latencyMs: 0 });
			await sb.call('seed', { entityType: 'Contact', count: LIST_RECORDS });
			await sb.call('fillListServer');
		},
		prepare: (sb, c) => sb.call('latency', { ms: c.latency }),
		check: checks(all2xx, eachRecordOnce(LIST_RECORDS)),
		// the same cases against the sandbox (which spends 50 ms or more of CPU on every page of this list, one
		// request at a time) and against the list server (a few ms): the goal is about the client's paging
		cases: [
			['', 'sandbox', 'N001', 'H001'],
			['L', 'list server', 'N002', 'H002'],
		].flatMap(([k, where, ours, http]) => [
			{
				key: `node${k}`,
				server: k ? 'list' : 'sandbox',
				system: 'n8n',
				label: `this node, ${where}`,
				workflow: `rmsBenchList${ours}`,
				latency: 20,
				ref: `rawSeq${k}`,
				check: expectRequests(LIST_RECORDS / 200 + 1),
			},
			{
				key: `rawSeq${k}`,
				server: k ? 'list' : 'sandbox',
				system: 'raw',
				label: `raw, one page after another, ${where}`,
				latency: 20,
				raw: (u) => raw.listAll(u, { parallel: 1 }),
			},
			{
				key: `rawPar${k}`,
				server: k ? 'list' : 'sandbox',
				system: 'raw',
				label: `raw, the node's scheme (${PARALLEL} in flight), ${where}`,
				latency: 20,
				ref: `rawSeq${k}`,
				raw: (u) => raw.listAll(u, { parallel: PARALLEL }),
			},
			{
				key: `http${k}`,
				server: k ? 'list' : 'sandbox',
				system: 'n8n',
				label: `HTTP Request node + Split Out, ${where}`,
				workflow: `rmsBenchList${http}`,
				latency: 20,
				ref: `rawSeq${k}`,
			},
		]),
		goals: ['', 'L'].map((k) => ({
			text: `Return All of ${LIST_RECORDS.toLocaleString('en')} at 20 ms from the ${k ? 'list server' : 'sandbox'}: this node ≤ 0.8x raw paging one page after another, ${LIST_RECORDS / 200 + 1} requests, each record once`,
			ratio: [`node${k}`, `rawSeq${k}`],
			max: 0.8,
		})),
	},

	{
		name: 'memory',
		title: `Return All, ${MEMORY_RECORDS.toLocaleString('en')} records (list server), in a sub-workflow: peak memory`,
		setup: async (sb) => {
			await sb.call('reset', { latencyMs: 0 });
			await sb.call('seed', { entityType: 'Contact', count: MEMORY_RECORDS });
			await sb.call('fillListServer');
		},
		prepare: (sb, c) => sb.call('latency', { ms: c.latency }),
		check: checks(all2xx, eachRecordOnce(MEMORY_RECORDS)),
		cases: [
			{
				key: 'empty',
				system: 'n8n',
				label: 'empty workflow (n8n itself)',
				workflow: 'rmsBenchEmpty001',
				latency: 0,
				noCheck: true,
			},
			// in a sub-workflow ending with a Summarize: see workflows.js
			{
				key: 'node',
				server: 'list',
				system: 'n8n',
				label: 'this node (sub-workflow)',
				workflow: 'rmsBenchMemN0001',
				latency: 0,
				ref: 'rawSeq',
				check: expectRequests(MEMORY_RECORDS / 200 + 1),
			},
			{
				key: 'http',
				server: 'list',
				system: 'n8n',
				label: 'HTTP Request node + Split Out (sub-workflow)',
				workflow: 'rmsBenchMemH0001',
				latency: 0,
				ref: 'rawSeq',
			},
			{
				key: 'rawSeq',
				server: 'list',
				system: 'raw',
				label: 'raw, one page after another',
				latency: 0,
				raw: (u) => raw.listAll(u, { parallel: 1 }),
			},
		],
		goals: [
			{
				text: `Return All of ${MEMORY_RECORDS.toLocaleString('en')}: this node's peak memory ≤ the HTTP Request node's`,
				memory: ['node', 'http'],
			},
		],
	},
];

module.exports = { JOBS, CREATES, MASS_IDS, UPSERTS };
