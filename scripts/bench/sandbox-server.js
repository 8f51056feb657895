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
 *   key server    for the upsert job: the sandbox filters and sorts the whole table for every list request (35 ms of
 *                 CPU for one look-up by e-mail address among 10,000 Contacts, 10,000 look-ups for the per-item
 *                 reference: six minutes of the server's CPU), so this server keeps Contacts by id and by
 *                 lower-case e-mail address and answers what Create or Update sends: GET /api/v1/Contact with one
 *                 where item `in` or `equals` on emailAddress (case-insensitive, as EspoCRM), POST /api/v1/Contact
 *                 (409 for an address it has, as EspoCRM's duplicate check) and PUT /api/v1/Contact/{id};
 *                 `verifyKeyServer` compares its look-ups with the sandbox's. See README.md, "The key server".
 *   second server second-server.py: the creates of the interface written again in Python (its standard library's
 *                 threading server), sharing no code with the sandbox and no runtime with n8n; a child process of
 *                 this one, driven over HTTP. See README.md, "The second server".
 *
 * Commands arrive over the IPC channel as {id, cmd, ...args}; each is answered with {id, result} or {id, error}.
 * Only summaries cross the channel: the recorded requests stay here.
 */

const http = require('http');
const path = require('path');
const readline = require('readline');
const { spawn } = require('child_process');
const { performance } = require('perf_hooks');
const { startSandbox, SANDBOX_CREDENTIALS } = require('../../test/sandbox');

/** Record IDs that both sides can compute (the workflows' Code nodes, the raw client) without listing them. */
const benchId = (i) => `b${i.toString(16).padStart(16, '0')}`;
const contact = (i) => ({
	firstName: `First${i}`,
	lastName: `Last${i}`,
	emailAddress: `contact${i}@bench.example.com`,
});
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let sandbox;
const list = {
	server: null,
	origin: '',
	total: 0,
	records: [],
	latencyMs: 0,
	requests: [],
	inFlight: 0,
	maxInFlight: 0,
};

/** Counts a request that arrived at one of the bench's own servers (`state`: list or keys); its entry and URL. */
function arrived(state, req) {
	const url = new URL(req.url, 'http://x');
	const entry = {
		method: req.method,
		path: url.pathname.replace(/^\/api\/v1/, ''),
		headers: req.headers,
		status: null,
		startedAt: now(),
		endedAt: null,
	};
	state.requests.push(entry);
	state.maxInFlight = Math.max(state.maxInFlight, ++state.inFlight);
	return { entry, url };
}

/** Answers it with JSON text and counts it as done. */
function answered(state, res, entry, status, body) {
	res.writeHead(status, {
		'Content-Type': 'application/json',
		'Content-Length': Buffer.byteLength(body),
	});
	res.end(body);
	entry.status = status;
	entry.endedAt = now();
	state.inFlight--;
}

/** Starts `state.server` on a free port of 127.0.0.1 and sets `state.origin`. */
function listening(state) {
	return new Promise((resolve) =>
		state.server.listen(0, '127.0.0.1', () => {
			state.origin = `http://127.0.0.1:${state.server.address().port}`;
			resolve();
		}),
	);
}

/** The list server: pages of `list.records` (JSON text of each record), in the sandbox's default order. */
function startListServer() {
	list.server = http.createServer(async (req, res) => {
		const { entry, url } = arrived(list, req);
		req.resume();
		if (list.latencyMs > 0) await sleep(list.latencyMs);
		const offset = Number(url.searchParams.get('offset') || 0);
		const maxSize = Number(url.searchParams.get('maxSize') || 200);
		let status = 200;
		let body = '';
		if (req.headers['x-api-key'] !== SANDBOX_CREDENTIALS.apiKey) status = 401;
		else if (
			req.method !== 'GET' ||
			entry.path !== '/Contact' ||
			!(maxSize <= 200) ||
			!(offset >= 0)
		)
			status = 400;
		else
			body = `{"total":${list.total},"list":[${list.records.slice(offset, offset + maxSize).join(',')}]}`;
		answered(list, res, entry, status, body);
	});
	return listening(list);
}

const keys = {
	server: null,
	origin: '',
	latencyMs: 0,
	cpuMs: 0,
	requests: [],
	inFlight: 0,
	maxInFlight: 0,
	byId: new Map(),
	byEmail: new Map(),
	created: 0,
};

const emailKey = (value) =>
	String(value ?? '')
		.trim()
		.toLowerCase();

function keyServerStore(record) {
	keys.byId.set(record.id, record);
	if (record.emailAddress) keys.byEmail.set(emailKey(record.emailAddress), record.id);
}

/** The match values of a look-up: where[0][value] or where[0][value][n], as the node and the raw client send them. */
function lookedUp(searchParams) {
	const values = [];
	for (const [k, v] of searchParams) if (/^where\[0\]\[value\](\[\d+\])?$/.test(k)) values.push(v);
	return {
		type: searchParams.get('where[0][type]'),
		attribute: searchParams.get('where[0][attribute]'),
		values,
	};
}

/** The key server: Contacts by id and e-mail address; the look-ups, creates and updates of Create or Update. */
function startKeyServer() {
	keys.server = http.createServer((req, res) => {
		const { entry, url } = arrived(keys, req);
		const chunks = [];
		req.on('data', (c) => chunks.push(c));
		req.on('end', async () => {
			// A server's own work per request, on the machine's cores (`cpuMs`, the createServerCpu job): this thread is
			// busy meanwhile, as a one-threaded server would be; then the latency, which costs no CPU.
			if (keys.cpuMs > 0)
				for (const end = performance.now() + keys.cpuMs; performance.now() < end;);
			if (keys.latencyMs > 0) await sleep(keys.latencyMs);
			let status = 200;
			let body = '';
			const reply = (s, json) => {
				status = s;
				body = json === undefined ? '' : JSON.stringify(json);
			};
			const idMatch = /^\/Contact\/([^/]+)$/.exec(entry.path);
			try {
				if (req.headers['x-api-key'] !== SANDBOX_CREDENTIALS.apiKey) reply(401);
				else if (req.method === 'GET' && entry.path === '/Contact') {
					const where = lookedUp(url.searchParams);
					if (where.attribute !== 'emailAddress' || !['in', 'equals'].includes(where.type))
						reply(400);
					else {
						const found = [
							...new Set(where.values.map((v) => keys.byEmail.get(emailKey(v))).filter(Boolean)),
						];
						const list = found
							.map((id) => keys.byId.get(id))
							.map((r) => ({
								id: r.id,
								name: `${r.firstName ?? ''} ${r.lastName ?? ''}`.trim(),
								emailAddress: r.emailAddress,
							}));
						reply(200, { total: list.length, list });
					}
				} else if (req.method === 'POST' && entry.path === '/Contact') {
					const values = JSON.parse(Buffer.concat(chunks).toString('utf8'));
					if (!values.lastName) reply(400);
					else if (
						keys.byEmail.has(emailKey(values.emailAddress)) &&
						String(req.headers['x-skip-duplicate-check']).toLowerCase() !== 'true'
					)
						reply(409);
					else {
						const at = new Date().toISOString().slice(0, 19).replace('T', ' ');
						const record = {
							id: `k${(++keys.created).toString(16).padStart(16, '0')}`,
							...values,
							createdAt: at,
							modifiedAt: at,
						};
						keyServerStore(record);
						reply(200, record);
					}
				} else if (req.method === 'PUT' && idMatch) {
					const record = keys.byId.get(decodeURIComponent(idMatch[1]));
					if (!record) reply(404);
					else {
						Object.assign(record, JSON.parse(Buffer.concat(chunks).toString('utf8')), {
							modifiedAt: new Date().toISOString().slice(0, 19).replace('T', ' '),
						});
						keyServerStore(record);
						reply(200, record);
					}
				} else reply(404);
			} catch {
				reply(400);
			}
			answered(keys, res, entry, status, body);
		});
	});
	return listening(keys);
}

const second = { child: null, origin: '', unavailable: '' };

/** Starts second-server.py with python3 (or $PYTHON); without Python, the jobs that use it fail, saying why. */
function startSecondServer() {
	const python = process.env.PYTHON || 'python3';
	return new Promise((resolve) => {
		// stdin a pipe: the server exits when it closes, also when this process is killed (SIGKILL runs no handler)
		const child = spawn(
			python,
			[path.join(__dirname, 'second-server.py'), SANDBOX_CREDENTIALS.apiKey],
			{ stdio: ['pipe', 'pipe', 'inherit'] },
		);
		second.child = child;
		child.once('error', (e) => {
			second.unavailable = `the second server needs ${python} (${e.code || e.message})`;
			resolve();
		});
		child.once('exit', (code) => {
			second.unavailable ||= `the second server exited (${code})`;
			resolve();
		});
		readline.createInterface({ input: child.stdout }).once('line', (line) => {
			second.origin = `http://127.0.0.1:${JSON.parse(line).port}`;
			resolve();
		});
	});
}

async function secondServer(method, what, body) {
	if (!second.origin || second.unavailable) {
		if (method === 'GET' && what === 'stats') return { requests: [], maxInFlight: 0 };
		throw new Error(second.unavailable || 'the second server is not running');
	}
	const res = await fetch(`${second.origin}/__bench/${what}`, {
		method,
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	if (!res.ok) throw new Error(`the second server answered ${res.status} to ${what}`);
	return await res.json();
}

/**
 * The key server's look-ups must find what the sandbox finds: the same Contacts stored in both (the sandbox is
 * emptied afterwards), the same `in` and `equals` look-ups in other letter case, the same records found.
 */
async function verifyKeyServer() {
	sandbox.reset();
	const sample = [...keys.byId.values()].slice(0, 20);
	for (const r of sample)
		sandbox.store.create('Contact', {
			id: r.id,
			firstName: r.firstName,
			lastName: r.lastName,
			emailAddress: r.emailAddress,
		});
	const wanted = [
		...sample.slice(0, 10).map((r) => r.emailAddress.toUpperCase()),
		'nobody@bench.example.com',
	];
	const queries = [
		wanted.map((v, i) => `where[0][value][${i}]=${encodeURIComponent(v)}`).join('&') +
			'&where[0][type]=in&where[0][attribute]=emailAddress',
		`where[0][type]=equals&where[0][attribute]=emailAddress&where[0][value]=${encodeURIComponent(wanted[3])}`,
	];
	for (const q of queries) {
		const get = async (origin) =>
			(
				await (
					await fetch(`${origin}/api/v1/Contact?${q}&select=id,emailAddress&offset=0&maxSize=200`, {
						headers: { 'X-Api-Key': SANDBOX_CREDENTIALS.apiKey },
					})
				).json()
			).list
				.map((r) => `${r.id} ${r.emailAddress}`)
				.sort()
				.join(', ');
		const [a, b] = [await get(sandbox.origin), await get(keys.origin)];
		if (a !== b)
			throw new Error(
				`the key server found ${b || 'nothing'} where the sandbox found ${a || 'nothing'}`,
			);
	}
	sandbox.reset();
}

/** The sandbox's answer and the list server's for the same page must be equal. */
async function verifyListServer(offset) {
	const get = async (origin) =>
		(
			await fetch(`${origin}/api/v1/Contact?offset=${offset}&maxSize=200`, {
				headers: { 'X-Api-Key': SANDBOX_CREDENTIALS.apiKey },
			})
		).json();
	const [a, b] = [await get(sandbox.origin), await get(list.origin)];
	if (JSON.stringify(a) !== JSON.stringify(b))
		throw new Error(`the list server's page at offset ${offset} differs from the sandbox's`);
}

/** What the bench wants to know about the requests since the last `mark`, from whichever server got them. */
async function stats() {
	const fromSecond = await secondServer('GET', 'stats');
	const secondRequests = fromSecond.requests.map((r) => ({
		...r,
		headers: { connection: r.connection },
	}));
	const reqs = [...sandbox.requests, ...list.requests, ...keys.requests, ...secondRequests];
	const byStatus = {};
	const connection = {};
	for (const r of reqs) {
		byStatus[r.status] = (byStatus[r.status] || 0) + 1;
		const c = String(r.headers.connection || '(none)').toLowerCase();
		connection[c] = (connection[c] || 0) + 1;
	}
	return {
		count: reqs.length,
		servers: {
			sandbox: sandbox.requests.length,
			list: list.requests.length,
			keys: keys.requests.length,
			second: secondRequests.length,
		},
		byStatus,
		// the Connection header: n8n sends "close" (a new connection per request)
		connection,
		// time the server spent on them (arrival to answer, latency included): over the span, the mean in flight
		busyMs: reqs.reduce((sum, r) => sum + (r.endedAt === null ? 0 : r.endedAt - r.startedAt), 0),
		firstStartedAt: Math.min(...reqs.map((r) => r.startedAt)),
		lastEndedAt: Math.max(...reqs.map((r) => r.endedAt || 0)),
		maxInFlight: Math.max(
			sandbox.maxInFlightSeen,
			list.maxInFlight,
			keys.maxInFlight,
			fromSecond.maxInFlight,
		),
	};
}

const commands = {
	/** Empties every server (records, requests, faults) and sets their latency; `cpuMs` is the key server's. */
	async reset({ latencyMs = 0, cpuMs = 0 }) {
		if (second.origin && !second.unavailable) await secondServer('POST', 'reset', { latencyMs });
		sandbox.reset();
		sandbox.faults.latencyMs = latencyMs;
		list.latencyMs = latencyMs;
		list.records = [];
		list.total = 0;
		keys.latencyMs = latencyMs;
		keys.cpuMs = cpuMs;
		keys.byId.clear();
		keys.byEmail.clear();
		keys.created = 0;
		return true;
	},
	latency({ ms }) {
		sandbox.faults.latencyMs = ms;
		list.latencyMs = ms;
		keys.latencyMs = ms;
		return ms;
	},
	seed({ entityType, count }) {
		for (let i = 0; i < count; i++)
			sandbox.store.create(entityType, { id: benchId(i), ...contact(i) });
		return sandbox.store.count(entityType);
	},
	/** Fills the list server with the sandbox's Contacts (newest first: the sandbox's default order for these records). */
	async fillListServer() {
		const records = sandbox.store.list('Contact');
		records.sort((x, y) =>
			x.createdAt === y.createdAt ? (x.id < y.id ? 1 : -1) : x.createdAt < y.createdAt ? 1 : -1,
		);
		list.records = records.map((r) => JSON.stringify(r));
		list.total = records.length;
		await verifyListServer(0);
		await verifyListServer(Math.max(0, records.length - 200));
		return { origin: list.origin, total: list.total };
	},
	/**
	 * Fills the key server with the Contacts `indexes` (contact(i), id benchId(i), last name "Stored"), checked
	 * against the sandbox once (`verify`).
	 */
	async fillKeyServer({ indexes, verify }) {
		for (const i of indexes) keyServerStore({ id: benchId(i), ...contact(i), lastName: 'Stored' });
		if (verify) await verifyKeyServer();
		return keys.byId.size;
	},
	/** The key server's Contacts: how many, how many different e-mail addresses, how many still as stored. */
	keyServerCounts: () => {
		const records = [...keys.byId.values()];
		return {
			count: records.length,
			emails: new Set(records.map((r) => emailKey(r.emailAddress))).size,
			stored: records.filter((r) => r.lastName === 'Stored').length,
		};
	},
	/** Starts a measurement: forgets earlier requests and the in-flight peaks. */
	async mark() {
		if (second.origin && !second.unavailable) await secondServer('POST', 'mark');
		sandbox.clearRequests();
		sandbox.maxInFlightSeen = 0;
		list.requests = [];
		list.maxInFlight = 0;
		keys.requests = [];
		keys.maxInFlight = 0;
		return true;
	},
	stats,
	count: ({ entityType }) => sandbox.store.count(entityType),
	/** The Contacts the second server holds. */
	secondServerCount: () => secondServer('GET', 'count'),
	/** How many records of the type have `field` = `value` (the mass update's check). */
	countWith: ({ entityType, field, value }) =>
		sandbox.store.list(entityType).filter((r) => r[field] === value).length,
};

async function main() {
	sandbox = await startSandbox({ port: 0, dialect: 'standard', failedLoginLimit: 0 });
	await startListServer();
	await startKeyServer();
	await startSecondServer();
	process.on('exit', () => second.child?.kill());
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
	process.send({
		ready: true,
		origin: sandbox.origin,
		baseUrl: sandbox.baseUrl,
		listOrigin: list.origin,
		listBaseUrl: `${list.origin}/api/v1`,
		keysOrigin: keys.origin,
		keysBaseUrl: `${keys.origin}/api/v1`,
		secondOrigin: second.origin,
		secondBaseUrl: `${second.origin}/api/v1`,
	});
}

module.exports = { benchId, contact };

if (require.main === module) {
	main().catch((e) => {
		process.stderr.write(`bench sandbox: ${(e && e.stack) || e}\n`);
		process.exit(1);
	});
}
