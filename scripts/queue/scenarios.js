'use strict';
/*
 * The queue-mode scenarios of `npm run test:queue` (scripts/queue/run.js sets everything up and hands each one `ctx`).
 * Each scenario asserts on what the sandbox received and on what n8n recorded, and returns the figures it measured.
 *
 * ctx (see run.js, makeContext()):
 *   ctx.sandbox                 the sandbox (requests, store, faults, expireTokens(), tokensIssued)
 *   ctx.runId                   unique per run, part of every name the scenarios create
 *   ctx.fire(path, bodies)      POSTs every body to the production webhook /webhook/<path> at once;
 *                               resolves { responses: [{ status, json, text, ms }], ms }
 *   await ctx.mark()            a point in time: sandbox request index, executions n8n knows, those each worker finished
 *   ctx.since(mark, workflowId) what happened since the mark: { requests, perWorker: {worker1: [executionIds]},
 *                               executions: [{id, status}] (REST API, waits until none is running), byProcess(filter) }
 *   ctx.restartWorkers()        stops both workers (SIGTERM, graceful) and starts them again
 *   ctx.onSandboxRequest(fn)    calls fn(recordedRequest) after each request the sandbox answered; returns an unsubscribe
 *   ctx.workers                 [{ name, ... }] (names as in the x-rms-queue-process header of the sandbox requests)
 */

const assert = require('assert/strict');
const { TAG_HEADER } = require('./tag-proxy');

const CONTACT_WORKFLOW = { id: 'rmsQueueContact01', path: 'rms-queue-contact' };
const BATCH_WORKFLOW = { id: 'rmsQueueBatch0001', path: 'rms-queue-batch' };

const tagOf = (r) => String(r.headers[TAG_HEADER] || '(untagged)');
const isAuth = (r) => r.method === 'POST' && r.path === '/Auth';

/** Counts requests per n8n process (the tag proxy's header): { worker1: 3, worker2: 1, ... } */
function countBy(requests, filter = () => true) {
	const out = {};
	for (const r of requests) if (filter(r)) out[tagOf(r)] = (out[tagOf(r)] || 0) + 1;
	return out;
}

/** "worker1 1, worker2 2" for the table (every worker listed, others only when non-zero) */
function perProcess(counts, workers) {
	const names = [...workers.map((w) => w.name), ...Object.keys(counts).filter((k) => !workers.some((w) => w.name === k))];
	return names.map((n) => `${n} ${counts[n] || 0}`).join(', ');
}

/** Checks every webhook answer: 200 and the created record(s) echoed by the last node. */
function checkResponses(res, expectOne) {
	const bad = [];
	res.responses.forEach((r, i) => {
		if (r.status !== 200) bad.push(`#${i}: HTTP ${r.status} ${String(r.text).slice(0, 200)}`);
		else if (!expectOne(r.json, i)) bad.push(`#${i}: unexpected answer ${String(r.text).slice(0, 200)}`);
	});
	return bad;
}

function splitFigures(since, workers) {
	return Object.fromEntries(workers.map((w) => [w.name, (since.perWorker[w.name] || []).length]));
}

/** The common checks of a run of webhook executions; returns the figures. */
function checkRun(ctx, res, since, { count, label }) {
	const { workers } = ctx;
	const badResponses = checkResponses(res, res.expect);
	assert.equal(badResponses.length, 0, `${label}: ${badResponses.length} of ${count} webhook calls failed:\n  ${badResponses.slice(0, 10).join('\n  ')}`);
	const statuses = {};
	for (const e of since.executions) statuses[e.status] = (statuses[e.status] || 0) + 1;
	assert.equal(since.executions.length, count, `${label}: n8n recorded ${since.executions.length} executions, expected ${count}`);
	assert.equal(statuses.success || 0, count, `${label}: execution statuses ${JSON.stringify(statuses)}`);
	const split = splitFigures(since, workers);
	const ranOnWorkers = Object.values(split).reduce((a, b) => a + b, 0);
	assert.equal(ranOnWorkers, count, `${label}: the workers' logs show ${ranOnWorkers} finished executions, expected ${count} (${JSON.stringify(split)})`);
	const fromMain = since.requests.filter((r) => tagOf(r) === 'main').length;
	assert.equal(fromMain, 0, `${label}: the main instance sent ${fromMain} requests to the server (executions must run on workers)`);
	return { split, statuses };
}

// ---------------------------------------------------------------------------------------------------------
// 1. First use: no token stored; then the workers restarted

async function firstUse(ctx, { count = 50 } = {}) {
	const { sandbox, workers } = ctx;
	const figures = [];
	const problems = [];
	const run = async (label, tag) => {
		const m = await ctx.mark();
		const bodies = Array.from({ length: count }, (_, i) => ({ first: `Q${tag}`, last: `Q${tag}-${ctx.runId}-${i}` }));
		const res = await ctx.fire(CONTACT_WORKFLOW.path, bodies);
		res.expect = (json, i) => json && json.id && json.lastName === bodies[i].last;
		const since = await ctx.since(m, CONTACT_WORKFLOW.id);
		const auth = countBy(since.requests, isAuth);
		const row = {
			scenario: label,
			executions: count,
			ok: res.responses.filter((r) => r.status === 200).length,
			split: null,
			auth,
			unauthorized: countBy(since.requests, (r) => r.status === 401),
			ms: res.ms,
			p50: percentile(res.responses.map((r) => r.ms), 0.5),
			p95: percentile(res.responses.map((r) => r.ms), 0.95),
		};
		figures.push(row);
		let split;
		try {
			({ split } = checkRun(ctx, res, since, { count, label }));
		} catch (e) {
			throw Object.assign(e, { figures });
		}
		row.split = split;
		return { since, auth, split };
	};

	// 1a: the credential has no token yet
	const a = await run(`1a first use, no token stored (${count} at once)`, '1a');
	for (const w of workers) {
		if (!(a.split[w.name] > 0)) problems.push(`1a: ${w.name} ran no execution (split ${JSON.stringify(a.split)}): not spread over both workers`);
		if ((a.auth[w.name] || 0) > 1) problems.push(`1a: ${w.name} sent ${a.auth[w.name]} POST /Auth (at most 1 per worker)`);
	}
	const otherAuth = Object.keys(a.auth).filter((k) => !workers.some((w) => w.name === k));
	if (otherAuth.length) problems.push(`1a: POST /Auth from ${otherAuth.join(', ')}`);
	const total = Object.values(a.auth).reduce((x, y) => x + y, 0);
	if (total < 1) problems.push('1a: no POST /Auth at all, although no token was stored');

	// 1b: workers restarted: the token stored in the database is used, none is fetched
	const tr = Date.now();
	await ctx.restartWorkers();
	const restartMs = Date.now() - tr;
	const b = await run(`1b after restarting both workers (${count})`, '1b');
	figures[1].restartMs = restartMs;
	const authB = Object.values(b.auth).reduce((x, y) => x + y, 0);
	if (authB !== 0) problems.push(`1b: ${authB} POST /Auth after the restart (${perProcess(b.auth, workers)}); the stored token should be reused`);
	for (const w of workers) if (!(b.split[w.name] > 0)) problems.push(`1b: ${w.name} ran no execution (split ${JSON.stringify(b.split)})`);
	assert.ok(sandbox.tokensIssued >= 1);
	if (problems.length) throw Object.assign(new Error(problems.join('\n')), { figures });
	return { figures };
}

// ---------------------------------------------------------------------------------------------------------
// 2. The token revoked while executions run

async function tokenRevoked(ctx, { count = 50, expireAfter = 15, latencyMs = 1000 } = {}) {
	const { sandbox, workers } = ctx;
	const m = await ctx.mark();
	const bodies = Array.from({ length: count }, (_, i) => ({ first: 'Q2', last: `Q2-${ctx.runId}-${i}` }));
	const names = new Set(bodies.map((b) => b.last));
	let created = 0;
	let expiredAt = null;
	const off = ctx.onSandboxRequest((r) => {
		if (expiredAt !== null || r.method !== 'POST' || r.path !== '/Contact' || r.status !== 200) return;
		if (!r.body || !names.has(r.body.lastName)) return;
		if (++created === expireAfter) {
			sandbox.expireTokens();
			expiredAt = { index: sandbox.requests.length, at: Date.now() };
		}
	});
	// every reply 1 s late: at the revocation, each worker has several requests in flight (the sandbox checks the
	// token after the delay), so both workers meet the 401 at about the same time
	sandbox.faults.latencyMs = latencyMs;
	let res;
	try {
		res = await ctx.fire(CONTACT_WORKFLOW.path, bodies);
	} finally {
		off();
		sandbox.faults.latencyMs = 0;
	}
	res.expect = (json, i) => json && json.id && json.lastName === bodies[i].last;
	const since = await ctx.since(m, CONTACT_WORKFLOW.id);
	assert.ok(expiredAt, `2: the token was never revoked (only ${created} creates seen)`);
	const after = sandbox.requests.slice(expiredAt.index);
	const renewals = countBy(after, (r) => isAuth(r));
	const refused = countBy(since.requests, (r) => r.status === 401);
	const row = {
		scenario: `2 token revoked after ${expireAfter} of ${count} creates (replies ${latencyMs} ms late)`,
		executions: count,
		ok: res.responses.filter((r) => r.status === 200).length,
		split: null,
		auth: renewals,
		unauthorized: refused,
		ms: res.ms,
		p50: percentile(res.responses.map((r) => r.ms), 0.5),
		p95: percentile(res.responses.map((r) => r.ms), 0.95),
	};
	const figures = [row];
	try {
		row.split = checkRun(ctx, res, since, { count, label: '2' }).split;
	} catch (e) {
		throw Object.assign(e, { figures });
	}
	const problems = [];
	const total401 = Object.values(refused).reduce((a, b) => a + b, 0);
	if (!total401) problems.push('2: no request was refused with 401 after the revocation: the scenario did not revoke a token in use');
	for (const w of workers) if ((renewals[w.name] || 0) > 1) problems.push(`2: ${w.name} renewed the token ${renewals[w.name]} times (at most 1 per worker)`);
	const totalRenewals = Object.values(renewals).reduce((a, b) => a + b, 0);
	if (total401 && totalRenewals < 1) problems.push('2: 401s but no renewal');
	if (problems.length) throw Object.assign(new Error(problems.join('\n')), { figures });
	return { figures };
}

// ---------------------------------------------------------------------------------------------------------
// 3. Faults: 503 on every 5th request, 429 with Retry-After on every 7th; every record exactly once

async function faults(ctx, { executions = 20, perExecution = 10 } = {}) {
	const { sandbox } = ctx;
	const m = await ctx.mark();
	const bodies = Array.from({ length: executions }, (_, e) => ({
		people: Array.from({ length: perExecution }, (_, i) => ({ first: 'Q3', last: `Q3-${ctx.runId}-${e}-${i}` })),
	}));
	const expected = bodies.flatMap((b) => b.people.map((p) => p.last));
	sandbox.faults.failEvery({ every: 5, status: 503, retryAfter: 0, reason: 'queue test: every 5th request' });
	sandbox.faults.failEvery({ every: 7, status: 429, retryAfter: 1, reason: 'queue test: every 7th request' });
	let res;
	try {
		res = await ctx.fire(BATCH_WORKFLOW.path, bodies);
	} finally {
		sandbox.faults.clear();
	}
	res.expect = (json, i) =>
		Array.isArray(json) && json.length === perExecution && json.every((r, k) => r && r.id && r.lastName === bodies[i].people[k].last);
	const since = await ctx.since(m, BATCH_WORKFLOW.id);
	const contacts = sandbox.store.list('Contact').filter((c) => String(c.lastName || '').startsWith(`Q3-${ctx.runId}-`));
	const perName = new Map();
	for (const c of contacts) perName.set(c.lastName, (perName.get(c.lastName) || 0) + 1);
	const creates = since.requests.filter((r) => r.method === 'POST' && r.path === '/Contact');
	const row = {
		scenario: `3 faults: 503 every 5th, 429 every 7th (${executions} x ${perExecution} creates)`,
		executions,
		ok: res.responses.filter((r) => r.status === 200).length,
		split: null,
		auth: countBy(since.requests, isAuth),
		unauthorized: countBy(since.requests, (r) => r.status === 401),
		ms: res.ms,
		p50: percentile(res.responses.map((r) => r.ms), 0.5),
		p95: percentile(res.responses.map((r) => r.ms), 0.95),
		records: contacts.length,
		refused: { 503: creates.filter((r) => r.status === 503).length, 429: creates.filter((r) => r.status === 429).length },
		creates: creates.length,
	};
	const figures = [row];
	try {
		row.split = checkRun(ctx, res, since, { count: executions, label: '3' }).split;
		const missing = expected.filter((n) => !perName.has(n));
		const twice = [...perName].filter(([, n]) => n > 1).map(([k, n]) => `${k} x${n}`);
		assert.equal(missing.length, 0, `3: ${missing.length} records missing, e.g. ${missing.slice(0, 5).join(', ')}`);
		assert.equal(twice.length, 0, `3: records created more than once: ${twice.slice(0, 10).join(', ')}`);
		assert.equal(contacts.length, executions * perExecution, `3: ${contacts.length} records, expected ${executions * perExecution}`);
		assert.ok(row.refused[503] > 0 && row.refused[429] > 0, `3: the faults did not fire (${JSON.stringify(row.refused)})`);
	} catch (e) {
		throw Object.assign(e, { figures });
	}
	return { figures };
}

// ---------------------------------------------------------------------------------------------------------
// 4. Scenarios that wait for features being built now. Each returns { skipped: reason } until its feature lands.

/**
 * TODO(issue 19): the polling trigger in queue mode. Needs the package's polling trigger node (being built).
 * To do when it lands: a workflow "<package>.recordManagementServiceTrigger (poll every minute, or the shortest
 * interval it offers) → nothing", published with activateWorkflow(); create 300 Contacts in the sandbox
 * (sandbox.store.create, spread over time) between two polls; then wait for two more polls and assert that exactly
 * 300 executions ran (REST /rest/executions for the workflow), each with exactly one record, every record id once.
 * In queue mode only the main instance (the leader) polls and every poll that finds items enqueues one execution:
 * also assert that the poll requests (GET /Contact with the trigger's where) came from "main" only, and that the
 * workflow's static data (its cursor) survived a restart of the main instance (no record twice after it).
 */
async function pollingTrigger(/* ctx */) {
	return { skipped: 'TODO(issue 19): waits for the polling trigger node (300 records created between polls, one execution each)' };
}

/**
 * TODO(issue 19): the webhook trigger's deliveries in queue mode. Needs the package's webhook trigger node (being
 * built): it registers a webhook on the server when its workflow is published and removes it when unpublished.
 * To do when it lands: publish a workflow "<package>.recordManagementServiceWebhookTrigger → nothing" with
 * activateWorkflow(); assert the subscription the sandbox received (one POST of the webhook registration); make the
 * sandbox deliver N events (e.g. 100, some concurrently, some repeated deliveries of one event id if the trigger
 * deduplicates) to the production URL /webhook/<webhookId>/...; assert exactly one execution per event (REST
 * executions + the workers' logs), spread over both workers; unpublish and assert the DELETE of the registration.
 * This is the scenario the webhook-trigger end-to-end tests share: startN8n(), activateWorkflow(), waitForWebhook()
 * of scripts/lib/n8n-server.js.
 */
async function webhookTriggerDeliveries(/* ctx */) {
	return { skipped: 'TODO(issue 19): waits for the webhook trigger node (each delivery exactly one execution)' };
}

/**
 * TODO(issue 19): e-mail attachments from binary data when executions run on workers. Needs attachments in the
 * node's Email > Send (being built).
 * Queue mode and binary data: with N8N_DEFAULT_BINARY_DATA_MODE=filesystem, binary data lives in the folder of the
 * process that received or produced it; a worker cannot read what the main instance stored from a webhook upload.
 * n8n 2.41.1 accepts default | filesystem | s3 | azure | database and, in queue mode, defaults to `database`
 * (n8n-core BinaryDataConfig: `mode ??= executions.mode === 'queue' ? 'database' : 'filesystem'`; s3 and azure need
 * an enterprise licence). run.js sets `database` explicitly in every process (binary data in the shared Postgres,
 * at most N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE, 512 MiB by default).
 * To do when it lands: a workflow "Webhook (binary upload, e.g. multipart with two files) → Record Management
 * Service: Email > Send with attachments from the binary properties"; POST 10 uploads at once; assert on the
 * sandbox: every e-mail has its attachments (sandbox.outbox[i].attachmentIds, the attachment records and their
 * content byte for byte), and that the executions ran on both workers.
 */
async function emailAttachmentsOnWorkers(/* ctx */) {
	return { skipped: 'TODO(issue 19): waits for e-mail attachments from binary data (binary data mode "database" in queue mode)' };
}

function percentile(values, p) {
	if (!values.length) return 0;
	const s = [...values].sort((a, b) => a - b);
	return s[Math.min(s.length - 1, Math.floor(p * s.length))];
}

const SCENARIOS = [
	{ key: 'first-use', title: '1 first use and worker restart: at most one POST /Auth per worker, none after the restart', run: firstUse },
	{ key: 'token-revoked', title: '2 token revoked while executions run: all succeed, at most one renewal per worker', run: tokenRevoked },
	{ key: 'faults', title: '3 faults (503, 429 + Retry-After): 20 executions x 10 creates = every record exactly once', run: faults },
	{ key: 'polling-trigger', title: '4a polling trigger in queue mode', run: pollingTrigger },
	{ key: 'webhook-trigger', title: '4b webhook trigger deliveries', run: webhookTriggerDeliveries },
	{ key: 'email-attachments', title: '4c e-mail attachments from binary data on workers', run: emailAttachmentsOnWorkers },
];

module.exports = { SCENARIOS, CONTACT_WORKFLOW, BATCH_WORKFLOW, countBy, perProcess, tagOf };
