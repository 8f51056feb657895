'use strict';
/*
 * The queue-mode scenarios of `npm run test:queue` (test/queue/run.js sets everything up and hands each one `ctx`).
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
 *   ctx.main, ctx.cookie        the main instance ({ baseUrl, proc, logText() }) and the owner's login cookie
 *   await ctx.execution(id)     one execution as n8n recorded it: { id, status, mode, error, items: { node: count },
 *                               errors: { node: message } } (GET /rest/executions/:id, run data parsed)
 *   ctx.finishedBy()            { executionId: worker name } from the workers' logs ("Worker finished execution")
 *   ctx.enqueuedByMain()        Set of execution ids main put on the queue, from its log ("Enqueued execution")
 *   await ctx.sql(statement)    one statement in n8n's Postgres database (psql -tA) → { code, out }
 */

const assert = require('assert/strict');
const crypto = require('crypto');
const srv = require('../lib/n8n-server');
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
	const names = [
		...workers.map((w) => w.name),
		...Object.keys(counts).filter((k) => !workers.some((w) => w.name === k)),
	];
	return names.map((n) => `${n} ${counts[n] || 0}`).join(', ');
}

/** Checks every webhook answer: 200 and the created record(s) echoed by the last node. */
function checkResponses(res, expectOne) {
	const bad = [];
	res.responses.forEach((r, i) => {
		if (r.status !== 200) bad.push(`#${i}: HTTP ${r.status} ${String(r.text).slice(0, 200)}`);
		else if (!expectOne(r.json, i))
			bad.push(`#${i}: unexpected answer ${String(r.text).slice(0, 200)}`);
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
	assert.equal(
		badResponses.length,
		0,
		`${label}: ${badResponses.length} of ${count} webhook calls failed:\n  ${badResponses.slice(0, 10).join('\n  ')}`,
	);
	const statuses = {};
	for (const e of since.executions) statuses[e.status] = (statuses[e.status] || 0) + 1;
	assert.equal(
		since.executions.length,
		count,
		`${label}: n8n recorded ${since.executions.length} executions, expected ${count}`,
	);
	assert.equal(
		statuses.success || 0,
		count,
		`${label}: execution statuses ${JSON.stringify(statuses)}`,
	);
	const split = splitFigures(since, workers);
	const ranOnWorkers = Object.values(split).reduce((a, b) => a + b, 0);
	assert.equal(
		ranOnWorkers,
		count,
		`${label}: the workers' logs show ${ranOnWorkers} finished executions, expected ${count} (${JSON.stringify(split)})`,
	);
	const fromMain = since.requests.filter((r) => tagOf(r) === 'main').length;
	assert.equal(
		fromMain,
		0,
		`${label}: the main instance sent ${fromMain} requests to the server (executions must run on workers)`,
	);
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
		const bodies = Array.from({ length: count }, (_, i) => ({
			first: `Q${tag}`,
			last: `Q${tag}-${ctx.runId}-${i}`,
		}));
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
			...timesOf(res),
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
		if (!(a.split[w.name] > 0))
			problems.push(
				`1a: ${w.name} ran no execution (split ${JSON.stringify(a.split)}): not spread over both workers`,
			);
		if ((a.auth[w.name] || 0) > 1)
			problems.push(`1a: ${w.name} sent ${a.auth[w.name]} POST /Auth (at most 1 per worker)`);
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
	if (authB !== 0)
		problems.push(
			`1b: ${authB} POST /Auth after the restart (${perProcess(b.auth, workers)}); the stored token should be reused`,
		);
	for (const w of workers)
		if (!(b.split[w.name] > 0))
			problems.push(`1b: ${w.name} ran no execution (split ${JSON.stringify(b.split)})`);
	assert.ok(sandbox.tokensIssued >= 1);
	if (problems.length) throw Object.assign(new Error(problems.join('\n')), { figures });
	return { figures };
}

// ---------------------------------------------------------------------------------------------------------
// 2. The token revoked while executions run

async function tokenRevoked(ctx, { count = 50, expireAfter = 15, latencyMs = 1000 } = {}) {
	const { sandbox, workers } = ctx;
	const m = await ctx.mark();
	const bodies = Array.from({ length: count }, (_, i) => ({
		first: 'Q2',
		last: `Q2-${ctx.runId}-${i}`,
	}));
	const names = new Set(bodies.map((b) => b.last));
	let created = 0;
	let expiredAt = null;
	const off = ctx.onSandboxRequest((r) => {
		if (expiredAt !== null || r.method !== 'POST' || r.path !== '/Contact' || r.status !== 200)
			return;
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
		...timesOf(res),
	};
	const figures = [row];
	try {
		row.split = checkRun(ctx, res, since, { count, label: '2' }).split;
	} catch (e) {
		throw Object.assign(e, { figures });
	}
	const problems = [];
	const total401 = Object.values(refused).reduce((a, b) => a + b, 0);
	if (!total401)
		problems.push(
			'2: no request was refused with 401 after the revocation: the scenario did not revoke a token in use',
		);
	for (const w of workers)
		if ((renewals[w.name] || 0) > 1)
			problems.push(
				`2: ${w.name} renewed the token ${renewals[w.name]} times (at most 1 per worker)`,
			);
	const totalRenewals = Object.values(renewals).reduce((a, b) => a + b, 0);
	if (total401 && totalRenewals < 1) problems.push('2: 401s but no renewal');
	if (problems.length) throw Object.assign(new Error(problems.join('\n')), { figures });
	return { figures };
}

// ---------------------------------------------------------------------------------------------------------
// 3. Faults: 503 on every 5th request, 429 with Retry-After on every 7th; every record exactly once. About 31 % of
// all requests are refused, a resent one included: with the default Max Retries (5), one request in about 350 is
// refused six times running, and the run failed one time in four or five. The workflow allows 10 retries.

async function faults(ctx, { executions = 20, perExecution = 10 } = {}) {
	const { sandbox } = ctx;
	const m = await ctx.mark();
	const bodies = Array.from({ length: executions }, (_, e) => ({
		people: Array.from({ length: perExecution }, (_, i) => ({
			first: 'Q3',
			last: `Q3-${ctx.runId}-${e}-${i}`,
		})),
	}));
	const expected = bodies.flatMap((b) => b.people.map((p) => p.last));
	sandbox.faults.failEvery({
		every: 5,
		status: 503,
		retryAfter: 0,
		reason: 'queue test: every 5th request',
	});
	sandbox.faults.failEvery({
		every: 7,
		status: 429,
		retryAfter: 1,
		reason: 'queue test: every 7th request',
	});
	let res;
	try {
		res = await ctx.fire(BATCH_WORKFLOW.path, bodies);
	} finally {
		sandbox.faults.clear();
	}
	res.expect = (json, i) =>
		Array.isArray(json) &&
		json.length === perExecution &&
		json.every((r, k) => r && r.id && r.lastName === bodies[i].people[k].last);
	const since = await ctx.since(m, BATCH_WORKFLOW.id);
	const contacts = sandbox.store
		.list('Contact')
		.filter((c) => String(c.lastName || '').startsWith(`Q3-${ctx.runId}-`));
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
		...timesOf(res),
		records: contacts.length,
		refused: {
			503: creates.filter((r) => r.status === 503).length,
			429: creates.filter((r) => r.status === 429).length,
		},
		creates: creates.length,
	};
	const figures = [row];
	try {
		row.split = checkRun(ctx, res, since, { count: executions, label: '3' }).split;
		const missing = expected.filter((n) => !perName.has(n));
		const twice = [...perName].filter(([, n]) => n > 1).map(([k, n]) => `${k} x${n}`);
		assert.equal(
			missing.length,
			0,
			`3: ${missing.length} records missing, e.g. ${missing.slice(0, 5).join(', ')}`,
		);
		assert.equal(
			twice.length,
			0,
			`3: records created more than once: ${twice.slice(0, 10).join(', ')}`,
		);
		assert.equal(
			contacts.length,
			executions * perExecution,
			`3: ${contacts.length} records, expected ${executions * perExecution}`,
		);
		assert.ok(
			row.refused[503] > 0 && row.refused[429] > 0,
			`3: the faults did not fire (${JSON.stringify(row.refused)})`,
		);
	} catch (e) {
		throw Object.assign(e, { figures });
	}
	return { figures };
}

// ---------------------------------------------------------------------------------------------------------
// 4. The triggers and e-mail attachments in queue mode. Each scenario publishes its own workflow (imported with the
// others, unpublished until then) and unpublishes it at its end, so the others never see its requests.

const POLLING_WORKFLOW = { id: 'rmsQueuePolling01' };
const WEBHOOK_TRIGGER_WORKFLOW = {
	id: 'rmsQueueWebhookT1',
	webhookId: '6f1c1a52-3d3f-4a57-9d0e-7b1a5c2e0a03',
};
const EMAIL_WORKFLOW = { id: 'rmsQueueEmail0001', path: 'rms-queue-email' };

/** A page read by the polling trigger (Contact, "created"): GET /Contact ordered by createdAt. */
const isPollPage = (r) =>
	r.method === 'GET' && r.path === '/Contact' && r.query && r.query.orderBy === 'createdAt';
const isWorker = (ctx, tag) => ctx.workers.some((w) => w.name === tag);

/** { key: count } of a list of keys */
function tally(keys) {
	const out = {};
	for (const k of keys) out[k] = (out[k] || 0) + 1;
	return out;
}

/** What n8n recorded for each execution (ctx.execution): { id: { status, items: { node: n }, errors } } */
async function recorded(ctx, executions) {
	const out = {};
	for (const e of executions) out[String(e.id)] = await ctx.execution(e.id);
	return out;
}

/** "#12 error: Send Email: <message>" for every execution that did not succeed */
function failures(details) {
	return Object.values(details)
		.filter((d) => d.status !== 'success')
		.map(
			(d) =>
				`#${d.id} ${d.status}: ${
					Object.entries(d.errors)
						.map(([n, m]) => `${n}: ${m}`)
						.join('; ') ||
					d.error ||
					'(no message)'
				}`,
		);
}

/**
 * Publishes a workflow for the length of `fn` and unpublishes it afterwards, also when `fn` fails. n8n 2.41.1 sets
 * triggers up (and removes them) asynchronously after the REST call: both wait for the publication status.
 * fn gets { publishMs, unpublish() } (unpublish() resolves once the triggers are gone).
 */
async function whilePublished(ctx, workflowId, fn) {
	const { main, cookie } = ctx;
	const t0 = Date.now();
	await srv.activateWorkflow(main.baseUrl, cookie, workflowId);
	let published = true;
	const unpublish = async () => {
		published = false;
		await srv.deactivateWorkflow(main.baseUrl, cookie, workflowId);
		await srv.waitForPublication(main.baseUrl, cookie, workflowId, {
			published: false,
			proc: main.proc,
		});
	};
	try {
		await srv.waitForPublication(main.baseUrl, cookie, workflowId, { proc: main.proc });
		return await fn({ publishMs: Date.now() - t0, unpublish });
	} finally {
		if (published) await unpublish().catch(() => undefined);
	}
}

/**
 * 4a. The polling trigger active in queue mode (Contact, "created") → Record > Update setting `description` to
 * `{{ $execution.id }}`: each record's passage is written on the record itself, by the execution that carried it.
 *
 * n8n 2.41.1 refuses a poll time that fires more than once a minute ("The polling interval is too short. It has to be
 * at least a minute": isSubMinuteCron() on each expression), but it checks each entry of Poll Times alone: the
 * workflow has six entries, custom cron expressions at seconds 0, 10, ..., 50 of every minute (one poll every 10 s).
 * The first poll runs at activation (before the publication status reads "published") and only notes where the list
 * stands: it must start no execution. Then
 * `count - midPoll` contacts are created in three bursts (100 in one millisecond, so within one second; 1.1 s later
 * 100 more; then the rest), and `midPoll` more at the moment the server has answered a page of the next poll, while
 * that poll runs (they are newer than everything it read; the next poll must find them). The scenario waits until
 * every record is marked, then for one more complete poll (which must find nothing), then for the executions to end.
 */
async function pollingTrigger(ctx, { count = 300, midPoll = 50 } = {}) {
	const { sandbox } = ctx;
	const wf = POLLING_WORKFLOW;
	const prefix = `Q4a-${ctx.runId}-`;
	const pages = [];
	const offPages = ctx.onSandboxRequest((r) => isPollPage(r) && pages.push(r));
	const created = [];
	const make = (n) => {
		for (let i = 0; i < n; i++)
			created.push(
				sandbox.store.create('Contact', {
					firstName: 'Q4a',
					lastName: `${prefix}${created.length}`,
				}).id,
			);
	};
	const m = await ctx.mark();
	const enqueuedBefore = ctx.enqueuedByMain();
	let markedCount = 0;
	let midPollPage;
	let firstPoll;
	let t1;
	let t2;
	try {
		await whilePublished(ctx, wf.id, async () => {
			firstPoll = pages.length;
			assert.ok(firstPoll >= 1, '4a: publishing ran no poll (the first poll runs at activation)');
			t1 = Date.now();
			// between polls: bursts, many records in the same second
			make(100);
			await srv.sleep(1100);
			make(100);
			await srv.sleep(400);
			make(count - midPoll - 200);
			// while a poll runs: as soon as the server has answered one of its pages
			await new Promise((resolve, reject) => {
				const timer = setTimeout(() => {
					off();
					reject(
						new Error(
							'4a: no poll within 90 s after the records were created (one is due every 10 s)',
						),
					);
				}, 90000);
				const off = ctx.onSandboxRequest((r) => {
					if (!isPollPage(r) || r.status !== 200) return;
					off();
					clearTimeout(timer);
					midPollPage = { offset: r.query.offset, pollStartedAt: r.startedAt };
					make(midPoll);
					resolve();
				});
			});
			await srv.waitFor(
				`4a: all ${count} records marked by an execution`,
				() =>
					(markedCount = created.filter(
						(id) => (sandbox.store.get('Contact', id) || {}).description,
					).length) === count,
				{ timeoutMs: 300000, intervalMs: 250 },
			);
			t2 = Date.now();
			// one more complete poll: it must find nothing
			// a poll is due every 10 s; on a loaded machine n8n may start one late
			await srv.waitFor(
				'4a: one more poll after the last record was marked',
				() => pages.some((p) => p.startedAt > t2 && p.endedAt),
				{
					timeoutMs: 90000,
					intervalMs: 200,
				},
			);
			await srv.sleep(1000);
		});
	} catch (e) {
		offPages();
		throw Object.assign(e, {
			figures: [
				{
					scenario: '4a polling trigger',
					executions: '-',
					ok: '-',
					details: [
						`${markedCount} of ${created.length} records marked; ${pages.length} poll pages read`,
					],
				},
			],
		});
	}
	offPages();
	const since = await ctx.since(m, wf.id);
	const finishedBy = ctx.finishedBy();
	const enqueued = [...ctx.enqueuedByMain()].filter((id) => !enqueuedBefore.has(id));
	const ours = new Set(created);
	const puts = since.requests.filter((r) => r.method === 'PUT' && r.path.startsWith('/Contact/'));
	const putsPerRecord = tally(
		puts.map((r) => decodeURIComponent(r.path.slice('/Contact/'.length))),
	);
	const byExecution = {};
	for (const id of created) {
		const execution = String((sandbox.store.get('Contact', id) || {}).description || '');
		(byExecution[execution] = byExecution[execution] || []).push(id);
	}
	const statuses = tally(since.executions.map((e) => e.status));
	const executionIds = since.executions.map((e) => String(e.id));
	const details = await recorded(ctx, since.executions);
	const split = {};
	for (const id of executionIds)
		if (finishedBy[id]) split[finishedBy[id]] = (split[finishedBy[id]] || 0) + 1;
	const recordsPerWorker = {};
	for (const [execution, ids] of Object.entries(byExecution))
		recordsPerWorker[finishedBy[execution] || '?'] =
			(recordsPerWorker[finishedBy[execution] || '?'] || 0) + ids.length;
	const polls = pages.filter((p) => String(p.query.offset) === '0');
	const pollTags = tally(pages.map(tagOf));
	const putTags = tally(puts.map(tagOf));
	// the trigger's state in the workflow's static data (the database), as main saved it
	let cursor = '?';
	try {
		const state = JSON.parse(
			(await ctx.sql(`SELECT "staticData" FROM workflow_entity WHERE id = '${wf.id}'`)).out.trim(),
		)['node:New Contact'];
		cursor = `since ${new Date(state.since).toISOString()}, ${state.seenAtSince.length} ids seen at that second`;
	} catch {}
	const row = {
		scenario: `4a polling trigger, ${count} records created between and during polls`,
		executions: since.executions.length,
		ok: statuses.success || 0,
		split,
		auth: countBy(since.requests, isAuth),
		unauthorized: countBy(since.requests, (r) => r.status === 401),
		ms: t2 - t1,
		details: [
			`${polls.length} polls (${pages.length} pages read, by ${perProcess(pollTags, [])}), the first at activation; ` +
				`one every 10 s (six Poll Times entries at seconds 0, 10, ..., 50)`,
			`records marked per execution: ${Object.entries(byExecution)
				.map(([e, ids]) => `#${e} ${ids.length} (${finishedBy[e] || '?'})`)
				.join(', ')}; trigger items per execution (n8n's run data): ${Object.values(details)
				.map((d) => `#${d.id} ${d.items['New Contact']}`)
				.join(
					', ',
				)}; ${midPoll} created while a poll read page offset ${midPollPage && midPollPage.offset}`,
			`records per worker: ${perProcess(recordsPerWorker, ctx.workers)}; PUT /Contact/{id} by ${perProcess(putTags, ctx.workers)}`,
			`executions enqueued by main ("Enqueued execution" in its log): ${enqueued.length}; the trigger's state in the database: ${cursor}`,
		],
	};
	const figures = [row];
	const problems = [];
	const missing = created.filter((id) => !putsPerRecord[id]);
	const twice = created
		.filter((id) => putsPerRecord[id] > 1)
		.map((id) => `${id} x${putsPerRecord[id]}`);
	const strangers = Object.keys(putsPerRecord).filter((id) => !ours.has(id));
	if (missing.length)
		problems.push(
			`4a: ${missing.length} of ${count} records were never updated, e.g. ${missing.slice(0, 5).join(', ')}`,
		);
	if (twice.length)
		problems.push(
			`4a: ${twice.length} records were updated more than once (emitted twice): ${twice.slice(0, 10).join(', ')}`,
		);
	if (strangers.length)
		problems.push(
			`4a: ${strangers.length} records that existed before the first poll were emitted: ${strangers.slice(0, 5).join(', ')}`,
		);
	const unmarked = Object.keys(byExecution).filter((e) => !executionIds.includes(e));
	if (unmarked.length)
		problems.push(
			`4a: records carry execution ids n8n does not list for the workflow: ${unmarked.join(', ')}`,
		);
	const empty = executionIds.filter((e) => !byExecution[e]);
	if (empty.length)
		problems.push(
			`4a: executions that marked no record: ${empty.join(', ')} (a poll emitted an empty or repeated batch)`,
		);
	if ((statuses.success || 0) !== since.executions.length)
		problems.push(
			`4a: execution statuses ${JSON.stringify(statuses)}: ${failures(details).join('; ')}`,
		);
	for (const d of Object.values(details)) {
		const marks = (byExecution[d.id] || []).length;
		if (d.items['New Contact'] !== marks || d.items['Mark Contact'] !== marks)
			problems.push(
				`4a: execution #${d.id}: n8n recorded ${d.items['New Contact']} trigger items and ${d.items['Mark Contact']} updates, the sandbox ${marks} records marked by it`,
			);
	}
	const notOnWorker = executionIds.filter((e) => !finishedBy[e]);
	if (notOnWorker.length)
		problems.push(`4a: executions no worker's log shows as finished: ${notOnWorker.join(', ')}`);
	const notEnqueued = executionIds.filter((e) => !enqueued.includes(e));
	if (notEnqueued.length)
		problems.push(`4a: executions main did not enqueue: ${notEnqueued.join(', ')}`);
	const pollNotMain = pages.filter((p) => tagOf(p) !== 'main').length;
	if (pollNotMain)
		problems.push(
			`4a: ${pollNotMain} poll requests came from a worker (${JSON.stringify(pollTags)}): pollers must run on main only`,
		);
	const putNotWorker = puts.filter((r) => !isWorker(ctx, tagOf(r))).length;
	if (putNotWorker)
		problems.push(
			`4a: ${putNotWorker} updates came from main (${JSON.stringify(putTags)}): executions must run on workers`,
		);
	const putFailed = puts.filter((r) => r.status !== 200).length;
	if (putFailed) problems.push(`4a: ${putFailed} updates were answered other than 200`);
	if (polls.length < firstPoll + 2) problems.push(`4a: only ${polls.length} polls`);
	if (problems.length) throw Object.assign(new Error(problems.join('\n')), { figures });
	return { figures };
}

/** base64("<webhookId>:" + raw HMAC-SHA256 of the body), as EspoCRM signs a delivery. */
function espoSignature(webhookId, secret, body) {
	return Buffer.concat([
		Buffer.from(`${webhookId}:`),
		crypto.createHmac('sha256', secret).update(body).digest(),
	]).toString('base64');
}

/**
 * 4b. The webhook trigger (Contact; create and update; Include Full Record) → Record > Create a Task named after
 * the contact, described `<execution id>|<the record's description>` (an update's delivery carries only the
 * changed description and the id: the Task has the contact's last name only when the trigger read the full record).
 * Publishing registers one EspoCRM webhook per event with main's production URL; three rounds of changes (60
 * creates; 60 updates + 40 creates; 40 updates), each delivered with sandbox.webhooks.deliver() (batches of up to 50
 * records per request); a forged signature (401) and an unknown webhook id (410) sent by hand; unpublishing deletes
 * the webhooks. Every delivery must start exactly one execution, every record reach exactly one execution.
 */
async function webhookTriggerDeliveries(ctx) {
	const { sandbox, main } = ctx;
	const wf = WEBHOOK_TRIGGER_WORKFLOW;
	const url = `${main.baseUrl}/webhook/${wf.webhookId}/webhook`;
	const prefix = `Q4b-${ctx.runId}-`;
	const known = new Set(sandbox.webhooks.list().map((w) => w.id));
	const deliveriesBefore = sandbox.webhooks.deliveries.length;
	const m = await ctx.mark();
	const contacts = [];
	const create = (n) => {
		for (let i = 0; i < n; i++)
			contacts.push(
				sandbox.store.create('Contact', {
					firstName: 'Q4b',
					lastName: `${prefix}${contacts.length}`,
				}),
			);
	};
	const update = (list) =>
		list.forEach((c) =>
			sandbox.store.update('Contact', c.id, { description: `updated ${c.lastName}` }),
		);
	const problems = [];
	let registered = [];
	let forged;
	let unknownId;
	let afterUnpublish;
	let t1;
	let deliverMs = 0;
	const deliver = async () => {
		const t = Date.now();
		const r = await sandbox.webhooks.deliver();
		deliverMs += Date.now() - t;
		return r;
	};
	const reports = [];
	let executionsBeforeForgery;
	await whilePublished(ctx, wf.id, async ({ unpublish }) => {
		registered = sandbox.webhooks.list().filter((w) => !known.has(w.id));
		const events = registered.map((w) => w.event).sort();
		assert.deepEqual(
			events,
			['Contact.create', 'Contact.update'],
			`4b: publishing registered ${JSON.stringify(events)}`,
		);
		for (const w of registered)
			assert.equal(
				w.url,
				url,
				`4b: webhook ${w.event} registered with ${w.url}, expected main's production URL ${url}`,
			);
		await srv.waitForWebhook(main.baseUrl, `${wf.webhookId}/webhook`, { proc: main.proc });
		t1 = Date.now();
		create(60);
		reports.push(await deliver());
		update(contacts.slice(0, 60));
		create(40);
		reports.push(await deliver());
		update(contacts.slice(60));
		reports.push(await deliver());
		const delivered = reports
			.flatMap((r) => r.requests)
			.filter((r) => r.outcome === 'delivered').length;
		await srv.waitFor(
			`4b: ${delivered} executions listed`,
			async () =>
				(await srv.listExecutions(main.baseUrl, ctx.cookie, { workflowId: wf.id })).filter(
					(e) => !m.rest.has(String(e.id)),
				).length >= delivered,
			{ timeoutMs: 180000, intervalMs: 300 },
		);
		executionsBeforeForgery = delivered;
		// a delivery with a wrong signature, and one naming a webhook the trigger does not have
		const body = JSON.stringify([{ id: 'forged0000000001', lastName: `${prefix}forged` }]);
		const headers = { 'content-type': 'application/json' };
		forged = await srv.n8nRequest('POST', url, {
			body,
			headers: {
				...headers,
				'x-signature': espoSignature(registered[0].id, 'not-the-secret', body),
			},
		});
		unknownId = await srv.n8nRequest('POST', url, {
			body,
			headers: { ...headers, 'x-signature': espoSignature('unknownWebhook01', 'whatever', body) },
		});
		await srv.sleep(1500);
		await unpublish();
		afterUnpublish = sandbox.webhooks.list().filter((w) => registered.some((r) => r.id === w.id));
	});
	const since = await ctx.since(m, wf.id);
	const finishedBy = ctx.finishedBy();
	const requests = reports.flatMap((r) => r.requests);
	const deliveries = sandbox.webhooks.deliveries.slice(deliveriesBefore);
	const statuses = tally(since.executions.map((e) => e.status));
	const executionIds = since.executions.map((e) => String(e.id));
	const details = await recorded(ctx, since.executions);
	const split = {};
	for (const id of executionIds)
		if (finishedBy[id]) split[finishedBy[id]] = (split[finishedBy[id]] || 0) + 1;
	const tasks = sandbox.store
		.list('Task')
		.filter(
			(t) =>
				String(t.name || '').startsWith(prefix) || String(t.description || '').includes(prefix),
		);
	const tasksByExecution = {};
	const perContact = {};
	for (const t of tasks) {
		const [execution, description] = String(t.description || '').split('|');
		(tasksByExecution[execution] = tasksByExecution[execution] || []).push(t);
		const kind = description ? 'update' : 'create';
		const key = `${t.name}|${kind}`;
		perContact[key] = (perContact[key] || 0) + 1;
		if (kind === 'update' && description !== `updated ${t.name}`)
			problems.push(
				`4b: task ${t.id} "${t.name}": description "${description}" is not that contact's`,
			);
	}
	const reads = since.requests.filter(
		(r) => r.method === 'GET' && /^\/Contact\/[^/]+$/.test(r.path),
	);
	const taskCreates = since.requests.filter((r) => r.method === 'POST' && r.path === '/Task');
	const hookCalls = since.requests.filter(
		(r) => r.path === '/Webhook' || r.path.startsWith('/Webhook/'),
	);
	const row = {
		scenario: `4b webhook trigger: ${contacts.length} creates + ${contacts.length} updates in ${requests.length} deliveries`,
		executions: since.executions.length,
		ok: statuses.success || 0,
		split,
		auth: countBy(since.requests, isAuth),
		unauthorized: countBy(since.requests, (r) => r.status === 401),
		ms: Date.now() - t1,
		details: [
			`deliveries (records per request): ${requests.map((r) => `${r.event.split('.')[1]} ${r.count} → ${r.status}`).join(', ')}; deliver() took ${(deliverMs / 1000).toFixed(1)} s in all`,
			`records per execution: ${Object.entries(tasksByExecution)
				.map(([e, list]) => `#${e} ${list.length} (${finishedBy[e] || '?'})`)
				.join(', ')}`,
			`full-record reads GET /Contact/{id} by ${perProcess(countBy(reads), ctx.workers)}; POST /Task by ${perProcess(countBy(taskCreates), ctx.workers)}; ` +
				`webhook registration and removal: ${hookCalls.map((r) => `${r.method} ${r.status} (${tagOf(r)})`).join(', ')}`,
			`forged signature → ${forged && forged.status}, unknown webhook id → ${unknownId && unknownId.status}; after unpublishing ${afterUnpublish ? afterUnpublish.length : '?'} of ${registered.length} webhooks left`,
		],
	};
	const figures = [row];
	const delivered = requests.filter((r) => r.outcome === 'delivered');
	if (delivered.length !== requests.length)
		problems.push(
			`4b: deliveries not accepted: ${JSON.stringify(requests.filter((r) => r.outcome !== 'delivered'))}`,
		);
	if (deliveries.length !== requests.length)
		problems.push(
			`4b: the sandbox made ${deliveries.length} delivery requests, its reports say ${requests.length}`,
		);
	if (since.executions.length !== delivered.length)
		problems.push(
			`4b: ${since.executions.length} executions for ${delivered.length} deliveries (exactly one each)`,
		);
	if ((statuses.success || 0) !== since.executions.length)
		problems.push(
			`4b: execution statuses ${JSON.stringify(statuses)}: ${failures(details).join('; ')}`,
		);
	for (const d of Object.values(details)) {
		const tasksOf = (tasksByExecution[d.id] || []).length;
		if (d.items['Contact Changed'] !== tasksOf || d.items['Record as Task'] !== tasksOf)
			problems.push(
				`4b: execution #${d.id}: n8n recorded ${d.items['Contact Changed']} trigger items and ${d.items['Record as Task']} tasks created, the sandbox ${tasksOf} tasks from it`,
			);
	}
	const triggerItems = Object.values(details)
		.map((d) => d.items['Contact Changed'])
		.sort((a, b) => a - b);
	const notOnWorker = executionIds.filter((e) => !finishedBy[e]);
	if (notOnWorker.length)
		problems.push(`4b: executions no worker's log shows as finished: ${notOnWorker.join(', ')}`);
	const itemsPerExecution = Object.values(tasksByExecution)
		.map((l) => l.length)
		.sort((a, b) => a - b);
	const recordsPerDelivery = delivered.map((r) => r.count).sort((a, b) => a - b);
	if (
		JSON.stringify(itemsPerExecution) !== JSON.stringify(recordsPerDelivery) ||
		JSON.stringify(triggerItems) !== JSON.stringify(recordsPerDelivery)
	)
		problems.push(
			`4b: records per execution ${JSON.stringify(itemsPerExecution)} (tasks) and ${JSON.stringify(triggerItems)} (n8n's trigger items) do not match records per delivery ${JSON.stringify(recordsPerDelivery)}`,
		);
	const foreign = Object.keys(tasksByExecution).filter((e) => !executionIds.includes(e));
	if (foreign.length)
		problems.push(
			`4b: tasks carry execution ids n8n does not list for the workflow: ${foreign.join(', ')}`,
		);
	for (const c of contacts) {
		for (const kind of ['create', 'update']) {
			const n = perContact[`${c.lastName}|${kind}`] || 0;
			if (n !== 1)
				problems.push(
					`4b: the ${kind} of ${c.lastName} reached ${n} executions (exactly 1 expected${kind === 'update' ? '; as a full record, with its last name' : ''})`,
				);
		}
	}
	if (tasks.length !== contacts.length * 2)
		problems.push(`4b: ${tasks.length} tasks, expected ${contacts.length * 2}`);
	if (forged.status !== 401)
		problems.push(`4b: a forged signature got ${forged.status}, expected 401`);
	if (unknownId.status !== 410)
		problems.push(`4b: an unknown webhook id got ${unknownId.status}, expected 410`);
	if (since.executions.length !== executionsBeforeForgery)
		problems.push(`4b: the forged deliveries started executions`);
	if (tasks.some((t) => t.name === `${prefix}forged`))
		problems.push('4b: the forged delivery reached the workflow');
	if (afterUnpublish.length)
		problems.push(
			`4b: unpublishing left ${afterUnpublish.length} webhooks in the sandbox: ${afterUnpublish.map((w) => w.event).join(', ')}`,
		);
	const deletes = hookCalls.filter((r) => r.method === 'DELETE' && r.status === 200).length;
	if (deletes !== registered.length)
		problems.push(
			`4b: ${deletes} DELETE /Webhook/{id} answered 200, expected ${registered.length}`,
		);
	const notMainHook = hookCalls.filter((r) => tagOf(r) !== 'main').length;
	if (notMainHook)
		problems.push(`4b: ${notMainHook} webhook registration requests came from a worker`);
	const taskFromMain = taskCreates.filter((r) => !isWorker(ctx, tagOf(r))).length;
	if (taskFromMain)
		problems.push(`4b: ${taskFromMain} POST /Task came from main: executions must run on workers`);
	if (problems.length)
		throw Object.assign(new Error(problems.slice(0, 30).join('\n')), { figures });
	return { figures };
}

/** A multipart/form-data body: fields { name: value } and files [{ field, filename, type, data }]. */
function multipart(fields, files) {
	const boundary = `----rms-queue-${crypto.randomBytes(12).toString('hex')}`;
	const parts = [];
	for (const [name, value] of Object.entries(fields))
		parts.push(
			Buffer.from(
				`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
			),
		);
	for (const f of files) {
		parts.push(
			Buffer.from(
				`--${boundary}\r\nContent-Disposition: form-data; name="${f.field}"; filename="${f.filename}"\r\nContent-Type: ${f.type}\r\n\r\n`,
			),
		);
		parts.push(f.data, Buffer.from('\r\n'));
	}
	parts.push(Buffer.from(`--${boundary}--\r\n`));
	return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

/**
 * 4c. E-mail attachments from binary data when the execution runs on a worker: n8n's Webhook node (on main) takes
 * a multipart upload with two files, a small text file ("note") and `bigBytes` random bytes ("blob"), and stores them
 * as binary data; Email > Send (EspoCRM API key, on a worker) attaches both (`emailOptions.attachments:
 * "note, blob"`): POST /Attachment for each, then POST /Email with their ids. `uploads` requests at once.
 * Binary data must be where every process reads it: N8N_DEFAULT_BINARY_DATA_MODE=database (queueEnv()).
 */
async function emailAttachmentsOnWorkers(ctx, { uploads = 2, bigBytes = 5 * 1024 * 1024 } = {}) {
	const { sandbox, main } = ctx;
	const wf = EMAIL_WORKFLOW;
	const sent = Array.from({ length: uploads }, (_, i) => ({
		subject: `Q4c-${ctx.runId}-${i}`,
		note: {
			field: 'note',
			filename: `note-${ctx.runId}-${i}.txt`,
			type: 'text/plain',
			data: Buffer.from(`Queue test ${ctx.runId}, upload ${i}\nSecond line: äöü ✓\n`),
		},
		blob: {
			field: 'blob',
			filename: `blob-${ctx.runId}-${i}.bin`,
			type: 'application/octet-stream',
			data: crypto.randomBytes(bigBytes),
		},
	}));
	const outboxBefore = sandbox.outbox.length;
	let res;
	let since;
	const m = await ctx.mark();
	await whilePublished(ctx, wf.id, async () => {
		await srv.waitForWebhook(main.baseUrl, wf.path, { proc: main.proc });
		const started = Date.now();
		const responses = await Promise.all(
			sent.map((s) => {
				const { body, contentType } = multipart({ to: 'ada@example.com', subject: s.subject }, [
					s.note,
					s.blob,
				]);
				return srv
					.request('POST', `${main.baseUrl}/webhook/${wf.path}`, {
						body,
						headers: { 'content-type': contentType },
						timeoutMs: 120000,
					})
					.catch((e) => ({ status: 0, text: e.message, ms: Date.now() - started }));
			}),
		);
		res = { responses, ms: Date.now() - started };
		since = await ctx.since(m, wf.id);
	});
	const finishedBy = ctx.finishedBy();
	const statuses = tally(since.executions.map((e) => e.status));
	const details = await recorded(ctx, since.executions);
	const split = {};
	for (const e of since.executions)
		if (finishedBy[e.id]) split[finishedBy[e.id]] = (split[finishedBy[e.id]] || 0) + 1;
	const uploadsSeen = since.requests.filter((r) => r.method === 'POST' && r.path === '/Attachment');
	const mails = since.requests.filter((r) => r.method === 'POST' && r.path === '/Email');
	// where n8n kept the uploaded files: with N8N_DEFAULT_BINARY_DATA_MODE=database, rows of its binary_data table
	const binaryRows = (
		await ctx.sql(`SELECT "fileName" || '|' || "fileSize" || '|' || "sourceType" FROM binary_data`)
	).out
		.split('\n')
		.map((l) => l.trim().split('|'))
		.filter((f) => f.length === 3)
		.map(([fileName, fileSize, sourceType]) => ({
			fileName,
			fileSize: Number(fileSize),
			sourceType,
		}));
	const row = {
		scenario: `4c e-mail attachments on workers (${uploads} uploads, ${(bigBytes / 1048576).toFixed(0)} MiB + text each)`,
		executions: since.executions.length,
		ok: statuses.success || 0,
		split,
		auth: countBy(since.requests, isAuth),
		unauthorized: countBy(since.requests, (r) => r.status === 401),
		...timesOf(res),
		details: [
			`POST /Attachment by ${perProcess(countBy(uploadsSeen), ctx.workers)} (${uploadsSeen.map((r) => r.status).join(', ')}); ` +
				`POST /Email by ${perProcess(countBy(mails), ctx.workers)}; n8n's binary_data table: ${binaryRows.length} files, ` +
				`${binaryRows.reduce((n, b) => n + b.fileSize, 0)} bytes (${Object.entries(
					tally(binaryRows.map((b) => b.sourceType)),
				)
					.map(([k, v]) => `${k} ${v}`)
					.join(', ')})`,
		],
	};
	const figures = [row];
	const problems = [];
	res.responses.forEach((r, i) => {
		if (r.status !== 200)
			problems.push(`4c: upload #${i}: HTTP ${r.status} ${String(r.text).slice(0, 300)}`);
		else if (!r.json || r.json.status !== 'Sent')
			problems.push(`4c: upload #${i}: the workflow answered ${String(r.text).slice(0, 300)}`);
	});
	if (since.executions.length !== uploads)
		problems.push(`4c: ${since.executions.length} executions for ${uploads} uploads`);
	if ((statuses.success || 0) !== since.executions.length)
		problems.push(
			`4c: execution statuses ${JSON.stringify(statuses)}: ${failures(details).join('; ')}`,
		);
	const notOnWorker = since.executions.filter((e) => !finishedBy[e.id]).map((e) => e.id);
	if (notOnWorker.length)
		problems.push(`4c: executions no worker's log shows as finished: ${notOnWorker.join(', ')}`);
	const fromMain = since.requests.filter((r) => !isWorker(ctx, tagOf(r))).length;
	if (fromMain)
		problems.push(
			`4c: ${fromMain} requests to the server came from main: executions must run on workers`,
		);
	const outbox = sandbox.outbox.slice(outboxBefore);
	let identical = 0;
	for (const s of sent) {
		const mailsOf = outbox.filter((o) => o.subject === s.subject);
		if (mailsOf.length !== 1) {
			problems.push(
				`4c: ${mailsOf.length} e-mails went out with subject ${s.subject} (exactly 1 expected)`,
			);
			continue;
		}
		const ids = mailsOf[0].attachmentIds || [];
		if (ids.length !== 2)
			problems.push(
				`4c: the e-mail ${s.subject} went out with ${ids.length} attachments: ${JSON.stringify(ids)}`,
			);
		for (const f of [s.note, s.blob]) {
			if (!binaryRows.some((b) => b.fileName === f.filename && b.fileSize === f.data.length))
				problems.push(
					`4c: ${f.filename} (${f.data.length} bytes) is not in n8n's binary_data table: the binary data is not in the shared database`,
				);
			const id = ids.find((a) => (sandbox.store.get('Attachment', a) || {}).name === f.filename);
			const stored = id && sandbox.store.files.get(id);
			if (!id)
				problems.push(
					`4c: ${s.subject}: no attachment named ${f.filename} among ${JSON.stringify(ids)}`,
				);
			else if (!stored || !stored.equals(f.data))
				problems.push(
					`4c: ${s.subject}: the sandbox stored ${stored ? stored.length : 'no'} bytes for ${f.filename}, not the ${f.data.length} sent (or other bytes)`,
				);
			else identical += f.data.length;
		}
	}
	row.details.push(
		`${outbox.length} e-mails sent, ${outbox.reduce((n, o) => n + (o.attachmentIds || []).length, 0)} attachments, ` +
			`${sent.reduce((n, s) => n + s.note.data.length + s.blob.data.length, 0)} bytes uploaded, ${identical} of them stored byte for byte in sandbox.store.files`,
	);
	if (problems.length) throw Object.assign(new Error(problems.join('\n')), { figures });
	return { figures };
}

/** A run's wall time and the median and 95th percentile of its executions' times, for the figures' table. */
function timesOf(res) {
	const times = res.responses.map((r) => r.ms);
	return { ms: res.ms, p50: percentile(times, 0.5), p95: percentile(times, 0.95) };
}

function percentile(values, p) {
	if (!values.length) return 0;
	const s = [...values].sort((a, b) => a - b);
	return s[Math.min(s.length - 1, Math.floor(p * s.length))];
}

const SCENARIOS = [
	{
		key: 'first-use',
		title:
			'1 first use and worker restart: at most one POST /Auth per worker, none after the restart',
		run: firstUse,
	},
	{
		key: 'token-revoked',
		title: '2 token revoked while executions run: all succeed, at most one renewal per worker',
		run: tokenRevoked,
	},
	{
		key: 'faults',
		title:
			'3 faults (503, 429 + Retry-After): 20 executions x 10 creates = every record exactly once',
		run: faults,
	},
	{
		key: 'polling-trigger',
		title:
			'4a polling trigger in queue mode: 300 records, each in exactly one execution, polled by main only',
		run: pollingTrigger,
	},
	{
		key: 'webhook-trigger',
		title:
			'4b webhook trigger: registration, one execution per delivery, 401 for a forged one, removal',
		run: webhookTriggerDeliveries,
	},
	{
		key: 'email-attachments',
		title: '4c e-mail attachments from binary data on workers: the bytes sent are the bytes stored',
		run: emailAttachmentsOnWorkers,
	},
];

module.exports = {
	SCENARIOS,
	CONTACT_WORKFLOW,
	BATCH_WORKFLOW,
	POLLING_WORKFLOW,
	WEBHOOK_TRIGGER_WORKFLOW,
	EMAIL_WORKFLOW,
	countBy,
	perProcess,
	tagOf,
};
