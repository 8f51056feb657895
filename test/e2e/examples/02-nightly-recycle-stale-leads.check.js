'use strict';
/**
 * examples/02-nightly-recycle-stale-leads.json (API key, EspoCRM server), run from its Manual Trigger: Record > Get
 * Many of the New leads not modified for 30 days, then Bulk > Mass Update setting them Recycled, in one request.
 * (n8n 2.41.1's `n8n execute` would start at the Schedule Trigger, the first trigger in the file's node list; the
 * runner lists the Manual Trigger first, and the check makes sure that only it ran.)
 *
 * `before` seeds leads in the past (sandbox.store.create takes createdAt and modifiedAt): three stale New ones (to
 * recycle), two New ones modified recently (one of them created long ago: modifiedAt counts, not createdAt) and a
 * stale one of another status. The sandbox holds the demo data of `npm run dev`, whose stale New leads the example
 * recycles too, as it would in the dev editor: they are expected with the check's own, and the demo leads it must
 * not touch are checked to be left alone.
 *
 * The leads nearest the limit are 32 and 28 days old, not 31 and 29: olderThanXDays counts whole days in the
 * workflow's time zone (America/New_York) from the start of a local day, so a lead 31 × 24 hours old is not yet
 * older than 30 days when the run falls in the hour that a change of daylight saving time moves across midnight
 * (seen on 2026-11-25 at 04:48 UTC, 23:48 in New York: 31 days earlier was 00:48 EDT of the limit day).
 */
const { formatDateTime } = require('../../sandbox/util');

const daysAgo = (n) => formatDateTime(Date.now() - n * 24 * 3600 * 1000);

module.exports = (result, sandbox, assert) => {
	const { fresh, other, leftAlone } = sandbox.state;
	// the check's stale leads and those of the demo data
	const stale = [...sandbox.state.stale, ...sandbox.state.staleBefore];
	for (const r of sandbox.requests)
		assert.equal(r.headers['x-api-key'], 'sandbox-api-key', `${r.method} ${r.path}: X-Api-Key`);
	// started from the Manual Trigger only (the runner lists it first: see manualTriggerFirst in test/lib/e2e-runner.js)
	assert.deepEqual(result.nodesRun, [
		'When clicking ‘Execute workflow’',
		'New leads older than 30 days',
		'Mark them Recycled',
	]);

	// the search: status New and modifiedAt older than 30 days
	const [search, ...more] = sandbox.find('GET', '/Lead');
	assert.equal(more.length, 0);
	const where = search.query.where;
	assert.deepEqual(where[0], { type: 'equals', attribute: 'status', value: 'New' });
	assert.equal(where[1].type, 'olderThanXDays');
	assert.equal(where[1].attribute, 'modifiedAt');
	assert.equal(String(where[1].value), '30');
	assert.equal(String(where[1].dateTime), 'true');
	const found = result.items('New leads older than 30 days');
	assert.deepEqual(
		found.map((l) => l.id).sort(),
		[...stale].sort(),
		'found exactly the stale New leads',
	);

	// one mass update (EspoCRM: POST /MassAction) with their ids
	const mass = sandbox.find('POST', '/MassAction');
	assert.equal(mass.length, 1);
	assert.deepEqual(
		{ ...mass[0].body, params: { ids: [...mass[0].body.params.ids].sort() } },
		{
			entityType: 'Lead',
			action: 'update',
			params: { ids: [...stale].sort() },
			data: { status: 'Recycled' },
		},
	);
	assert.equal(sandbox.requests.length, 2, 'two requests in all');

	// afterwards
	for (const id of stale)
		assert.equal(sandbox.store.get('Lead', id).status, 'Recycled', `stale lead ${id}`);
	for (const id of fresh)
		assert.equal(sandbox.store.get('Lead', id).status, 'New', `recent lead ${id} left alone`);
	assert.equal(
		sandbox.store.get('Lead', other).status,
		'Assigned',
		'a stale lead of another status left alone',
	);
	for (const [id, status] of Object.entries(leftAlone))
		assert.equal(sandbox.store.get('Lead', id).status, status, `demo lead ${id} left alone`);
};

module.exports.credential = 'devEspo';

module.exports.before = (sandbox) => {
	const lead = (lastName, status, createdDaysAgo, modifiedDaysAgo) =>
		sandbox.store.create('Lead', {
			firstName: 'Example02',
			lastName,
			status,
			createdAt: daysAgo(createdDaysAgo),
			modifiedAt: daysAgo(modifiedDaysAgo),
		}).id;
	// the leads already there (the demo data): New ones clearly older than 30 days are the example's too; one near
	// the limit would make the expectation depend on the hour (see above), so there must be none
	const existing = sandbox.store.list('Lead');
	const nearLimit = existing.filter(
		(l) => l.status === 'New' && l.modifiedAt < daysAgo(28) && l.modifiedAt >= daysAgo(32),
	);
	if (nearLimit.length)
		throw new Error(
			`New leads modified 28 to 32 days ago exist before the example ran: ${nearLimit.map((l) => l.id).join(', ')}`,
		);
	const staleBefore = existing.filter((l) => l.status === 'New' && l.modifiedAt < daysAgo(32));
	sandbox.state.staleBefore = staleBefore.map((l) => l.id);
	sandbox.state.leftAlone = Object.fromEntries(
		existing.filter((l) => !staleBefore.includes(l)).map((l) => [l.id, l.status]),
	);
	sandbox.state.stale = [
		lead('E2eExample-Stale-1', 'New', 45, 45),
		lead('E2eExample-Stale-2', 'New', 120, 32),
		lead('E2eExample-Stale-3', 'New', 400, 365),
	];
	sandbox.state.fresh = [
		lead('E2eExample-Fresh-1', 'New', 2, 2),
		lead('E2eExample-Fresh-2', 'New', 90, 28),
	];
	sandbox.state.other = lead('E2eExample-Assigned', 'Assigned', 90, 60);
};
