'use strict';
/*
 * A small HTTP client for EspoCRM's API (Node's http, no dependency).
 *
 *   const api = espoClient('http://127.0.0.1:8080', { username, password });   // Basic (+ Espo-Authorization)
 *   const api = espoClient(origin, { apiKey });                                  // X-Api-Key
 *   const api = espoClient(origin, { apiKey, secretKey });                       // X-Hmac-Authorization
 *   const r = await api.get('/Contact', { maxSize: 5, where: [{ type: 'equals', attribute: 'lastName', value: 'X' }] });
 *   r.status, r.body (parsed JSON or text), r.reason (X-Status-Reason), r.headers, r.ms
 *   await api.ok('POST', '/Contact', {...})   // the body, or throws with status and reason
 */

const http = require('http');
const crypto = require('crypto');

/** where[0][type]=…: PHP's bracket form of nested objects and arrays. */
function toQuery(params, prefix, out = []) {
	if (params === undefined || params === null) return out;
	if (typeof params !== 'object') {
		out.push(`${encodeURIComponent(prefix)}=${encodeURIComponent(String(params))}`);
		return out;
	}
	const entries = Array.isArray(params)
		? params.map((v, i) => [String(i), v])
		: Object.entries(params);
	for (const [k, v] of entries) toQuery(v, prefix ? `${prefix}[${k}]` : k, out);
	return out;
}

function espoClient(origin, auth = {}, { timeoutMs = 60000 } = {}) {
	const base = `${origin.replace(/\/+$/, '')}/api/v1`;
	const stats = { requests: 0, ms: 0 };

	function authHeaders(method, path) {
		if (auth.username !== undefined) {
			const b = Buffer.from(`${auth.username}:${auth.password}`).toString('base64');
			return { authorization: `Basic ${b}`, 'espo-authorization': b };
		}
		if (auth.secretKey) {
			const sig = crypto.createHmac('sha256', auth.secretKey).update(`${method} ${path}`).digest();
			const value = Buffer.concat([Buffer.from(`${auth.apiKey}:`), sig]).toString('base64');
			return { 'x-hmac-authorization': value };
		}
		if (auth.apiKey) return { 'x-api-key': auth.apiKey };
		return {};
	}

	function request(method, path, { query, body, headers = {} } = {}) {
		const qs = query ? toQuery(query).join('&') : '';
		const url = `${base}${path}${qs ? `?${qs}` : ''}`;
		const data =
			body === undefined
				? undefined
				: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
		const started = Date.now();
		return new Promise((resolve, reject) => {
			const req = http.request(
				url,
				{
					method,
					headers: {
						accept: 'application/json',
						...(data ? { 'content-type': 'application/json', 'content-length': data.length } : {}),
						...authHeaders(method, path),
						...headers,
					},
					timeout: timeoutMs,
				},
				(res) => {
					const chunks = [];
					res.on('data', (c) => chunks.push(c));
					res.on('end', () => {
						const text = Buffer.concat(chunks).toString('utf8');
						let parsed = text;
						try {
							parsed = text ? JSON.parse(text) : undefined;
						} catch {}
						const ms = Date.now() - started;
						stats.requests++;
						stats.ms += ms;
						resolve({
							status: res.statusCode,
							headers: res.headers,
							reason: res.headers['x-status-reason'],
							body: parsed,
							text,
							/** the body's bytes, for files */
							raw: Buffer.concat(chunks),
							ms,
						});
					});
				},
			);
			req.on('timeout', () =>
				req.destroy(new Error(`${method} ${path}: no answer within ${timeoutMs} ms`)),
			);
			req.on('error', reject);
			if (data) req.write(data);
			req.end();
		});
	}

	const api = {
		origin,
		base,
		stats,
		request,
		get: (path, query, opts = {}) => request('GET', path, { ...opts, query }),
		post: (path, body, opts = {}) => request('POST', path, { ...opts, body }),
		put: (path, body, opts = {}) => request('PUT', path, { ...opts, body }),
		patch: (path, body, opts = {}) => request('PATCH', path, { ...opts, body }),
		delete: (path, body, opts = {}) => request('DELETE', path, { ...opts, body }),
		/** The reply's body when the status is 200, otherwise an Error naming status and reason. */
		async ok(method, path, body, opts = {}) {
			const r = await request(method, path, {
				...opts,
				...(method === 'GET' ? { query: body } : { body }),
			});
			if (r.status !== 200) {
				throw new Error(
					`EspoCRM ${method} ${path}: ${r.status}${r.reason ? ` (${r.reason})` : ''} ${String(r.text).slice(0, 500)}`,
				);
			}
			return r.body;
		},
		/** Every record of a list (pages of 200). */
		async list(entityType, query = {}) {
			const out = [];
			for (let offset = 0; ; offset += 200) {
				const page = await api.ok('GET', `/${entityType}`, { ...query, offset, maxSize: 200 });
				out.push(...page.list);
				if (page.list.length < 200) return out;
			}
		},
	};
	return api;
}

module.exports = { espoClient, toQuery };
