/** Type declarations of the sandbox server (test/sandbox/index.js), for the TypeScript tests. */

export type Dialect = 'both' | 'standard' | 'espocrm';

export interface SandboxCredentials {
	readonly apiKey: 'sandbox-api-key';
	readonly username: 'admin';
	readonly password: 'sandbox-password';
	readonly hmacApiKey: 'sandbox-hmac-key';
	readonly hmacSecret: 'sandbox-hmac-secret';
	readonly clientId: 'sandbox-client';
	readonly clientSecret: 'sandbox-client-secret';
}

export const SANDBOX_CREDENTIALS: SandboxCredentials;

/** The user behind each credential (User records of the store, created again by every reset). */
export interface SandboxUser {
	key: 'admin' | 'apiKey' | 'hmac' | 'oauth';
	id: string;
	userName: string;
	firstName: string;
	lastName: string;
	/** Basic = admin; API key and HMAC = API users (separate ones); the Bearer token of POST /Auth = a regular user. */
	type: 'admin' | 'api' | 'regular';
	isAdmin: boolean;
	isApi: boolean;
}

export const SANDBOX_USERS: Readonly<Record<'admin' | 'apiKey' | 'hmac' | 'oauth', SandboxUser>>;

export interface SandboxOptions {
	/** Default 'both'. */
	dialect?: Dialect;
	/** Load the demo data of seed.js. Default false. */
	seed?: boolean;
	/** 0 (default) picks a free port. */
	port?: number;
	/** Default '127.0.0.1'. */
	host?: string;
	/** Lifetime of Bearer tokens from POST /Auth; no expiry when absent. */
	tokenTtlMs?: number;
	/** Failed logins from one address within 60 s before every request is refused with 403. Default 10; 0 or Infinity disables. */
	failedLoginLimit?: number;
	/**
	 * Entity types the API user may not reach (absent from GET /Metadata and GET /I18n, 403 on their endpoints, their
	 * records left out of webhook deliveries). 'Webhook' in the list takes the Webhook scope from API users.
	 * reset() restores this list.
	 */
	restrictedScopes?: string[];
	/** Called after each request has been answered (or dropped). */
	onRequest?: (request: RecordedRequest) => void;
	/** Calls webhooks.deliver() every so many ms, as EspoCRM's cron runs its webhook job (`npm run sandbox`: 5000). Off by default; stopped by close(). */
	webhookDeliveryIntervalMs?: number;
	/** EspoCRM's webhook settings; defaults in the comments of WebhookConfig. */
	webhookConfig?: WebhookConfig;
	/** The EspoCRM version to answer as where versions differ (versions.js). Default '8.1.5'. */
	serverVersion?: string;
}

export interface WebhookConfig {
	/** Queued events turned into deliveries per runJob() (webhookQueueEventPortionSize). Default 20. */
	eventPortionSize?: number;
	/** Webhooks served per runJob() (webhookQueuePortionSize). Default 20. */
	portionSize?: number;
	/** Records per request (webhookBatchSize). Default 50. */
	batchSize?: number;
	/** Attempts before a batch is given up (webhookMaxAttemptNumber). Default 4. */
	maxAttemptNumber?: number;
	/** Wait before a retry (webhookFailAttemptPeriod, 10 minutes in EspoCRM). Default 0 here: retried at the next run. */
	failAttemptPeriodMs?: number;
	/** Default 5000 (webhookConnectTimeout). */
	connectTimeoutMs?: number;
	/** Default 10000 (webhookTimeout); a timeout counts as status 408. */
	timeoutMs?: number;
	/** Webhooks per API user (webhookMaxCountPerUser). Default 50. */
	maxCountPerUser?: number;
}

export interface RecordedRequest {
	method: string;
	/** After /api/v1, without the query, e.g. '/Contact/abc'. */
	path: string;
	/** The part after '?', '' if none. */
	rawQuery: string;
	/** Parsed with PHP bracket semantics (where[0][value][]=a → { where: [{ value: ['a'] }] }). */
	query: Record<string, any>;
	/** Lowercased keys. */
	headers: Record<string, string | string[] | undefined>;
	/** Parsed JSON, the raw string when not JSON, undefined when empty. */
	body: any;
	/** Status replied; 0 for a dropped connection (or one never answered: answerNext silent); null while still being handled. */
	status: number | null;
	/** answerNext huge: the bytes of the answer written before the client stopped reading (or all of them). */
	answerBytesSent?: number;
	/** ms since the epoch, sub-millisecond precision. */
	startedAt: number;
	endedAt: number | null;
}

/** A record as it travels on the wire. */
export type SandboxRecord = Record<string, any> & { id: string };

export interface SandboxStore {
	/** Attachment contents by attachment ID. */
	readonly files: Map<string, Buffer>;
	/** Creates without request, duplicate check or required-field check. Accepts read-only attributes such as createdAt (to place records in the past). */
	create(entityType: string, fields: Record<string, unknown>): SandboxRecord;
	get(entityType: string, id: string): SandboxRecord | undefined;
	/** In creation order. */
	list(entityType: string): SandboxRecord[];
	count(entityType: string): number;
	update(entityType: string, id: string, fields: Record<string, unknown>): SandboxRecord;
	/** As EspoCRM, the record is only marked deleted: an admin (Basic) still reads it, with `deleted: true` ('espocrm' and 'both' dialects). */
	delete(entityType: string, id: string): boolean;
	link(entityType: string, id: string, link: string, foreignId: string): true;
	unlink(entityType: string, id: string, link: string, foreignId: string): true;
	related(entityType: string, id: string, link: string): SandboxRecord[];
	/** Clears every record; the sandbox's users (SANDBOX_USERS) are created again. */
	reset(): void;
	/** Calls the listener after every record change, through the API or these methods; returns the unsubscribe function. */
	onChange(listener: (event: ChangeEvent) => void): () => void;
}

export interface ChangeEvent {
	action: 'create' | 'update' | 'delete';
	entityType: string;
	id: string;
	/** What a webhook of the action carries: the created record, the changed attributes plus id, or { id }. */
	data: Record<string, any>;
	/** The record after the change (before it, for a delete). */
	record: Record<string, any>;
}

export interface FaultFilter {
	/** Only requests with this method. */
	method?: string;
	/** Only requests whose path (after /api/v1) starts with this. */
	pathPrefix?: string;
}

export interface FailNextOptions extends FaultFilter {
	/** Default 1. */
	count?: number;
	status: number;
	/** Seconds, sent as Retry-After. */
	retryAfter?: number | string;
	/** X-Status-Reason; without it the refusal has no such header (as a proxy's). */
	reason?: string;
	/** JSON body of the refusal (none by default). */
	body?: unknown;
	/**
	 * The refusal repeats every request header verbatim (Authorization, X-Api-Key, Espo-Authorization,
	 * X-Hmac-Authorization included): X-Status-Reason `<reason> Request headers: Name: value; ...` and the JSON body
	 * `{ message, requestHeaders: { Name: value } }`, as a misconfigured proxy does.
	 */
	echoRequestHeaders?: boolean;
}

export interface FailEveryOptions extends FaultFilter {
	every: number;
	status: number;
	retryAfter?: number | string;
	reason?: string;
	/** At most this many failures; unlimited by default. */
	times?: number;
	/** As in FailNextOptions. */
	echoRequestHeaders?: boolean;
}

export interface DropNextOptions extends FaultFilter {
	/** Default 1. */
	count?: number;
	/** Carry the request out first (records changed, webhooks queued), then drop the connection without an answer. */
	after?: boolean;
}

export interface RedirectNextOptions extends FaultFilter {
	/** Default 1. */
	count?: number;
	/** 301, 302, 303, 307 or 308; default 302. */
	status?: number;
	/** The Location header; `{url}` in it becomes the request's path and query, e.g. `${recorder.origin}{url}`. */
	location: string;
}

export interface AnswerNextOptions extends FaultFilter {
	/** Default 1. */
	count?: number;
	/**
	 * html: 200 text/html, a login page. list: 200, a JSON array of two records (`listed-1`, `listed-2`). record: 200, one
	 * record (`single-1`), where a list belongs. huge: 200 application/json of `bytes`, written only as fast as the client
	 * reads (RecordedRequest.answerBytesSent counts what left). silent: the request is read and never answered.
	 */
	kind: 'html' | 'list' | 'record' | 'huge' | 'silent';
	/** huge: the body's size; default 256 MB. */
	bytes?: number;
	/** huge: no Content-Length (chunked), so that only reading tells the size. */
	chunked?: boolean;
}

export interface MaxInFlightOptions {
	limit: number;
	/** Default 503. */
	status?: number;
	retryAfter?: number | string;
	reason?: string;
}

export interface SandboxFaults {
	/** Delay before every reply, ms. */
	latencyMs: number;
	/** A request arriving while `limit` others are being handled gets `status` at once; null disables. */
	maxInFlight: MaxInFlightOptions | null;
	/** A sending e-mail fails: 500, X-Status-Reason sendingFail, record kept as Draft. */
	emailSendingFails: boolean;
	/** Extra delay before POST /Auth answers, ms (widens token races). */
	authLatencyMs: number;
	/** Every request, API or not, gets 200 text/html with a small web page, as a web server's catch-all does. */
	htmlCatchAll: boolean;
	/** GET /I18n answers this status (and reason) instead of the labels; null: normal. */
	i18nFailure: { status: number; reason?: string } | null;
	/** Lists ignore `offset` in the query string: every page is the first, as on a server that does not page. */
	ignoresOffset: boolean;
	/** Lists ignore `where`, `orderBy` and `order` but page by offset (EspoCRM's opted-out members of a target list). */
	ignoresWhereAndOrder: boolean;
	failNext(options: FailNextOptions): void;
	failEvery(options: FailEveryOptions): void;
	dropNext(options?: DropNextOptions): void;
	/** Redirects the next matching requests (before authentication, as a proxy does). */
	redirectNext(options: RedirectNextOptions): void;
	/** Answers the next matching requests with the wrong kind of answer (before authentication), or not at all. */
	answerNext(options: AnswerNextOptions): void;
	clear(): void;
}

export interface OutboxMail {
	emailId: string;
	from: string | null;
	to: string[];
	cc: string[];
	bcc: string[];
	subject: string | null;
	body: string | null;
	isHtml: boolean;
	attachmentIds: string[];
	sentAt: string;
}

export interface WebhookRecord {
	id: string;
	event: string;
	url: string;
	isActive: boolean;
	/** The API user who made it; null for one an admin made without naming a user. */
	userId: string | null;
	userName: string | null;
	entityType: string;
	type: 'create' | 'update' | 'fieldUpdate' | 'delete';
	field: string | null;
	secretKey: string;
	createdAt: string;
	modifiedAt: string;
}

export interface WebhookDelivery {
	webhookId: string;
	event: string;
	url: string;
	/** The job run's clock, ms. */
	at: number;
	/** Content-Type, Content-Length, Accept and X-Signature = base64(`<webhookId>:` + raw HMAC-SHA256 of body with the secretKey). */
	requestHeaders: Record<string, string>;
	/** The exact body bytes (PHP's json_encode: `\/` and `\uXXXX` escapes). */
	body: string;
	/** The body parsed: the records, oldest first. */
	payload: any[];
	/** The receiver's status; 408 for a timeout, 0 for no answer. */
	status: number;
	error?: string;
}

export interface WebhookDeliveryReport {
	/** deliver() or runJob() passes made (deliverAll: several). */
	runs: number;
	/** One entry per request: how many records, the status, and what happened to them. */
	requests: Array<{
		webhookId: string;
		event: string;
		url: string;
		count: number;
		status: number;
		/** 2xx/3xx delivered; 410 webhookDeleted; 0, 401, 403, 404, 405, 408, 500, 503 retry (failed after the last attempt); others failed. */
		outcome: 'delivered' | 'retry' | 'failed' | 'webhookDeleted';
	}>;
	statuses: number[];
	/** Records given up: failed for good, their webhook gone or inactive, or not readable by the webhook's user. */
	dropped: number;
	/** Webhooks deleted because the receiver answered 410. */
	deletedWebhooks: string[];
	/** Queued events and deliveries still waiting (retries included). */
	pending: number;
}

export interface SandboxWebhooks {
	/** Every webhook, secretKey included. */
	list(): WebhookRecord[];
	/**
	 * Delivers everything queued: each webhook gets its ready records, oldest first, up to batchSize (50) per POST;
	 * each record is attempted once per call (a failed batch waits for a later call). `now` moves the clock (retry delays).
	 */
	deliver(options?: { now?: number }): Promise<WebhookDeliveryReport>;
	/**
	 * Exactly one run of EspoCRM 8.1.5's "Process Webhook Queue" job: up to eventPortionSize (20) queued events become
	 * deliveries, then up to portionSize (20) webhooks get ONE request each of up to batchSize records.
	 */
	runJob(options?: { now?: number }): Promise<WebhookDeliveryReport>;
	/** deliver() until nothing is ready (retries included when failAttemptPeriodMs is 0); at most maxRuns calls, default 100. */
	deliverAll(options?: { maxRuns?: number; now?: number }): Promise<WebhookDeliveryReport>;
	/** Every request made, in order. */
	deliveries: WebhookDelivery[];
	/** Calls deliver() every `ms` (what the option webhookDeliveryIntervalMs does). */
	start(ms: number): void;
	/** Stops the timer and waits for a run in progress. */
	stop(): Promise<void>;
	readonly config: Required<WebhookConfig>;
}

export interface Sandbox {
	readonly origin: string;
	/** origin + '/api/v1' */
	readonly baseUrl: string;
	readonly dialect: Dialect;
	setDialect(dialect: Dialect): void;
	setRestrictedScopes(entityTypes: string[]): void;
	/** Types whose records API users may read but whose stream their role does not allow: posts to them, their streams and follows are 403. reset() clears it. */
	setNoStreamScopes(entityTypes: string[]): void;
	/** Whether API users' role allows the Webhook scope; without it every /Webhook request of theirs is 403 with an empty reason. reset() allows it again. */
	setWebhookScope(allowed: boolean): void;
	/** The EspoCRM version to answer as where versions differ ('7.5.6', '9.3.4', '10.0.0'; versions.js), with no lock, pipeline or allow-list yet. reset() goes back to the option's (default 8.1.5). */
	setServerVersion(version: string): void;
	/** What the server version adds (versions.js). */
	readonly version: SandboxServerVersion;
	/** EspoCRM's webhooks: queued events, delivery, what was sent. */
	readonly webhooks: SandboxWebhooks;
	/** In arrival order. */
	requests: RecordedRequest[];
	clearRequests(): void;
	/** Clears records (webhooks too), webhook queues and deliveries, requests, faults, tokens, failed-login counters and the outbox; keeps the dialect. */
	reset(): void;
	readonly store: SandboxStore;
	/** EspoCRM's streams (stream.js): the notes; reset() clears them. */
	readonly streams: SandboxStreams;
	readonly faults: SandboxFaults;
	/** Mails the sandbox sent (status Sent). */
	readonly outbox: OutboxMail[];
	/** Every issued Bearer token stops working (401). */
	expireTokens(): void;
	/** Successful POST /Auth calls. */
	readonly tokensIssued: number;
	/** Highest number of requests being handled at once (counted on arrival, refused ones included). */
	maxInFlightSeen: number;
	/** Stops webhook delivery (waiting for a run in progress) and the server. */
	close(): Promise<void>;
}

/** A pipeline of EspoCRM 10 (versions.js): its stages in their order, each mapped to a status value. */
export interface SandboxPipeline {
	id: string;
	name: string;
	stages: Array<{ id: string; name: string; mappedStatus: string }>;
}

export interface SandboxServerVersion {
	readonly version: string;
	atLeast(version: string): boolean;
	/** EspoCRM 9.3.2+: the `host:port` entries a webhook URL on an internal address may have (data/config.php). */
	webhookAllowedAddressList: string[];
	/** EspoCRM 10: the record cannot be changed or deleted (409). */
	lock(entityType: string, id: string): void;
	/** EspoCRM 10: the type's records follow these pipelines (the first is the default). */
	setPipelines(entityType: string, pipelines: SandboxPipeline[]): void;
}

/** The note EspoCRM writes itself when a record's status field changes, as `version` writes it (versions.js). */
export function statusChangeNote(
	version: string,
	field: string,
	value: string,
): { type: string; data: Record<string, unknown> };

/** A note of EspoCRM's streams: a post, or what EspoCRM writes itself about a record (Create, Update, Status, …). */
export type SandboxNote = Record<string, any> & {
	id: string;
	number: number;
	type: string;
	parentType: string | null;
	parentId: string | null;
};

export interface SandboxStreams {
	/** In creation order. */
	readonly notes: SandboxNote[];
	/** Adds a note without a request; createdById is the admin's unless given. */
	add(fields: Partial<SandboxNote>): SandboxNote;
}

export function startSandbox(options?: SandboxOptions): Promise<Sandbox>;

export interface RecorderRequest {
	method: string;
	/** Path and query as received. */
	url: string;
	/** Lowercased keys. */
	headers: Record<string, string | string[] | undefined>;
	/** The raw body. */
	body: string;
}

/** A second listener (another host or port) that records every request and answers 200 with record- and list-like JSON. */
export interface Recorder {
	/** e.g. http://127.0.0.2:41234 */
	readonly origin: string;
	readonly requests: RecorderRequest[];
	close(): Promise<void>;
}

/** Starts a Recorder; host defaults to 127.0.0.2 (another origin than the sandbox's 127.0.0.1), port to a free one. */
export function startRecorder(options?: { host?: string; port?: number }): Promise<Recorder>;

/** Loads the demo data (accounts, contacts, leads, opportunities, e-mails, projects, users). */
export function seedDemoData(store: SandboxStore): {
	accounts: number;
	contacts: number;
	leads: number;
	opportunities: number;
	emails: number;
	projects: number;
	users: number;
	meetings: number;
	calls: number;
	tasks: number;
};

export const ENTITY_DEFS: Record<
	string,
	{ fields: Record<string, any>; links: Record<string, any>; isCustom?: boolean }
>;

/** The options of `npm run sandbox` and `npm run dev` (cli.js): both dialects, the demo data, no failed-login lock-out. */
export const DEV_SANDBOX_OPTIONS: Readonly<
	Pick<SandboxOptions, 'dialect' | 'seed' | 'failedLoginLimit'>
>;
