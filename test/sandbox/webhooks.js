// @ts-check
'use strict';

const http = require('node:http');
const https = require('node:https');
const crypto = require('node:crypto');
const { ENTITY_DEFS, getAttributes, isObjectType } = require('./metadata');
const { ApiError, phpJsonEncode } = require('./util');
const { runList, listParamsFromQuery } = require('./where');
const { userById } = require('./users');

/**
 * EspoCRM's webhooks (EspoCRM 8.1.5: Controllers/Webhook, Services/Webhook, Core/Webhook/{Manager,Queue,Sender}).
 *
 * A record change queues an event when an active webhook for it exists at that moment (Manager::process*).
 * Nothing is sent then: EspoCRM's scheduled job "Process Webhook Queue" (every 5 minutes by default, through
 * its cron) turns queued events into per-webhook queue items and POSTs them. Here `deliver()` sends everything
 * queued (in batches of 50), `runJob()` is exactly one run of EspoCRM's job with its portions, `deliverAll()`
 * delivers until nothing is left (retries included), and the option `webhookDeliveryIntervalMs` calls deliver()
 * on a timer.
 *
 * @typedef {import('./store').Store} Store
 * @typedef {import('./store').ChangeEvent} ChangeEvent
 * @typedef {import('./users').SandboxUser} SandboxUser
 * @typedef {{ number: number, event: string, targetType: string, targetId: string, data: Record<string, unknown> }} EventItem
 * @typedef {{ number: number, webhookId: string, event: string, targetType: string, targetId: string,
 *   data: Record<string, unknown>, attempts: number, processAt: number | null,
 *   status: 'Pending' | 'Success' | 'Failed' }} QueueItem
 * @typedef {{
 *   eventPortionSize?: number, portionSize?: number, batchSize?: number, maxAttemptNumber?: number,
 *   failAttemptPeriodMs?: number, connectTimeoutMs?: number, timeoutMs?: number, maxCountPerUser?: number,
 * }} WebhookConfig
 * @typedef {{ webhookId: string, event: string, url: string, at: number, requestHeaders: Record<string, string>,
 *   body: string, payload: unknown[], status: number, error?: string }} Delivery
 * @typedef {{ webhookId: string, event: string, url: string, count: number, status: number,
 *   outcome: 'delivered' | 'retry' | 'failed' | 'webhookDeleted' }} DeliveryRequest
 * @typedef {{ runs: number, requests: DeliveryRequest[], statuses: number[], dropped: number,
 *   deletedWebhooks: string[], pending: number }} DeliveryReport
 */

/** EspoCRM's defaults (config keys webhookQueueEventPortionSize, …), except the retry delay (see below). */
const DEFAULT_CONFIG = Object.freeze({
	eventPortionSize: 20, // events turned into queue items per run (Queue::EVENT_PORTION_SIZE)
	portionSize: 20, // webhooks served per run (Queue::PORTION_SIZE)
	batchSize: 50, // records per request (Queue::BATCH_SIZE)
	maxAttemptNumber: 4, // attempts before an item is given up (Queue::MAX_ATTEMPT_NUMBER)
	// EspoCRM waits '10 minutes' (Queue::FAIL_ATTEMPT_PERIOD); the sandbox retries at the next run unless told.
	failAttemptPeriodMs: 0,
	connectTimeoutMs: 5000, // Sender::CONNECT_TIMEOUT
	timeoutMs: 10_000, // Sender::TIMEOUT
	maxCountPerUser: 50, // Services/Webhook::WEBHOOK_MAX_COUNT_PER_USER
});
const EVENT_TYPES = ['create', 'update', 'delete', 'fieldUpdate'];
/** Answers after which the batch is kept for another attempt (Queue::send). */
const RETRY_STATUSES = [0, 401, 403, 404, 405, 408, 500, 503];
/** Manager::$skipAttributeList, plus versionNumber (stock entity types have no optimistic concurrency control). */
const SKIPPED_ATTRIBUTES = new Set(['isFollowed', 'modifiedAt', 'modifiedBy', 'versionNumber']);

class Webhooks {
	/**
	 * @param {Store} store @param {WebhookConfig} [config]
	 * @param {() => Set<string>} [restricted] the entity types API users may not read
	 */
	constructor(store, config = {}, restricted = () => new Set()) {
		this.store = store;
		this.config = { ...DEFAULT_CONFIG, ...config };
		this.restricted = restricted;
		/** Whether API users' role allows the Webhook scope (admins always may). */
		this.scopeAllowed = true;
		/** @type {EventItem[]} */
		this.eventQueue = [];
		/** @type {QueueItem[]} */
		this.queue = [];
		/** @type {Delivery[]} every request made, in order */
		this.deliveries = [];
		this.number = 0;
		/** @type {NodeJS.Timeout | null} */
		this.timer = null;
		/** @type {Promise<unknown>} runs are serialised */
		this.running = Promise.resolve();
		// Only changes of types that some active webhook is about are worth an event.
		store.onChange(
			(e) => this.onRecordChange(e),
			(type) => isObjectType(type) && this.all().some((w) => w.isActive && w.entityType === type),
		);
	}

	/** Forgets queued events, queue items and deliveries (the webhooks themselves are store records). */
	reset() {
		this.eventQueue = [];
		this.queue = [];
		this.deliveries = [];
		this.scopeAllowed = true;
	}

	// ---------------------------------------------------------------- the records' side (Core/Webhook/Manager)

	/** @returns {import('./store').RawRecord[]} */
	all() {
		return [...this.store.table('Webhook').values()];
	}

	/** Every webhook, secretKey included, as a read shows it. */
	list() {
		return this.all().map((w) => this.store.output('Webhook', w, 'full'));
	}

	/** Whether API users' role has the Webhook scope: the switch, and 'Webhook' not among the restricted types. */
	hasScope() {
		return this.scopeAllowed && !this.restricted().has('Webhook');
	}

	/** @param {string} event */
	eventExists(event) {
		return this.all().some((w) => w.isActive && w.event === event);
	}

	/** @param {string} event @param {ChangeEvent} e @param {Record<string, unknown>} data */
	queueEvent(event, e, data) {
		this.eventQueue.push({
			number: ++this.number,
			event,
			targetType: e.entityType,
			targetId: e.id,
			data: JSON.parse(JSON.stringify(data)),
		});
	}

	/** Manager::processCreate / processUpdate / processDelete, for types that are `object` scopes. @param {ChangeEvent} e */
	onRecordChange(e) {
		if (!isObjectType(e.entityType)) return;
		const type = e.entityType;
		if (e.action === 'delete') {
			if (this.eventExists(`${type}.delete`)) this.queueEvent(`${type}.delete`, e, { id: e.id });
			return;
		}
		if (e.action === 'create') {
			// The entity's value map at save time: what the create reply shows (unset attributes absent).
			const { versionNumber: _v, ...data } = e.data;
			if (this.eventExists(`${type}.create`)) this.queueEvent(`${type}.create`, e, data);
			return;
		}
		/** @type {Record<string, unknown>} */
		const data = {};
		for (const [k, v] of Object.entries(e.data))
			if (!SKIPPED_ATTRIBUTES.has(k) && k !== 'id') data[k] = v;
		if (Object.keys(data).length === 0) return;
		data.id = e.id;
		if (this.eventExists(`${type}.update`)) this.queueEvent(`${type}.update`, e, data);
		for (const field of Object.keys(ENTITY_DEFS[type].fields)) {
			const event = `${type}.fieldUpdate.${field}`;
			if (!this.eventExists(event)) continue;
			const { actual, all } = fieldAttributes(type, field);
			if (!actual.some((a) => a in data)) continue;
			/** @type {Record<string, unknown>} */
			const item = { id: e.id };
			for (const a of all) item[a] = e.record[a] ?? null;
			this.queueEvent(event, e, item);
		}
	}

	// ---------------------------------------------------------------- the API (Controllers/Webhook, Services/Webhook)

	/**
	 * Who may: admins and API users (the controller's checkAccess), API users only with the Webhook scope in their
	 * role (a boolean scope; 403 with an empty reason otherwise).
	 * @param {SandboxUser} user
	 */
	checkAccess(user) {
		if (!user.isAdmin && !user.isApi) throw new ApiError(403, "No access to 'Webhook'.");
		if (!user.isAdmin && !this.hasScope()) throw new ApiError(403, '');
	}

	/** @param {SandboxUser} user @param {string} id @param {'read' | 'edit' | 'delete'} action */
	ownWebhook(user, id, action) {
		const raw = this.store.table('Webhook').get(id);
		if (!raw)
			throw new ApiError(
				404,
				action === 'read' ? `Record ${id} does not exist.` : `Record ${id} not found.`,
			);
		// AccessChecker::checkEntityInternal: admins any, API users their own.
		if (!user.isAdmin && raw.userId !== user.id) {
			throw new ApiError(
				403,
				{ read: "No 'read' access.", edit: 'No edit access.', delete: 'No delete access.' }[action],
			);
		}
		return raw;
	}

	/**
	 * POST /Webhook → 201 with the webhook and its secretKey.
	 * @param {SandboxUser} user @param {Record<string, any>} body
	 */
	create(user, body) {
		this.checkAccess(user);
		// filterInput: entityType, field and type are derived; secretKey is read-only; userId is for admins.
		const {
			entityType: _e,
			field: _f,
			type: _t,
			secretKey: _s,
			userId,
			userName: _u,
			id: _i,
			...input
		} = body;
		const data = { ...input, ...(user.isAdmin && userId !== undefined ? { userId } : {}) };
		if (user.isApi) data.userId = user.id;
		const prepared = this.store.prepareCreate('Webhook', data, {});
		this.store.checkLinks('Webhook', prepared, null);
		const v = prepared.values;
		if (v.userId && userById(String(v.userId))?.isApi !== true)
			throw new ApiError(403, 'User must be an API User.');
		const derived = this.parseEvent(user, String(v.event ?? ''));
		if (!user.isAdmin) {
			const count = this.all().filter((w) => w.userId === user.id).length;
			if (this.config.maxCountPerUser && count >= this.config.maxCountPerUser)
				throw new ApiError(403, 'Webhook number per user exceeded the limit.');
		}
		Object.assign(v, derived, { secretKey: crypto.randomBytes(16).toString('hex') });
		const raw = this.store.insert('Webhook', data, {}, prepared);
		return this.store.output('Webhook', raw, 'full');
	}

	/**
	 * Services/Webhook::processEntityEventData: `<EntityType>.<type>` or `<EntityType>.fieldUpdate.<field>`.
	 * @param {SandboxUser} user @param {string} event
	 */
	parseEvent(user, event) {
		if (!event) throw new ApiError(403, 'Event is empty.');
		const parts = event.split('.');
		if (parts.length !== 2 && parts.length !== 3) throw new ApiError(403, 'Not supported event.');
		const [entityType, type] = parts;
		if (!entityType) throw new ApiError(403, 'Entity Type is empty.');
		if (!isObjectType(entityType))
			throw new ApiError(403, 'Entity type is not available for Webhooks.');
		if (!user.isAdmin && this.restricted().has(entityType))
			throw new ApiError(403, 'Entity type is forbidden.');
		if (!EVENT_TYPES.includes(type)) throw new ApiError(403, 'Not supported event.');
		let field = null;
		if (type === 'fieldUpdate') {
			field = parts[2] || null;
			if (!field) throw new ApiError(403, 'Field is empty.');
			if (!ENTITY_DEFS[entityType].fields[field]) throw new ApiError(403, 'Field does not exist.');
		}
		return { entityType, type, field };
	}

	/** GET /Webhook: admins see all webhooks, API users their own. @param {SandboxUser} user @param {Record<string, any>} query */
	listFor(user, query) {
		this.checkAccess(user);
		const records = this.all().filter((w) => user.isAdmin || w.userId === user.id);
		return runList({
			store: this.store,
			entityType: 'Webhook',
			records,
			params: listParamsFromQuery(query),
			noTotal: false,
			unknownTypeStatus: 500,
		});
	}

	/** @param {SandboxUser} user @param {string} id */
	read(user, id) {
		this.checkAccess(user);
		return this.store.output('Webhook', this.ownWebhook(user, id, 'read'), 'full');
	}

	/** PUT/PATCH: url and isActive; only admins may send event, and it may not change. @param {SandboxUser} user @param {string} id @param {Record<string, any>} body */
	update(user, id, body) {
		this.checkAccess(user);
		const raw = this.ownWebhook(user, id, 'edit');
		const {
			entityType: _e,
			field: _f,
			type: _t,
			secretKey: _s,
			userId: _u,
			event,
			...input
		} = body;
		if (user.isAdmin && event !== undefined && event !== raw.event)
			throw new ApiError(403, "Event can't be changed.");
		this.store.applyUpdate('Webhook', raw, input, {});
		return this.store.output('Webhook', raw, 'full');
	}

	/** @param {SandboxUser} user @param {string} id */
	remove(user, id) {
		this.checkAccess(user);
		this.ownWebhook(user, id, 'delete');
		this.store.remove('Webhook', id);
		return true;
	}

	// ---------------------------------------------------------------- delivery (Core/Webhook/Queue, Sender)

	/**
	 * Delivers what is queued now, as EspoCRM's job does but without its per-run portions: every queued event
	 * becomes a delivery, then each webhook gets its ready records in order, up to batchSize (50) per request, each
	 * record attempted once per call (a failed batch waits for its retry, at a later call). Resolves to what it did.
	 * @param {{ now?: number }} [opts] now: the clock of the run (to let retry delays pass)
	 * @returns {Promise<DeliveryReport>}
	 */
	deliver(opts = {}) {
		return this.serialise(() => this.run(opts.now ?? Date.now(), false));
	}

	/**
	 * Exactly one run of EspoCRM 8.1.5's "Process Webhook Queue" job (Core/Webhook/Queue::process): up to
	 * eventPortionSize (20) queued events become deliveries, then up to portionSize (20) webhooks get one request
	 * each, with up to batchSize (50) records. With EspoCRM's defaults a run never sends more than 20 new records
	 * per webhook: 120 changes take six runs (30 minutes with the default 5-minute schedule).
	 * @param {{ now?: number }} [opts] @returns {Promise<DeliveryReport>}
	 */
	runJob(opts = {}) {
		return this.serialise(() => this.run(opts.now ?? Date.now(), true));
	}

	/**
	 * deliver() again and again until nothing is ready (at most `maxRuns` calls): failed batches are retried at
	 * once when failAttemptPeriodMs is 0, until maxAttemptNumber attempts.
	 * @param {{ maxRuns?: number, now?: number }} [opts] @returns {Promise<DeliveryReport>}
	 */
	async deliverAll(opts = {}) {
		/** @type {DeliveryReport} */
		const total = {
			runs: 0,
			requests: [],
			statuses: [],
			dropped: 0,
			deletedWebhooks: [],
			pending: 0,
		};
		for (let i = 0; i < (opts.maxRuns ?? 100); i++) {
			const r = await this.deliver({ now: opts.now });
			total.runs++;
			total.requests.push(...r.requests);
			total.statuses.push(...r.statuses);
			total.dropped += r.dropped;
			total.deletedWebhooks.push(...r.deletedWebhooks);
			total.pending = r.pending;
			if (r.requests.length === 0 && this.eventQueue.length === 0) break;
		}
		return total;
	}

	/** Delivers every `ms` milliseconds (deliver()), as EspoCRM's cron runs its job, until stop(). @param {number} ms */
	start(ms) {
		if (this.timer) clearInterval(this.timer);
		this.timer = null;
		if (!(ms > 0)) return;
		this.timer = setInterval(() => {
			this.deliver().catch(() => undefined);
		}, ms);
		this.timer.unref();
	}

	/** Stops the timer and waits for a delivery in progress. */
	async stop() {
		if (this.timer) clearInterval(this.timer);
		this.timer = null;
		await this.running;
	}

	/**
	 * Runs one delivery after the previous one (the timer and tests may ask at once).
	 * @param {() => Promise<DeliveryReport>} fn @returns {Promise<DeliveryReport>}
	 */
	serialise(fn) {
		const run = this.running.then(fn);
		this.running = run.catch(() => undefined);
		return run;
	}

	/**
	 * @param {number} now @param {boolean} portions EspoCRM's per-run limits (runJob), or everything ready (deliver)
	 * @returns {Promise<DeliveryReport>}
	 */
	async run(now, portions) {
		/** @type {DeliveryReport} */
		const report = {
			runs: 1,
			requests: [],
			statuses: [],
			dropped: 0,
			deletedWebhooks: [],
			pending: 0,
		};
		this.processEvents(portions ? this.config.eventPortionSize : Infinity);
		const ready = (/** @type {QueueItem} */ q) =>
			q.status === 'Pending' && (q.processAt === null || q.processAt <= now);
		// Webhooks with a ready item, in the order of their oldest one (at most portionSize of them per job run).
		/** @type {Map<string, QueueItem[]>} */
		const byWebhook = new Map();
		for (const q of this.queue) {
			if (!ready(q)) continue;
			if (!byWebhook.has(q.webhookId)) byWebhook.set(q.webhookId, []);
			/** @type {QueueItem[]} */ (byWebhook.get(q.webhookId)).push(q);
		}
		const groups = [...byWebhook.entries()].slice(0, portions ? this.config.portionSize : Infinity);
		for (const [webhookId, items] of groups) {
			for (let i = 0; i < items.length; i += this.config.batchSize) {
				// A webhook deleted by a 410 (or through the API meanwhile) gets nothing more.
				const batch = items
					.slice(i, i + this.config.batchSize)
					.filter((q) => q.status === 'Pending');
				if (batch.length) await this.sendGroup(webhookId, batch, now, report);
				if (portions) break;
			}
		}
		this.queue = this.queue.filter((q) => q.status === 'Pending');
		report.pending = this.queue.length + this.eventQueue.length;
		return report;
	}

	/** Queue::processEvents: queued events become items of every active webhook for them. @param {number} limit */
	processEvents(limit) {
		const portion = this.eventQueue.splice(0, limit);
		for (const e of portion) {
			const hooks = this.all()
				.filter((w) => w.isActive && w.event === e.event)
				.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
			for (const w of hooks) {
				this.queue.push({
					number: ++this.number,
					webhookId: w.id,
					event: e.event,
					targetType: e.targetType,
					targetId: e.targetId,
					data: e.data,
					attempts: 0,
					processAt: null,
					status: 'Pending',
				});
			}
		}
	}

	/**
	 * Queue::processSendingGroup and send: one request with the batch, then the answer decides.
	 * @param {string} webhookId @param {QueueItem[]} items @param {number} now @param {DeliveryReport} report
	 */
	async sendGroup(webhookId, items, now, report) {
		const drop = (/** @type {QueueItem[]} */ list) => {
			for (const q of list) q.status = 'Failed';
			report.dropped += list.length;
		};
		const webhook = this.store.table('Webhook').get(webhookId);
		if (!webhook || !webhook.isActive) return drop(items);
		const user = webhook.userId ? userById(webhook.userId) : null;
		if (webhook.userId && !this.store.table('User').has(webhook.userId)) return drop(items);
		// Records the webhook's user may not read are left out (and their items deleted).
		const readable = items.filter(
			(q) => !user || user.isAdmin || !this.restricted().has(q.targetType),
		);
		drop(items.filter((q) => !readable.includes(q)));
		if (readable.length === 0) return undefined;
		const payload = readable.map((q) => q.data);
		const result = await this.post(webhook, payload, now);
		const status = result.status;
		report.statuses.push(status);
		/** @type {DeliveryRequest['outcome']} */
		let outcome;
		if (!result.error && status >= 200 && status < 400) {
			outcome = 'delivered';
			for (const q of readable) {
				q.attempts++;
				q.status = 'Success';
			}
		} else if (!result.error && status === 410) {
			// The receiver says the webhook is gone: EspoCRM deletes it and its pending items.
			outcome = 'webhookDeleted';
			const pending = this.queue.filter((q) => q.webhookId === webhookId && q.status === 'Pending');
			drop(pending);
			this.store.remove('Webhook', webhookId, { silent: true });
			report.deletedWebhooks.push(webhookId);
		} else {
			// A sending error (bad URL) and any status but those listed fail at once; the others are retried.
			const force = Boolean(result.error) || !RETRY_STATUSES.includes(status);
			outcome = this.fail(readable, force, now, report) ? 'failed' : 'retry';
		}
		report.requests.push({
			webhookId,
			event: webhook.event,
			url: webhook.url,
			count: payload.length,
			status,
			outcome,
		});
		return undefined;
	}

	/**
	 * Queue::failQueueItem: one more attempt, the next not before failAttemptPeriod; given up after
	 * maxAttemptNumber attempts, or at once when forced. Returns whether the items were given up.
	 * @param {QueueItem[]} items @param {boolean} force @param {number} now @param {DeliveryReport} report
	 */
	fail(items, force, now, report) {
		let givenUp = false;
		for (const q of items) {
			q.attempts++;
			q.processAt = now + this.config.failAttemptPeriodMs;
			if (force || q.attempts >= this.config.maxAttemptNumber) {
				q.status = 'Failed';
				q.processAt = null;
				report.dropped++;
				givenUp = true;
			}
		}
		return givenUp;
	}

	/**
	 * Sender::send: the JSON array (PHP's json_encode), X-Signature = base64(`<webhookId>:` + raw HMAC-SHA256 of the
	 * body with the secret key). The status: the answer's, 408 on a timeout, 0 without an answer.
	 * @param {import('./store').RawRecord} webhook @param {unknown[]} payload @param {number} now
	 * @returns {Promise<{ status: number, error?: string }>}
	 */
	async post(webhook, payload, now) {
		const body = phpJsonEncode(payload);
		/** @type {Record<string, string>} */
		const headers = {
			'Content-Type': 'application/json',
			'Content-Length': String(Buffer.byteLength(body)),
			Accept: '*/*',
		};
		if (webhook.secretKey) {
			const mac = crypto.createHmac('sha256', webhook.secretKey).update(body, 'utf8').digest();
			headers['X-Signature'] = Buffer.concat([Buffer.from(`${webhook.id}:`, 'utf8'), mac]).toString(
				'base64',
			);
		}
		/** @type {{ status: number, error?: string }} */
		let result;
		try {
			result = await this.request(String(webhook.url), headers, body, 0);
		} catch (err) {
			result = { status: 0, error: String(/** @type {Error} */ (err).message) };
		}
		this.deliveries.push({
			webhookId: webhook.id,
			event: webhook.event,
			url: webhook.url,
			at: now,
			requestHeaders: { ...headers },
			body,
			payload: JSON.parse(body),
			status: result.status,
			...(result.error ? { error: result.error } : {}),
		});
		return result;
	}

	/**
	 * One POST, following redirects to https:// as curl with CURLOPT_FOLLOWLOCATION and CURLOPT_REDIR_PROTOCOLS
	 * https does (a redirect elsewhere is the 3xx itself, which counts as done).
	 * @param {string} url @param {Record<string, string>} headers @param {string} body @param {number} hops
	 * @returns {Promise<{ status: number, error?: string }>}
	 */
	request(url, headers, body, hops) {
		let target;
		try {
			target = new URL(url);
		} catch {
			return Promise.reject(new Error(`Could not init CURL for URL ${url}.`));
		}
		if (target.protocol !== 'http:' && target.protocol !== 'https:')
			return Promise.resolve({ status: 0, error: 'Unsupported protocol' });
		const client = target.protocol === 'https:' ? https : http;
		return new Promise((resolve) => {
			let settled = false;
			/** @type {NodeJS.Timeout | undefined} */
			let connect;
			/** @type {NodeJS.Timeout | undefined} */
			let total;
			const done = (/** @type {{ status: number, error?: string }} */ r) => {
				if (settled) return;
				settled = true;
				clearTimeout(connect);
				clearTimeout(total);
				resolve(r);
			};
			const req = client.request(target, { method: 'POST', headers }, (res) => {
				const status = res.statusCode || 0;
				const location = res.headers.location;
				res.resume();
				res.on('end', () => {
					if (status >= 300 && status < 400 && location && hops < 20) {
						const next = new URL(location, target);
						if (next.protocol === 'https:') {
							this.request(next.toString(), headers, body, hops + 1).then(done);
							return;
						}
					}
					done({ status });
				});
				res.on('error', () => done({ status }));
			});
			connect = setTimeout(() => {
				if (!req.socket || req.socket.connecting) {
					req.destroy();
					done({ status: 408 });
				}
			}, this.config.connectTimeoutMs);
			total = setTimeout(() => {
				req.destroy();
				done({ status: 408 });
			}, this.config.timeoutMs);
			req.on('socket', (s) => s.once('connect', () => clearTimeout(connect)));
			req.on('close', () => clearTimeout(connect));
			req.on('error', () => done({ status: 0 }));
			req.end(body);
		});
	}
}

/**
 * The attributes of a field (FieldUtil::getActualAttributeList / getAttributeList): a fieldUpdate event fires
 * when an actual one changed and carries all of them.
 * @param {string} entityType @param {string} field
 */
function fieldAttributes(entityType, field) {
	const fd = ENTITY_DEFS[entityType].fields[field];
	/** @type {string[]} */
	const actual = [];
	/** @type {string[]} */
	const all = [];
	if (fd.type === 'personName') {
		for (const a of ['salutationName', 'firstName', 'lastName'])
			if (getAttributes(entityType).has(a)) actual.push(a);
		return { actual, all: [...actual, field] };
	}
	for (const a of getAttributes(entityType).values()) {
		if (a.field !== field) continue;
		all.push(a.name);
		// Names, types and columns are "not actual": loaded for display, never what changed.
		const notActual = ['name', 'names', 'types', 'columns'].includes(a.role || '');
		if (!notActual && (a.storable || a.role === 'ids' || a.role === 'id' || a.role === 'data'))
			actual.push(a.name);
	}
	return { actual, all };
}

module.exports = { Webhooks, DEFAULT_WEBHOOK_CONFIG: DEFAULT_CONFIG, fieldAttributes };
