'use strict';
/*
 * The raw client: the same requests as the node, sent with Node's plain `http`, measured in the bench process.
 *
 * Keep-alive: n8n 2.41.1 builds a new http.Agent for every request (@n8n/backend-network, buildNodeAgents() from
 * setAxiosAgents()), without keepAlive, so every request of n8n opens a connection of its own and closes it
 * (`Connection: close`). The comparable raw client does the same (a fresh Agent per request, keep-alive off); the
 * keep-alive variant (one Agent whose sockets are reused) is measured too, to show what connection reuse would be
 * worth. Responses are read in full and parsed as JSON, as n8n does.
 */

const http = require('http');
const path = require('path');
const { performance } = require('perf_hooks');
const env = require('../n8n-env');

const API_KEY = 'sandbox-api-key';
const PAGE_SIZE = 200;

function client(baseUrl, { keepAlive, apiKey = API_KEY }) {
	const shared = keepAlive ? new http.Agent({ keepAlive: true }) : null;
	const url = new URL(baseUrl);
	const send = (method, path, { query, body, headers = {} } = {}) =>
		new Promise((resolve, reject) => {
			const payload = body === undefined ? undefined : JSON.stringify(body);
			const qs = query ? `?${new URLSearchParams(query)}` : '';
			const req = http.request(
				{
					host: url.hostname,
					port: url.port,
					method,
					path: `${url.pathname}${path}${qs}`,
					agent: shared || new http.Agent(),
					headers: {
						Accept: 'application/json',
						'X-Api-Key': apiKey,
						...(payload !== undefined
							? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) }
							: {}),
						...headers,
					},
				},
				(res) => {
					const chunks = [];
					res.on('data', (c) => chunks.push(c));
					res.on('end', () => {
						const text = Buffer.concat(chunks).toString('utf8');
						if (res.statusCode < 200 || res.statusCode >= 300) {
							reject(
								new Error(
									`${method} ${path}: ${res.statusCode} ${res.headers['x-status-reason'] || text.slice(0, 200)}`,
								),
							);
							return;
						}
						try {
							resolve(text === '' ? undefined : JSON.parse(text));
						} catch (e) {
							reject(e);
						}
					});
					res.on('error', reject);
				},
			);
			req.on('error', reject);
			req.end(payload);
		});
	return { send, close: () => shared && shared.destroy() };
}

/** Runs task(0 … count-1), at most `limit` at once, started in order (the node's own scheme). */
async function pool(count, limit, task) {
	let next = 0;
	const worker = async () => {
		while (next < count) await task(next++);
	};
	await Promise.all(Array.from({ length: Math.min(count, limit) }, worker));
}

/** Times `work(send)`; resolves { ms, ...what work returns }. `apiKey`: another server's than the sandbox's. */
async function timed(baseUrl, keepAlive, work, apiKey = undefined) {
	const c = client(baseUrl, { keepAlive, apiKey });
	try {
		const t0 = performance.now();
		const out = (await work(c.send)) || {};
		return { ms: performance.now() - t0, ...out };
	} finally {
		c.close();
	}
}

/** 1 request per item: POST /Contact, the body from the item's fields. */
const creates = (baseUrl, { items, concurrency, keepAlive, apiKey }) =>
	timed(
		baseUrl,
		keepAlive,
		async (send) => {
			await pool(items.length, concurrency, (i) =>
				send('POST', '/Contact', {
					body: {
						firstName: items[i].first,
						lastName: items[i].last,
						emailAddress: items[i].email,
					},
					headers: { 'X-Skip-Duplicate-Check': 'true' },
				}),
			);
		},
		apiKey,
	);

/**
 * The creates through n8n's own request function alone, without a node: `httpRequest` of @n8n/backend-network, where
 * every node's helpers.httpRequest(WithAuthentication) ends (n8n 2.41.1: axios with a new http.Agent per request),
 * from the n8n the bench runs, with the node's options: JSON, the answer as a stream (which the node reads up to a
 * bound), read in full and parsed. What any node pays per request before its own work; measured in the bench process
 * as the raw client is.
 */
const createsThroughN8n = (baseUrl, { items, concurrency, apiKey = API_KEY }) => {
	const { httpRequest } = require(
		path.join(
			env.paths().n8nDir,
			'node_modules',
			'@n8n',
			'backend-network',
			'dist',
			'http',
			'axios',
			'request.js',
		),
	);
	const send = async (body) => {
		const response = await httpRequest({
			method: 'POST',
			url: `${baseUrl}/Contact`,
			body,
			json: true,
			arrayFormat: 'indices',
			headers: {
				Accept: 'application/json',
				'Content-Type': 'application/json',
				'X-Api-Key': apiKey,
				'X-Skip-Duplicate-Check': 'true',
			},
			timeout: 30000,
			returnFullResponse: true,
			encoding: 'stream',
		});
		const chunks = [];
		for await (const chunk of response.body) chunks.push(chunk);
		return JSON.parse(Buffer.concat(chunks).toString('utf8'));
	};
	return (async () => {
		const t0 = performance.now();
		await pool(items.length, concurrency, (i) =>
			send({ firstName: items[i].first, lastName: items[i].last, emailAddress: items[i].email }),
		);
		return { ms: performance.now() - t0 };
	})();
};

/** Mass Update / Mass Delete in chunks of IDs, `concurrency` chunks at once. */
const mass = (baseUrl, { action, ids, chunkSize, concurrency, keepAlive }) =>
	timed(baseUrl, keepAlive, async (send) => {
		const chunks = [];
		for (let i = 0; i < ids.length; i += chunkSize) chunks.push(ids.slice(i, i + chunkSize));
		await pool(chunks.length, concurrency, (i) =>
			action === 'massUpdate'
				? send('PUT', '/Contact/action/massUpdate', {
						body: { ids: chunks[i], attributes: { description: 'bench' } },
					})
				: send('POST', '/Contact/action/massDelete', { body: { ids: chunks[i] } }),
		);
	});

/**
 * Every record of Contact. `parallel` 1: one page after another until an empty page (the reference of the Return All
 * goal). `parallel` > 1: the node's scheme (first page, second page, the pages the first page's total predicts at
 * `parallel` at once, then on until an empty page).
 */
const listAll = (baseUrl, { parallel, keepAlive }) =>
	timed(baseUrl, keepAlive, async (send) => {
		const ids = new Set();
		let records = 0;
		const page = async (offset) => {
			const reply = await send('GET', '/Contact', { query: { offset, maxSize: PAGE_SIZE } });
			records += reply.list.length;
			for (const r of reply.list) ids.add(r.id);
			return reply;
		};
		let offset = 0;
		if (parallel > 1) {
			const first = await page(0);
			const second = await page(PAGE_SIZE);
			offset = 2 * PAGE_SIZE;
			if (second.list.length === PAGE_SIZE) {
				const offsets = [];
				for (let o = offset; o < first.total; o += PAGE_SIZE) offsets.push(o);
				await pool(offsets.length, parallel, (i) => page(offsets[i]));
				offset += offsets.length * PAGE_SIZE;
			} else offset = Infinity;
		}
		while (offset !== Infinity) {
			const reply = await page(offset);
			offset = reply.list.length ? offset + PAGE_SIZE : Infinity;
		}
		return { records, unique: ids.size };
	});

/** The query of a look-up by e-mail address, as the node sends it: `in` with a list of values, or `equals`. */
function lookupQuery(emails) {
	const query = {
		'where[0][type]': Array.isArray(emails) ? 'in' : 'equals',
		'where[0][attribute]': 'emailAddress',
	};
	if (Array.isArray(emails)) emails.forEach((email, i) => (query[`where[0][value][${i}]`] = email));
	else query['where[0][value]'] = emails;
	return { ...query, select: 'id,emailAddress', offset: 0, maxSize: PAGE_SIZE };
}

/** Create or Update of one item whose record is `id` (or none): PUT the fields, or POST them with the address. */
const writeUpsert = (send, item, id) =>
	id
		? send('PUT', `/Contact/${id}`, { body: { firstName: item.first, lastName: item.last } })
		: send('POST', '/Contact', {
				body: { emailAddress: item.email, firstName: item.first, lastName: item.last },
			});

/**
 * Create or Update by e-mail address, the chunked scheme: the addresses looked up `chunkSize` at a time (`in`),
 * `concurrency` look-ups at once, the answers matched back by lower-case address; then every item written,
 * `concurrency` at once. The items' addresses are all different (as in the bench's input).
 */
const upsertsChunked = (baseUrl, { items, chunkSize, concurrency, keepAlive }) =>
	timed(baseUrl, keepAlive, async (send) => {
		const chunks = [];
		for (let i = 0; i < items.length; i += chunkSize)
			chunks.push(items.slice(i, i + chunkSize).map((item) => item.email));
		const found = new Map();
		await pool(chunks.length, concurrency, async (i) => {
			const reply = await send('GET', '/Contact', { query: lookupQuery(chunks[i]) });
			for (const r of reply.list) found.set(String(r.emailAddress).toLowerCase(), r.id);
		});
		await pool(items.length, concurrency, (i) =>
			writeUpsert(send, items[i], found.get(items[i].email.toLowerCase())),
		);
	});

/** Create or Update by e-mail address, one item after another as the node did before: look up, then write. */
const upsertsPerItem = (baseUrl, { items, concurrency, keepAlive }) =>
	timed(baseUrl, keepAlive, async (send) => {
		await pool(items.length, concurrency, async (i) => {
			const reply = await send('GET', '/Contact', { query: lookupQuery(items[i].email) });
			await writeUpsert(send, items[i], reply.list[0] && reply.list[0].id);
		});
	});

module.exports = {
	creates,
	createsThroughN8n,
	mass,
	listAll,
	upsertsChunked,
	upsertsPerItem,
	pool,
};
