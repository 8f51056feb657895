// @ts-check
'use strict';

const http = require('node:http');
const crypto = require('node:crypto');
const { Store } = require('./store');
const { Faults, CATCH_ALL_PAGE, LOGIN_PAGE } = require('./faults');
const { isEntityType } = require('./metadata');
const { ApiError, phpError } = require('./util');
const { matchRoute, slimErrorReply } = require('./espo');
const { parsePhpQuery } = require('./query');
const h = require('./handlers');
const { seedDemoData } = require('./seed');
const { Webhooks } = require('./webhooks');
const { Streams } = require('./stream');
const { i18nFor } = require('./i18n');
const { SANDBOX_USERS } = require('./users');
const { ServerVersion } = require('./versions');

/**
 * HTTP side of the sandbox: routing, authentication, fault switches and the request log.
 *
 * @typedef {import('./handlers').Dialect} Dialect
 * @typedef {{
 *   method: string, path: string, rawQuery: string, query: Record<string, any>,
 *   headers: Record<string, string | string[] | undefined>, body: unknown, status: number | null,
 *   startedAt: number, endedAt: number | null,
 * }} RecordedRequest
 * @typedef {{
 *   dialect?: Dialect, seed?: boolean, port?: number, host?: string, tokenTtlMs?: number,
 *   failedLoginLimit?: number, restrictedScopes?: string[], onRequest?: (r: RecordedRequest) => void,
 *   webhookDeliveryIntervalMs?: number, webhookConfig?: import('./webhooks').WebhookConfig, serverVersion?: string,
 * }} SandboxOptions
 *   restrictedScopes: entity types the API user may not reach; 'Webhook' in it takes the Webhook scope away.
 * @typedef {{ status: number, body?: unknown, reason?: string, headers?: Record<string, string | number> }} Reply
 * @typedef {import('./users').SandboxUser} SandboxUser
 * @typedef {{ user: SandboxUser } | { denied: Reply }} AuthResult
 */

const SANDBOX_CREDENTIALS = Object.freeze({
	apiKey: 'sandbox-api-key',
	username: 'admin',
	password: 'sandbox-password',
	hmacApiKey: 'sandbox-hmac-key',
	hmacSecret: 'sandbox-hmac-secret',
	clientId: 'sandbox-client',
	clientSecret: 'sandbox-client-secret',
});

const API_PREFIX = '/api/v1';
const MAX_BODY_BYTES = 64 * 1024 * 1024;
const FAILED_LOGIN_WINDOW_MS = 60_000;
const DIALECTS = ['both', 'standard', 'espocrm'];

/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const now = () => performance.timeOrigin + performance.now();

class Sandbox {
	/** @param {SandboxOptions} options */
	constructor(options) {
		this.options = options;
		/** @type {Dialect} */
		this.dialect = 'both';
		this.setDialect(options.dialect ?? 'both');
		this.store = new Store();
		this.faults = new Faults();
		this.webhooks = new Webhooks(this.store, options.webhookConfig, () => this.restricted);
		this.streams = new Streams(this.store);
		/** What differs between EspoCRM versions (versions.js): `setServerVersion`, then its locks, pipelines, allow-list. */
		this.version = new ServerVersion(options.serverVersion);
		this.store.phoneNumbersAsWritten = this.version.phoneNumbersAsWritten;
		/** @type {RecordedRequest[]} */
		this.requests = [];
		/** @type {import('./handlers').OutboxMail[]} mails the sandbox "sent" */
		this.outbox = [];
		/** @type {Map<string, number>} token → expiry (ms epoch, Infinity when no TTL) */
		this.tokens = new Map();
		this.tokensIssued = 0;
		this.inFlight = 0;
		this.maxInFlightSeen = 0;
		/** @type {Map<string, number[]>} remote address → times of failed logins */
		this.failedLogins = new Map();
		this.failedLoginLimit = options.failedLoginLimit ?? 10;
		/** @type {Set<string>} */
		this.restricted = new Set(options.restrictedScopes ?? []);
		/** @type {Set<string>} */
		this.noStream = new Set();
		this.origin = '';
		this.baseUrl = '';
		this.server = http.createServer((req, res) => {
			this.handle(req, res).catch((err) => {
				// Only a bug of the sandbox gets here: answer instead of hanging the client.
				if (!res.headersSent) {
					res.writeHead(500, {
						'X-Status-Reason': `Sandbox error: ${String(err && err.message).replace(/[^\x20-\x7e]/g, '?')}`,
					});
				}
				res.end();
			});
		});
		this.server.keepAliveTimeout = 5000;
	}

	/** @param {string} dialect */
	setDialect(dialect) {
		if (!DIALECTS.includes(dialect))
			throw new Error(`Unknown dialect '${dialect}', expected one of ${DIALECTS.join(', ')}`);
		this.dialect = /** @type {Dialect} */ (dialect);
	}

	/** Types the API user may not reach: absent from GET /Metadata, 403 on their endpoints. @param {string[]} scopes */
	setRestrictedScopes(scopes) {
		this.restricted = new Set(scopes);
	}

	/**
	 * Types whose records the API users' role lets them read but not their stream (Roles > <type>: Stream "no"): a post
	 * to one, its stream and a follow are 403. reset() allows the streams again. @param {string[]} scopes
	 */
	setNoStreamScopes(scopes) {
		this.noStream = new Set(scopes);
	}

	/**
	 * The EspoCRM version to answer as where versions differ (versions.js): '7.5.6', '9.3.4', '10.0.0' …; its locks,
	 * pipelines and allow-list start empty. reset() goes back to the version of the options (default 8.1.5).
	 * @param {string} version
	 */
	setServerVersion(version) {
		this.version.set(version);
		this.store.phoneNumbersAsWritten = this.version.phoneNumbersAsWritten;
	}

	/** Whether the API users' role allows the Webhook scope (without it: 403 with an empty reason). @param {boolean} allowed */
	setWebhookScope(allowed) {
		this.webhooks.scopeAllowed = allowed;
	}

	/** The types a user may not reach: the restricted ones, and Webhook for an API user without the scope. @param {SandboxUser} user */
	restrictedFor(user) {
		const out = new Set(this.restricted);
		if (!user.isAdmin && (!user.isApi || !this.webhookScope())) out.add('Webhook');
		return out;
	}

	webhookScope() {
		return this.webhooks.hasScope();
	}

	clearRequests() {
		this.requests = [];
	}

	/**
	 * Clears records (webhooks included), webhook queues and deliveries, requests, faults, tokens, failed-login
	 * counters and the outbox; restores the restricted scopes of the options, the Webhook scope and the server version.
	 * Keeps the dialect.
	 */
	reset() {
		this.store.reset();
		this.webhooks.reset();
		this.streams.reset();
		this.version.reset();
		this.store.phoneNumbersAsWritten = this.version.phoneNumbersAsWritten;
		this.requests = [];
		this.outbox = [];
		this.faults.clear();
		this.tokens.clear();
		this.tokensIssued = 0;
		this.failedLogins.clear();
		this.maxInFlightSeen = this.inFlight;
		this.restricted = new Set(this.options.restrictedScopes ?? []);
		this.noStream = new Set();
	}

	expireTokens() {
		this.tokens.clear();
	}

	/** @param {number} port @param {string} host */
	async listen(port, host) {
		await new Promise((resolve, reject) => {
			this.server.once('error', reject);
			this.server.listen(port, host, () => resolve(undefined));
		});
		const addr = /** @type {import('node:net').AddressInfo} */ (this.server.address());
		const hostPart = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
		this.origin = `http://${hostPart}:${addr.port}`;
		this.baseUrl = `${this.origin}${API_PREFIX}`;
		if (this.options.webhookDeliveryIntervalMs)
			this.webhooks.start(this.options.webhookDeliveryIntervalMs);
	}

	async close() {
		await this.webhooks.stop();
		await new Promise((resolve) => {
			this.server.close(() => resolve(undefined));
			this.server.closeAllConnections();
		});
	}

	/** @param {http.IncomingMessage} req @param {http.ServerResponse} res */
	async handle(req, res) {
		const othersInFlight = this.inFlight;
		this.inFlight++;
		this.maxInFlightSeen = Math.max(this.maxInFlightSeen, this.inFlight);
		const rawUrl = req.url || '/';
		const q = rawUrl.indexOf('?');
		const pathname = q < 0 ? rawUrl : rawUrl.slice(0, q);
		const rawQuery = q < 0 ? '' : rawUrl.slice(q + 1);
		const inApi = pathname === API_PREFIX || pathname.startsWith(`${API_PREFIX}/`);
		const path = inApi ? pathname.slice(API_PREFIX.length) || '/' : pathname;
		const method = (req.method || 'GET').toUpperCase();
		/** @type {RecordedRequest} */
		const entry = {
			method,
			path,
			rawQuery,
			query: parsePhpQuery(rawQuery),
			headers: { ...req.headers },
			body: undefined,
			status: null,
			startedAt: now(),
			endedAt: null,
		};
		this.requests.push(entry);
		try {
			let bodyText;
			try {
				bodyText = await readBody(req);
			} catch {
				entry.status = 0;
				entry.endedAt = now();
				req.socket.destroy();
				return;
			}
			// Parsed once: the log shows it, the routes use it (request bodies may be tens of megabytes).
			const parsed = parseJson(bodyText);
			entry.body = bodyText === '' ? undefined : parsed.ok ? parsed.value : bodyText;

			/** @type {Reply} */
			let reply;
			const mif = this.faults.maxInFlight;
			if (this.faults.htmlCatchAll) {
				reply = {
					status: 200,
					body: Buffer.from(CATCH_ALL_PAGE, 'utf8'),
					headers: { 'Content-Type': 'text/html; charset=UTF-8' },
				};
			} else if (mif && othersInFlight >= mif.limit) {
				// A proxy's refusal: no X-Status-Reason unless the test gives one.
				reply = {
					status: mif.status ?? 503,
					reason: mif.reason,
					headers: retryAfterHeader(mif.retryAfter),
				};
			} else {
				if (this.faults.latencyMs > 0) await sleep(this.faults.latencyMs);
				if (this.faults.authLatencyMs > 0 && inApi && path === '/Auth' && method === 'POST')
					await sleep(this.faults.authLatencyMs);
				const fault = this.faults.decide(method, path);
				if (fault && fault.kind === 'drop' && !fault.after) {
					this.dropConnection(req, entry);
					return;
				}
				if (fault && fault.kind === 'redirect') {
					reply = {
						status: fault.status,
						headers: { Location: fault.location.split('{url}').join(rawUrl) },
					};
				} else if (fault && fault.kind === 'answer') {
					if (fault.answer === 'silent') {
						// Read, never answered: the client's timeout (or close()) ends it.
						entry.status = 0;
						this.options.onRequest?.(entry);
						return;
					}
					if (fault.answer === 'huge') {
						await sendHuge(res, entry, fault.bytes, fault.chunked);
						this.options.onRequest?.(entry);
						return;
					}
					reply =
						fault.answer === 'html'
							? {
									status: 200,
									body: Buffer.from(LOGIN_PAGE, 'utf8'),
									headers: { 'Content-Type': 'text/html; charset=UTF-8' },
								}
							: fault.answer === 'list'
								? {
										status: 200,
										body: [
											{ id: 'listed-1', name: 'First' },
											{ id: 'listed-2', name: 'Second' },
										],
									}
								: { status: 200, body: { id: 'single-1', name: 'Single' } };
				} else if (fault && fault.kind === 'fail') {
					const echo = fault.echoRequestHeaders ? echoHeaders(req, fault.reason) : null;
					reply = {
						status: fault.status,
						reason: echo ? echo.reason : fault.reason,
						body: echo ? echo.body : fault.body,
						headers: retryAfterHeader(fault.retryAfter),
					};
				} else {
					reply = await this.answer(req, method, path, inApi, entry.query, bodyText, parsed);
					// The request was carried out; the answer is lost on the way back.
					if (fault && fault.kind === 'drop') {
						this.dropConnection(req, entry);
						return;
					}
				}
			}
			send(res, reply, entry);
			this.options.onRequest?.(entry);
		} finally {
			this.inFlight--;
		}
	}

	/** @param {http.IncomingMessage} req @param {RecordedRequest} entry */
	dropConnection(req, entry) {
		entry.status = 0;
		entry.endedAt = now();
		req.socket.destroy();
		this.options.onRequest?.(entry);
	}

	/**
	 * The route's reply, an ApiError turned into its reply.
	 * @param {http.IncomingMessage} req @param {string} method @param {string} path @param {boolean} inApi
	 * @param {Record<string, any>} query @param {string} bodyText @param {{ ok: boolean, value?: unknown }} parsed
	 * @returns {Promise<Reply>}
	 */
	async answer(req, method, path, inApi, query, bodyText, parsed) {
		try {
			return this.route(req, method, path, inApi, query, bodyText, parsed);
		} catch (err) {
			if (!(err instanceof ApiError)) throw err;
			// A null reason: no X-Status-Reason at all. A validation failure's JSON body is EspoCRM's.
			const body = err.espoBody && this.dialect === 'standard' ? undefined : err.body;
			return { status: err.status, reason: err.reason ?? undefined, body, headers: err.headers };
		}
	}

	/**
	 * @param {http.IncomingMessage} req @param {string} method @param {string} path @param {boolean} inApi
	 * @param {Record<string, any>} query @param {string} bodyText @param {{ ok: boolean, value?: unknown }} parsed
	 * @returns {Reply}
	 */
	route(req, method, path, inApi, query, bodyText, parsed) {
		if (!inApi) return { status: 404 };
		// EspoCRM's router (Slim) comes before authentication: a path no route takes is 404, a method its routes do
		// not take 405, both with Slim's body and no X-Status-Reason. 'both' also has the standard dialect's routes.
		if (this.dialect !== 'standard') {
			const m = matchRoute(method, path, this.dialect === 'both');
			if (!m.found)
				return slimErrorReply(
					m.allowed.length ? 405 : 404,
					String(req.headers.accept || ''),
					m.allowed,
				);
		}
		const segs = path
			.split('/')
			.filter(Boolean)
			.map((s) => {
				try {
					return decodeURIComponent(s);
				} catch {
					return s;
				}
			});
		const isJson =
			/^application\/json\b/i.test(String(req.headers['content-type'] || '').trim()) ||
			/\+json\b/i.test(String(req.headers['content-type'] || ''));
		const [ctrl, a, b, c] = segs;

		if (ctrl === 'Auth' && segs.length === 1) {
			if (this.dialect === 'espocrm') throw new ApiError(404, "Controller 'Auth' does not exist.");
			if (method !== 'POST') throw new ApiError(404, '');
			return this.issueToken(req, bodyText);
		}

		const espoOnly = this.dialect !== 'standard';
		const standardOnly = this.dialect !== 'espocrm';
		const noController = () => new ApiError(404, `Controller '${ctrl}' does not exist.`);

		// Labels need no login (routes.json: noAuth); credentials, when good, choose the user.
		if (ctrl === 'I18n' && segs.length === 1 && method === 'GET') {
			if (!espoOnly) throw noController();
			return this.i18n(req, method, path);
		}

		const auth = this.authenticate(req, method, path);
		if ('denied' in auth) return auth.denied;
		const user = auth.user;

		// Writes without a JSON content type have an empty body, as on EspoCRM.
		let body = null;
		if (isJson && bodyText !== '' && method !== 'GET') {
			// PHP's JSON decoding fails: 500 with an empty body and no X-Status-Reason.
			if (!parsed.ok) throw phpError(500);
			body = parsed.value;
		}
		/** @type {import('./handlers').Ctx} */
		const ctx = {
			store: this.store,
			dialect: this.dialect,
			headers: req.headers,
			body,
			restricted: this.restricted,
			// An admin's role is not consulted: admins reach every stream.
			noStream: user.isAdmin ? new Set() : this.noStream,
			// A server that does not page: every list starts at the first record, whatever the offset.
			query: {
				...query,
				...(this.faults.ignoresOffset ? { offset: undefined } : {}),
				...(this.faults.ignoresWhereAndOrder
					? { where: undefined, orderBy: undefined, order: undefined }
					: {}),
			},
			emailSendingFails: this.faults.emailSendingFails,
			outbox: this.outbox,
			user,
			webhookScope: this.webhookScope(),
			phoneNumbersAsWritten: this.store.phoneNumbersAsWritten,
		};
		// What the server version adds: checks before the operation, attributes to its answer (versions.js).
		this.version.before(ctx, method, segs);
		return this.version.after(ctx, method, segs, this.dispatch(method, segs, ctx, query));
	}

	/**
	 * The operation of an authenticated request.
	 * @param {string} method @param {string[]} segs @param {import('./handlers').Ctx} ctx @param {Record<string, any>} query
	 * @returns {Reply}
	 */
	dispatch(method, segs, ctx, query) {
		const { user, body } = ctx;
		const [ctrl, a, b, c] = segs;
		const espoOnly = this.dialect !== 'standard';
		const standardOnly = this.dialect !== 'espocrm';
		const noController = () => new ApiError(404, `Controller '${ctrl}' does not exist.`);
		const ok = (/** @type {unknown} */ v) => ({ status: 200, body: v });
		const noAction = (/** @type {string} */ action) =>
			new ApiError(404, `Action ${method} '${action}' does not exist in controller '${ctrl}'.`);

		// GET / (ApiIndex): a plain text, sent as JSON's content type.
		if (!ctrl && espoOnly && method === 'GET')
			return {
				status: 200,
				body: Buffer.from('EspoCRM REST API'),
				headers: { 'Content-Type': 'application/json' },
			};
		if (!ctrl) throw new ApiError(404, '');
		if (ctrl === 'Webhook') {
			if (!espoOnly) throw noController();
			return this.webhookRoute(user, method, segs, query, body);
		}
		// The interface as specified has no attachments.
		if (ctrl === 'Attachment' && !espoOnly) throw noController();
		if (ctrl === 'Metadata' && segs.length === 1 && method === 'GET') {
			if (!espoOnly) throw new ApiError(404, "Controller 'Metadata' does not exist.");
			// From 8.2 a `key` picks a part of it (versions.js).
			return ok(h.metadata({ ...ctx, restricted: this.restrictedFor(user) }));
		}
		if (ctrl === 'App' && a === 'user' && segs.length === 2 && method === 'GET') {
			if (!espoOnly) throw new ApiError(404, "Controller 'App' does not exist.");
			return ok(h.appUser(ctx));
		}
		if (ctrl === 'MassAction' && segs.length === 1 && method === 'POST') {
			if (!espoOnly) throw new ApiError(404, "Controller 'MassAction' does not exist.");
			return ok(h.massAction(ctx));
		}
		// EspoCRM's streams (stream.js): posts are Notes; the user's own stream.
		if (ctrl === 'Note' && segs.length === 1 && method === 'POST' && espoOnly)
			return ok(this.streams.create(ctx));
		if (ctrl === 'Stream' && segs.length === 1 && method === 'GET' && espoOnly)
			return ok(this.streams.userStream(ctx));
		if (!isEntityType(ctrl)) throw noController();
		if (this.restricted.has(ctrl)) throw new ApiError(403, '');
		if (segs.length === 3 && b === 'stream' && method === 'GET' && espoOnly)
			return ok(this.streams.recordStream(ctx, ctrl, a));
		if (
			segs.length === 3 &&
			b === 'subscription' &&
			(method === 'PUT' || method === 'DELETE') &&
			espoOnly
		) {
			return ok(this.streams.subscription(ctx, ctrl, a, method === 'PUT'));
		}

		if (segs.length === 1) {
			if (method === 'GET') return ok(h.list(ctx, ctrl));
			if (method === 'POST') return ok(h.create(ctx, ctrl));
			throw new ApiError(404, '');
		}
		if (a === 'action' && segs.length === 3) {
			if (b === 'massUpdate' && method === 'PUT' && standardOnly)
				return ok(h.massUpdate(ctx, ctrl));
			if (b === 'massDelete' && method === 'POST' && standardOnly)
				return ok(h.massDelete(ctx, ctrl));
			if (b === 'convert' && method === 'POST' && ctrl === 'Lead' && espoOnly)
				return ok(h.convertLead(ctx, undefined));
			throw noAction(b);
		}
		if (ctrl === 'Attachment' && a === 'file' && segs.length === 3 && method === 'GET')
			return this.download(b);
		if (segs.length === 2) {
			if (method === 'GET') return ok(h.read(ctx, ctrl, a));
			if (method === 'PUT' || method === 'PATCH') return ok(h.update(ctx, ctrl, a));
			if (method === 'DELETE') return ok(h.remove(ctx, ctrl, a));
			throw new ApiError(404, '');
		}
		if (segs.length === 4 && b === 'action') {
			if (c === 'convert' && method === 'POST' && ctrl === 'Lead' && standardOnly)
				return ok(h.convertLead(ctx, a));
			throw new ApiError(404, '');
		}
		if (segs.length === 3) {
			if (b === 'subscription' && espoOnly && (method === 'PUT' || method === 'DELETE'))
				return ok(h.subscription(ctx, ctrl, a, method === 'PUT'));
			if (method === 'GET') return ok(h.listRelated(ctx, ctrl, a, b));
			if (method === 'POST') return ok(h.linkRecords(ctx, ctrl, a, b));
			if (method === 'DELETE') return ok(h.unlinkRecords(ctx, ctrl, a, b));
		}
		throw new ApiError(404, '');
	}

	/**
	 * GET /Attachment/file/{id} (Tools/Attachment/Api/GetFile): the bytes, `Content-Disposition: attachment;
	 * filename="<name>"` with the name as it is (UTF-8 bytes, unescaped), Content-Type only when the attachment has
	 * a type. An unknown id: 404 with an empty reason.
	 * @param {string} id @returns {Reply}
	 */
	download(id) {
		const raw = this.store.table('Attachment').get(id);
		if (!raw) throw new ApiError(404, '');
		const name = Buffer.from(String(raw.name ?? '').replace(/[\r\n]/g, ''), 'utf8').toString(
			'latin1',
		);
		/** @type {Record<string, string>} */
		const headers = { 'Content-Disposition': `attachment; filename="${name}"` };
		if (raw.type) headers['Content-Type'] = String(raw.type);
		return { status: 200, body: this.store.files.get(id) || Buffer.alloc(0), headers };
	}

	/**
	 * @param {SandboxUser} user @param {string} method @param {string[]} segs @param {Record<string, any>} query
	 * @param {any} body @returns {Reply}
	 */
	webhookRoute(user, method, segs, query, body) {
		const w = this.webhooks;
		const objectBody = () => (body && typeof body === 'object' && !Array.isArray(body) ? body : {});
		if (segs.length === 1) {
			if (method === 'GET') return { status: 200, body: w.listFor(user, query) };
			// The controller answers a create with 201 (Controllers/Webhook::postActionCreate).
			if (method === 'POST') return { status: 201, body: w.create(user, objectBody()) };
		}
		if (segs.length === 2) {
			const id = segs[1];
			if (method === 'GET') return { status: 200, body: w.read(user, id) };
			if (method === 'PUT' || method === 'PATCH')
				return { status: 200, body: w.update(user, id, objectBody()) };
			if (method === 'DELETE') return { status: 200, body: w.remove(user, id) };
		}
		throw new ApiError(404, '');
	}

	/**
	 * GET /I18n, with or without (good) credentials; see i18n.js.
	 * @param {http.IncomingMessage} req @param {string} method @param {string} path @returns {Reply}
	 */
	i18n(req, method, path) {
		const failure = this.faults.i18nFailure;
		if (failure) return { status: failure.status, reason: failure.reason ?? '' };
		const hd = req.headers;
		const hasCredentials = Boolean(
			hd['x-hmac-authorization'] || hd['x-api-key'] || hd['espo-authorization'] || hd.authorization,
		);
		let user = null;
		if (hasCredentials) {
			const auth = this.authenticate(req, method, path);
			if ('user' in auth) user = auth.user;
			else if (auth.denied.status === 403) return auth.denied;
		}
		return { status: 200, body: i18nFor(user, user ? this.restrictedFor(user) : new Set()) };
	}

	/**
	 * OAuth 2.0 client credentials, as the interface specifies (JSON body; a form body and HTTP Basic client
	 * authentication are accepted too, as OAuth servers do).
	 * @param {http.IncomingMessage} req @param {string} bodyText @returns {Reply}
	 */
	issueToken(req, bodyText) {
		const ct = String(req.headers['content-type'] || '');
		/** @type {Record<string, any>} */
		let params = {};
		if (/json/i.test(ct)) {
			try {
				params = bodyText ? JSON.parse(bodyText) : {};
			} catch {
				return { status: 400, body: { error: 'invalid_request' } };
			}
		} else if (/x-www-form-urlencoded/i.test(ct))
			params = Object.fromEntries(new URLSearchParams(bodyText));
		if (!params || typeof params !== 'object') params = {};
		if (params.grant_type !== 'client_credentials')
			return { status: 400, body: { error: 'unsupported_grant_type' } };
		let clientId = params.client_id;
		let clientSecret = params.client_secret;
		const basic = /^Basic\s+(.+)$/i.exec(String(req.headers.authorization || ''));
		if (basic && clientId === undefined) {
			const [u, ...p] = Buffer.from(basic[1], 'base64').toString('utf8').split(':');
			clientId = decodeURIComponent(u);
			clientSecret = decodeURIComponent(p.join(':'));
		}
		// Clients "sandbox-client-<anything>" are clients of their own (tests that must not share a token), same secret.
		const knownClient =
			clientId === SANDBOX_CREDENTIALS.clientId ||
			String(clientId).startsWith(`${SANDBOX_CREDENTIALS.clientId}-`);
		if (!knownClient || clientSecret !== SANDBOX_CREDENTIALS.clientSecret) {
			return { status: 401, body: { error: 'invalid_client' } };
		}
		const token = crypto.randomBytes(24).toString('base64url');
		const ttl = this.options.tokenTtlMs;
		this.tokens.set(token, ttl ? Date.now() + ttl : Infinity);
		this.tokensIssued++;
		return {
			status: 200,
			body: {
				access_token: token,
				token_type: 'Bearer',
				expires_in: ttl ? Math.ceil(ttl / 1000) : 3600,
			},
			headers: { 'Cache-Control': 'no-store' },
		};
	}

	/** @param {string} address */
	recentFailures(address) {
		const cutoff = Date.now() - FAILED_LOGIN_WINDOW_MS;
		const list = (this.failedLogins.get(address) || []).filter((t) => t > cutoff);
		this.failedLogins.set(address, list);
		return list;
	}

	/**
	 * @param {http.IncomingMessage} req @param {string} method @param {string} path
	 * @returns {AuthResult} the user, or the refusal
	 */
	authenticate(req, method, path) {
		const hd = req.headers;
		const address = req.socket.remoteAddress || 'unknown';
		const limit = this.failedLoginLimit;
		const limited = Number.isFinite(limit) && limit > 0;
		const authorization = String(hd.authorization || '');
		const hasCredentials = Boolean(
			hd['x-hmac-authorization'] || hd['x-api-key'] || hd['espo-authorization'] || authorization,
		);
		if (!hasCredentials)
			return { denied: { status: 401, headers: { 'WWW-Authenticate': 'Basic realm=""' } } };

		const bearer = /^Bearer\s+(.+)$/i.exec(authorization);
		const onlyBearer =
			bearer && !hd['x-hmac-authorization'] && !hd['x-api-key'] && !hd['espo-authorization'];
		// Too many failed logins from this address: refused whatever the credentials.
		if (limited && !onlyBearer && this.recentFailures(address).length >= limit)
			return { denied: { status: 403, reason: '' } };

		/** @type {SandboxUser | null} */
		let user = null;
		if (hd['x-hmac-authorization'])
			user = checkHmac(String(hd['x-hmac-authorization']), method, path)
				? SANDBOX_USERS.hmac
				: null;
		else if (hd['x-api-key'])
			user = hd['x-api-key'] === SANDBOX_CREDENTIALS.apiKey ? SANDBOX_USERS.apiKey : null;
		else if (hd['espo-authorization'])
			user = checkUserPassword(String(hd['espo-authorization'])) ? SANDBOX_USERS.admin : null;
		else if (/^Basic\s+/i.test(authorization))
			user = checkUserPassword(authorization.replace(/^Basic\s+/i, ''))
				? SANDBOX_USERS.admin
				: null;
		else if (bearer) {
			const exp = this.tokens.get(bearer[1].trim());
			if (exp !== undefined && exp > Date.now()) return { user: SANDBOX_USERS.oauth };
			if (exp !== undefined) this.tokens.delete(bearer[1].trim());
			return {
				denied: { status: 401, headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } },
			};
		}
		if (user) return { user };
		if (limited) this.recentFailures(address).push(Date.now());
		return { denied: { status: 401 } };
	}
}

/** @param {string} b64 */
function checkUserPassword(b64) {
	const decoded = Buffer.from(b64.trim(), 'base64').toString('utf8');
	const i = decoded.indexOf(':');
	return (
		i > 0 &&
		decoded.slice(0, i) === SANDBOX_CREDENTIALS.username &&
		decoded.slice(i + 1) === SANDBOX_CREDENTIALS.password
	);
}

/**
 * base64(apiKey + ':' + hmacSha256(secret, METHOD + ' ' + path)); the digest raw (every EspoCRM version) or
 * lowercase hex (8.4.1+).
 * @param {string} header @param {string} method @param {string} path
 */
function checkHmac(header, method, path) {
	const decoded = Buffer.from(header.trim(), 'base64');
	const colon = decoded.indexOf(0x3a);
	if (colon < 0) return false;
	if (decoded.subarray(0, colon).toString('utf8') !== SANDBOX_CREDENTIALS.hmacApiKey) return false;
	const signature = decoded.subarray(colon + 1);
	const digest = crypto
		.createHmac('sha256', SANDBOX_CREDENTIALS.hmacSecret)
		.update(`${method} ${path}`)
		.digest();
	return signature.equals(digest) || signature.toString('latin1') === digest.toString('hex');
}

/** @param {number | string | undefined} retryAfter @returns {Record<string, string> | undefined} */
function retryAfterHeader(retryAfter) {
	return retryAfter === undefined || retryAfter === null
		? undefined
		: { 'Retry-After': String(retryAfter) };
}

/** @param {http.IncomingMessage} req @returns {Promise<string>} */
function readBody(req) {
	return new Promise((resolve, reject) => {
		/** @type {Buffer[]} */
		const chunks = [];
		let size = 0;
		req.on('data', (/** @type {Buffer} */ chunk) => {
			size += chunk.length;
			if (size > MAX_BODY_BYTES) {
				reject(new Error('body too large'));
				return;
			}
			chunks.push(chunk);
		});
		req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
		req.on('error', reject);
		req.on('aborted', () => reject(new Error('aborted')));
	});
}

/** @param {string} text @returns {{ ok: boolean, value?: unknown }} */
function parseJson(text) {
	if (text === '') return { ok: false };
	try {
		const value = JSON.parse(text);
		// PHP's json_decode refuses an escaped lone surrogate ("\ud83d" without its other half): "Single unpaired UTF-16
		// surrogate in unicode escape" (EspoCRM 8.1.5 answers 500).
		return hasLoneSurrogate(value) ? { ok: false } : { ok: true, value };
	} catch {
		return { ok: false };
	}
}

/** @param {unknown} value @returns {boolean} */
function hasLoneSurrogate(value) {
	if (typeof value === 'string') return /[\uD800-\uDFFF]/u.test(value);
	if (value === null || typeof value !== 'object') return false;
	return Object.entries(value).some(
		([key, element]) => hasLoneSurrogate(key) || hasLoneSurrogate(element),
	);
}

/**
 * A refusal that repeats the request's headers as they came (names as sent, credentials included), the way a
 * misconfigured proxy or a debug error page does: in X-Status-Reason and in a JSON body.
 * @param {http.IncomingMessage} req @param {string | undefined} reason
 */
function echoHeaders(req, reason) {
	/** @type {Record<string, string>} */
	const headers = {};
	const parts = [];
	for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
		headers[req.rawHeaders[i]] = req.rawHeaders[i + 1];
		parts.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
	}
	const prefix = reason ? `${reason} ` : '';
	return {
		reason: `${prefix}Request headers: ${parts.join('; ')}`,
		body: { message: reason ?? '', requestHeaders: headers },
	};
}

/** @param {http.ServerResponse} res @param {Reply} reply @param {RecordedRequest} entry */
function send(res, reply, entry) {
	/** @type {Record<string, string | number>} */
	const headers = { ...(reply.headers || {}) };
	if (reply.reason !== undefined && reply.status >= 400)
		headers['X-Status-Reason'] = reply.reason.replace(/[^\x20-\x7e]/g, '?');
	let payload;
	if (Buffer.isBuffer(reply.body)) payload = reply.body;
	else if (reply.body !== undefined) {
		payload = Buffer.from(JSON.stringify(reply.body), 'utf8');
		headers['Content-Type'] = 'application/json';
	} else payload = Buffer.alloc(0);
	headers['Content-Length'] = payload.length;
	entry.status = reply.status;
	entry.endedAt = now();
	if (res.destroyed) {
		entry.status = 0;
		return;
	}
	res.writeHead(reply.status, headers);
	res.end(payload);
}

/**
 * A 200 JSON answer of `bytes` bytes (a list of made-up records), written only as fast as the client reads it, so that
 * neither side holds it whole. `entry.answerBytesSent` counts what left before the client stopped reading.
 * @param {http.ServerResponse} res @param {RecordedRequest & { answerBytesSent?: number }} entry @param {number} bytes
 * @param {boolean} chunked
 */
async function sendHuge(res, entry, bytes, chunked) {
	const head = '{"total":-1,"list":[';
	const record = (/** @type {number} */ n) =>
		`{"id":"huge${String(n).padStart(12, '0')}","name":"${'x'.repeat(200)}"},`;
	const recordBytes = Buffer.byteLength(record(0));
	/** @type {Record<string, string | number>} */
	const headers = { 'Content-Type': 'application/json' };
	const count = Math.max(1, Math.floor((bytes - head.length - 2) / recordBytes));
	const tail = `{"id":"last","name":""}]}`;
	if (!chunked) headers['Content-Length'] = head.length + count * recordBytes + tail.length;
	entry.status = 200;
	entry.answerBytesSent = 0;
	res.writeHead(200, headers);
	const write = async (/** @type {string} */ text) => {
		if (res.destroyed) return false;
		entry.answerBytesSent = (entry.answerBytesSent ?? 0) + Buffer.byteLength(text);
		if (!res.write(text)) {
			await new Promise((resolve) => {
				const done = () => {
					res.off('drain', done);
					res.off('close', done);
					resolve(undefined);
				};
				res.on('drain', done);
				res.on('close', done);
			});
		}
		return !res.destroyed;
	};
	if (!(await write(head))) return;
	// 64 KB per write.
	const perWrite = Math.max(1, Math.floor(65536 / recordBytes));
	for (let n = 0; n < count; n += perWrite) {
		let text = '';
		for (let i = n; i < Math.min(count, n + perWrite); i++) text += record(i);
		if (!(await write(text))) {
			entry.endedAt = now();
			return;
		}
	}
	await write(tail);
	res.end();
	entry.endedAt = now();
}

/** @param {SandboxOptions} [options] */
async function startSandbox(options = {}) {
	const sandbox = new Sandbox(options);
	if (options.seed) seedDemoData(sandbox.store);
	await sandbox.listen(options.port ?? 0, options.host ?? '127.0.0.1');
	return sandbox;
}

module.exports = { startSandbox, Sandbox, SANDBOX_CREDENTIALS };
