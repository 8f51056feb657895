'use strict';
/*
 * The servers of `npm run bench`, in a process of their own (forked by scripts/bench/sandbox.js).
 *
 * Why a process of its own: the server, the raw client (in the bench process) and n8n must not share a thread, or
 * each would slow the others down and the comparison would measure the sharing.
 *
 *   sandbox       test/sandbox, used through its exported API only (index.d.ts): seeded with store.create(),
 *                 latency from faults.latencyMs, requests from sandbox.requests.
 *   list server   for the Return All jobs: the sandbox filters and sorts the whole table for every list request,
 *                 one at a time (50–100 ms per page at 20,000 records, 0.6 s at 100,000: 5 minutes for one Return
 *                 All), so this server answers GET /api/v1/Contact?offset&maxSize with the same records in the same
 *                 order and the same JSON, built once from store.list(); `verifyListServer` compares pages with the
 *                 sandbox's own answers. See README.md, "The list server".
 *
 * Commands arrive over the IPC channel as {id, cmd, ...args}; each is answered with {id, result} or {id, error}.
 * Only summaries cross the channel: the recorded requests stay here.
 */

const http = require('http');
const { performance } = require('perf_hooks');
const { startSandbox, SANDBOX_CREDENTIALS } = require('../../test/sandbox');

/** Record IDs that both sides can compute (the workflows' Code nodes, the raw client) without listing them. */
const benchId = (i) => `b${i.toString(16).padStart(16, '0')}`;
const contact = (i) => ({ firstName: `First${i}`, lastName: `Last${i}`, emailAddress: `contact${i}@bench.example.com` });
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let sandbox;
const list = { server: null, origin: '', total: 0, records: [], latencyMs: 0, requests: [], inFlight: 0, maxInFlight: 0 };

/** The list server: pages of `list.records` (JSON text of each record), in the sandbox's default order. */
function startListServer() {
	list.server = http.createServer(async (req, res) => {
		const entry = { method: req.method, path: '', headers: req.headers, status: null, startedAt: now(), endedAt: null };
		list.requests.push(entry);
		list.maxInFlight = Math.max(list.maxInFlight, ++list.inFlight);
		const url = new URL(req.url, 'http://x');
		entry.path = url.pathname.replace(/^\/api\/v1/, '');
		req.resume();
		if (list.latencyMs > 0) await sleep(list.latencyMs);
		const offset = Number(url.searchParams.get('offset') || 0);
		const maxSize = Number(url.searchParams.get('maxSize') || 200);
		let status = 200;
		let body = '';
		if (req.headers['x-api-key'] !== SANDBOX_CREDENTIALS.apiKey) status = 401;
		else if (req.method !== 'GET' || entry.path !== '/Contact' || !(maxSize <= 200) || !(offset >= 0)) status = 400;
		else body = `{"total":${list.total},"list":[${list.records.slice(offset, offset + maxSize).join(',')}]}`;
		res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
		res.end(body);
		entry.status = status;
		entry.endedAt = now();
		list.inFlight--;
	});
	return new Promise((resolve) =>
		list.server.listen(0, '127.0.0.1', () => {
			list.origin = `http://127.0.0.1:${list.server.address().port}`;
			resolve();
		}),
	);
}

/** The sandbox's answer and the list server's for the same page must be equal. */
async function verifyListServer(offset) {
	const get = async (origin) =>
		(await fetch(`${origin}/api/v1/Contact?offset=${offset}&maxSize=200`, { headers: { 'X-Api-Key': SANDBOX_CREDENTIALS.apiKey } })).json();
	const [a, b] = [await get(sandbox.origin), await get(list.origin)];
	if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`the list server's page at offset ${offset} differs from the sandbox's`);
}

/** What the bench wants to know about the requests since the last `mark`, from whichever server got them. */
function stats() {
	const reqs = [...sandbox.requests, ...list.requests];
	const byStatus = {};
	const connection = {};
	for (const r of reqs) {
		byStatus[r.status] = (byStatus[r.status] || 0) + 1;
		const c = String(r.headers.connection || '(none)').toLowerCase();
		connection[c] = (connection[c] || 0) + 1;
	}
	return {
		count: reqs.length,
		servers: { sandbox: sandbox.requests.length, list: list.requests.length },
		byStatus,
		// the Connection header: n8n sends "close" (a new connection per request)
		connection,
		// time the server spent on them (arrival to answer, latency included): over the span, the mean in flight
		busyMs: reqs.reduce((sum, r) => sum + (r.endedAt === null ? 0 : r.endedAt - r.startedAt), 0),
		firstStartedAt: Math.min(...reqs.map((r) => r.startedAt)),
		lastEndedAt: Math.max(...reqs.map((r) => r.endedAt || 0)),
		maxInFlight: Math.max(sandbox.maxInFlightSeen, list.maxInFlight),
	};
}

const commands = {
	/** Empties the store (and requests, faults) and the list server; sets the latency of both. */
	reset({ latencyMs = 0 }) {
		sandbox.reset();
		sandbox.faults.latencyMs = latencyMs;
		list.latencyMs = latencyMs;
		list.records = [];
		list.total = 0;
		return true;
	},
	latency({ ms }) {
		sandbox.faults.latencyMs = ms;
		list.latencyMs = ms;
		return ms;
	},
	seed({ entityType, count }) {
		for (let i = 0; i < count; i++) sandbox.store.create(entityType, { id: benchId(i), ...contact(i) });
		return sandbox.store.count(entityType);
	},
	/** Fills the list server with the sandbox's Contacts (newest first: the sandbox's default order for these records). */
	async fillListServer() {
		const records = sandbox.store.list('Contact');
		records.sort((x, y) => (x.createdAt === y.createdAt ? (x.id < y.id ? 1 : -1) : x.createdAt < y.createdAt ? 1 : -1));
		list.records = records.map((r) => JSON.stringify(r));
		list.total = records.length;
		await verifyListServer(0);
		await verifyListServer(Math.max(0, records.length - 200));
		return { origin: list.origin, total: list.total };
	},
	/** Starts a measurement: forgets earlier requests and the in-flight peaks. */
	mark() {
		sandbox.clearRequests();
		sandbox.maxInFlightSeen = 0;
		list.requests = [];
		list.maxInFlight = 0;
		return true;
	},
	stats,
	count: ({ entityType }) => sandbox.store.count(entityType),
	/** How many records of the type have `field` = `value` (the mass update's check). */
	countWith: ({ entityType, field, value }) => sandbox.store.list(entityType).filter((r) => r[field] === value).length,
};

async function main() {
	sandbox = await startSandbox({ port: 0, dialect: 'standard', failedLoginLimit: 0 });
	await startListServer();
	process.on('message', async (msg) => {
		try {
			const fn = commands[msg.cmd];
			if (!fn) throw new Error(`unknown command ${msg.cmd}`);
			process.send({ id: msg.id, result: await fn(msg) });
		} catch (e) {
			process.send({ id: msg.id, error: String((e && e.stack) || e) });
		}
	});
	// the bench gone (finished, failed or killed): nothing is left running
	process.on('disconnect', () => process.exit(0));
	process.send({ ready: true, origin: sandbox.origin, baseUrl: sandbox.baseUrl, listOrigin: list.origin, listBaseUrl: `${list.origin}/api/v1` });
}

module.exports = { benchId, contact };

if (require.main === module) {
	main().catch((e) => {
		process.stderr.write(`bench sandbox: ${(e && e.stack) || e}\n`);
		process.exit(1);
	});
}
