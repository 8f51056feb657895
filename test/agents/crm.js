// @ts-check
'use strict';
/*
 * The CRM a check of `npm run test:agents` seeds and reads, over its API, whichever it is: the sandbox, or a real
 * EspoCRM when the runner is given one (RMS_ESPOCRM = {origin, credentials}, as test:espocrm's phases get it). Only
 * what the workflows that run on both need (test/agents/workflows/06-inbox). Requests go with the API user's key and
 * `X-Skip-Duplicate-Check`, so that seeding never meets the duplicate check the workflow is about.
 */

/** @param {string} origin the CRM's address, without /api/v1 @param {string} apiKey the API user's key */
function crmClient(origin, apiKey) {
	/** @param {string} method @param {string} path @param {unknown} [body] */
	async function call(method, path, body) {
		const reply = await fetch(`${origin}/api/v1${path}`, {
			method,
			headers: {
				'Content-Type': 'application/json',
				Accept: 'application/json',
				'X-Api-Key': apiKey,
				'X-Skip-Duplicate-Check': 'true',
			},
			...(body === undefined ? {} : { body: JSON.stringify(body) }),
		});
		if (reply.status !== 200)
			throw new Error(
				`${method} ${path}: ${reply.status} ${reply.headers.get('x-status-reason') || ''}`,
			);
		return await reply.json();
	}
	/** @param {Record<string, string>} equals */
	const whereQuery = (equals) =>
		Object.entries(equals)
			.map(
				([attribute, value], i) =>
					`where[${i}][type]=equals&where[${i}][attribute]=${encodeURIComponent(attribute)}&where[${i}][value]=${encodeURIComponent(value)}`,
			)
			.join('&');
	return {
		/** @param {string} type @param {Record<string, unknown>} fields */
		create: (type, fields) => call('POST', `/${type}`, fields),
		/** @param {string} type @param {string} id */
		get: (type, id) => call('GET', `/${type}/${id}`),
		/** @param {string} type @param {string} id */
		remove: (type, id) => call('DELETE', `/${type}/${id}`),
		/** The records of a type whose fields equal these values (at most 200). @param {string} type @param {Record<string, string>} equals */
		async list(type, equals = {}) {
			return (await call('GET', `/${type}?maxSize=200&${whereQuery(equals)}`)).list;
		},
		/** The posts (notes of type Post) in a record's stream. @param {string} type @param {string} id */
		async posts(type, id) {
			return (await call('GET', `/${type}/${id}/stream?maxSize=50`)).list.filter(
				(/** @type {any} */ note) => note.type === 'Post',
			);
		},
		/** The API user's own record (`GET /App/user`). */
		async apiUser() {
			return (await call('GET', '/App/user')).user;
		},
	};
}

module.exports = { crmClient };
