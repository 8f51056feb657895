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
	/** Entity types the API user may not reach (absent from GET /Metadata, 403 on their endpoints). reset() restores this list. */
	restrictedScopes?: string[];
	/** Called after each request has been answered (or dropped). */
	onRequest?: (request: RecordedRequest) => void;
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
	/** Status replied; 0 for a dropped connection; null while still being handled. */
	status: number | null;
	/** ms since the epoch, sub-millisecond precision. */
	startedAt: number;
	endedAt: number | null;
}

/** A record as it travels on the wire. */
export type SandboxRecord = Record<string, any> & { id: string };

export interface SandboxStore {
	/** Creates without request, duplicate check or required-field check. Accepts read-only attributes such as createdAt (to place records in the past). */
	create(entityType: string, fields: Record<string, unknown>): SandboxRecord;
	get(entityType: string, id: string): SandboxRecord | undefined;
	/** In creation order. */
	list(entityType: string): SandboxRecord[];
	count(entityType: string): number;
	update(entityType: string, id: string, fields: Record<string, unknown>): SandboxRecord;
	delete(entityType: string, id: string): boolean;
	link(entityType: string, id: string, link: string, foreignId: string): true;
	unlink(entityType: string, id: string, link: string, foreignId: string): true;
	related(entityType: string, id: string, link: string): SandboxRecord[];
	reset(): void;
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
	/** X-Status-Reason. */
	reason?: string;
	/** JSON body of the refusal (none by default). */
	body?: unknown;
}

export interface FailEveryOptions extends FaultFilter {
	every: number;
	status: number;
	retryAfter?: number | string;
	reason?: string;
	/** At most this many failures; unlimited by default. */
	times?: number;
}

export interface DropNextOptions extends FaultFilter {
	/** Default 1. */
	count?: number;
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
	failNext(options: FailNextOptions): void;
	failEvery(options: FailEveryOptions): void;
	dropNext(options?: DropNextOptions): void;
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

export interface Sandbox {
	readonly origin: string;
	/** origin + '/api/v1' */
	readonly baseUrl: string;
	readonly dialect: Dialect;
	setDialect(dialect: Dialect): void;
	setRestrictedScopes(entityTypes: string[]): void;
	/** In arrival order. */
	requests: RecordedRequest[];
	clearRequests(): void;
	/** Clears records, requests, faults, tokens, failed-login counters and the outbox; keeps the dialect. */
	reset(): void;
	readonly store: SandboxStore;
	readonly faults: SandboxFaults;
	/** Mails the sandbox sent (status Sent). */
	readonly outbox: OutboxMail[];
	/** Every issued Bearer token stops working (401). */
	expireTokens(): void;
	/** Successful POST /Auth calls. */
	readonly tokensIssued: number;
	/** Highest number of requests being handled at once (counted on arrival, refused ones included). */
	maxInFlightSeen: number;
	close(): Promise<void>;
}

export function startSandbox(options?: SandboxOptions): Promise<Sandbox>;

/** Loads the demo data (accounts, contacts, leads, opportunities, e-mails, projects, users). */
export function seedDemoData(store: SandboxStore): {
	accounts: number;
	contacts: number;
	leads: number;
	opportunities: number;
	emails: number;
	projects: number;
	users: number;
};

export const ENTITY_DEFS: Record<string, { fields: Record<string, any>; links: Record<string, any>; isCustom?: boolean }>;
