'use strict';
/* Helpers for the checks of test/espocrm/workflows (not workflows themselves). */

/** Runs `fn` over `items`, at most `parallel` at a time (PHP's server has 4 workers). */
async function pool(items, parallel, fn) {
	const out = new Array(items.length);
	let next = 0;
	const worker = async () => {
		while (next < items.length) {
			const i = next++;
			out[i] = await fn(items[i], i);
		}
	};
	await Promise.all(Array.from({ length: Math.min(parallel, items.length) }, worker));
	return out;
}

/** "what was asked" text for assertion messages: the requests of a method and path. */
function sent(espo, method, path) {
	return espo
		.find(method, path)
		.map((r) => `${r.status} ${r.method} ${decodeURIComponent(r.url)}`)
		.join('\n');
}

/**
 * A deleted record: EspoCRM 8.1.5 keeps it (deleted = 1). An API user gets 404; an admin still reads it, with
 * `deleted: true` (admins may restore deleted records).
 */
async function assertDeleted(espo, assert, entityType, id, label = `${entityType} ${id}`) {
	const asUser = await espo.client('apiKey').get(`/${entityType}/${id}`);
	assert.equal(
		asUser.status,
		404,
		`${label}: GET as the API user after the delete: ${asUser.status}`,
	);
	const asAdmin = await espo.api.get(`/${entityType}/${id}`);
	assert.ok(
		asAdmin.status === 404 || (asAdmin.status === 200 && asAdmin.body.deleted === true),
		`${label}: GET as admin: ${asAdmin.status} deleted=${asAdmin.body && asAdmin.body.deleted}`,
	);
}

/**
 * The requests EspoCRM served during the execution about these entity types (`/Contact`, `/Contact/…`). The phases
 * (webhook trigger, forms) run alongside the workflows against the same EspoCRM, and their requests (POST /Webhook
 * 201, a credential test refused with 401 on purpose) land in the same log: a check about "every request" keeps to
 * the paths of its own workflow.
 */
function requestsFor(espo, ...entityTypes) {
	return espo.requests.filter((r) =>
		entityTypes.some((type) => r.path === `/${type}` || r.path.startsWith(`/${type}/`)),
	);
}

module.exports = { pool, sent, assertDeleted, requestsFor };
