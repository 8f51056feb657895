import type {
	DeclarativeRestApiSettings,
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IExecutePaginationFunctions,
	IExecuteSingleFunctions,
	IHookFunctions,
	ILoadOptionsFunctions,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	INode,
	INodeExecutionData,
	IPollFunctions,
	IWebhookFunctions,
	PostReceiveAction,
} from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { apiBaseUrl, redirectDecision } from '../../../../shared/addresses';
import { isBodyStream, parseJsonAnswer, readUpTo } from '../../../../shared/answerBody';
import type { Expected } from './answers';
import { MAX_ERROR_ANSWER_BYTES, MAX_JSON_ANSWER_BYTES, checkAnswer, megabytes, tooLarge } from './answers';
import { UnusableAnswerError, apiError, asNodeError, credentialLoadError, unusableAnswer } from './errors';
import { readFailure, secretsOf } from './failure';
import type { FailedResponse } from './failure';
import { brokenTextIn, mendedBody } from './text';

/** A postReceive of the node's own (a function, as Download's), not one of n8n's declarative actions. */
type PostReceiveFunction = Extract<PostReceiveAction, (...args: never[]) => unknown>;

export const CREDENTIAL_TYPE = 'recordManagementServiceApi';

/** The server returns at most this many records per list request, and refuses a larger maxSize. */
export const PAGE_SIZE = 200;

/** A page of a list: its records, and how many match in all when the server counted them. */
export interface ListReply {
	total?: number;
	list: IDataObject[];
}

/** Asks the server not to count the matching records, which costs it a query per page (`total` is then -1 or -2). */
export const NO_TOTAL = { 'X-No-Total': 'true' };

/** Every kind of n8n context that sends requests: operations, routed items, triggers, webhook lifecycle. */
export type RequestContext =
	| IExecuteFunctions
	| IExecuteSingleFunctions
	| IPollFunctions
	| IHookFunctions
	| IWebhookFunctions
	| ILoadOptionsFunctions;

interface RequestSettings {
	maxParallel: number;
	maxRetries: number;
	maxRetryWaitSeconds: number;
	/** How long a request may wait for its answer (n8n's own default is 300 s). */
	timeoutSeconds: number;
}

/** Request Settings > Timeout when not set: a CRM answers within seconds, a large mass action within tens. */
export const DEFAULT_TIMEOUT_SECONDS = 30;

/** After a timeout, a read is sent again this often at most: a server that hangs is unlikely to answer the next one. */
const MAX_RESENDS_AFTER_TIMEOUT = 1;

/** Redirects within the origin followed at most per request (a trailing slash, a moved path). */
const MAX_REDIRECTS = 5;

/** The most a download (Attachment > Download) may be. */
const MAX_FILE_BYTES = 256 * 1024 * 1024;

type Outcome = 'accepted' | 'refused' | 'unknown';

/**
 * What one node run shares between its requests. n8n starts the requests of all items at once; without a bound,
 * 2,000 items are 2,000 connections. The first request goes alone: it fetches the OAuth token that the others then
 * reuse, and if the server refuses the credentials, the rest are not sent (a server blocks an address after 10
 * failed logins a minute, good credentials included). The credential is read once for the run, not per request.
 */
class Run {
	private active = 0;

	private readonly waiting: Array<() => void> = [];

	private credentialsAccepted = false;

	credentialsRefused = false;

	private credentialData?: Promise<ICredentialDataDecryptedObject>;

	private nodeCopy?: INode;

	/** The items of a routed operation whose requests this run has started. */
	readonly routedItems = new Set<number>();

	constructor(
		readonly settings: RequestSettings,
		private readonly context: RequestContext,
	) {}

	/** The node, for errors and the credential's name (n8n's getNode() copies the whole node on every call). */
	get node(): INode {
		return (this.nodeCopy ??= this.context.getNode());
	}

	/** The decrypted credential. n8n writes a renewed token into this same object, so the whole run sees it. */
	async credentials(): Promise<ICredentialDataDecryptedObject> {
		const pending = (this.credentialData ??= this.context.getCredentials(CREDENTIAL_TYPE));
		// After a failure (n8n's database restarting), the next request reads it again.
		pending.catch(() => {
			if (this.credentialData === pending) this.credentialData = undefined;
		});
		return await pending;
	}

	private get limit() {
		return this.credentialsAccepted ? this.settings.maxParallel : 1;
	}

	async enter() {
		if (this.active < this.limit) {
			this.active++;
			return;
		}
		// The slot is handed over by leave(), which counts it as active before waking the request up.
		await new Promise<void>((resolve) => this.waiting.push(resolve));
	}

	leave(outcome: Outcome) {
		if (outcome === 'accepted') this.credentialsAccepted = true;
		if (outcome === 'refused') this.credentialsRefused = true;
		this.active--;
		while (this.waiting.length && this.active < this.limit) {
			this.active++;
			this.waiting.shift()!();
		}
	}
}

/**
 * One Run per node run. A custom operation has one context per run (n8n's "Retry On Fail" runs the node again with a
 * new one, so a retry starts afresh); the items of a routed operation each have their own context, all with the run's
 * execute-data object, which a retry reuses (see `routedRunOf`); a polling trigger has one context from activation to
 * deactivation, and each poll starts a run of its own (`startRun`).
 */
const runs = new WeakMap<object, Run>();

function readSettings(context: RequestContext): Partial<RequestSettings> {
	// Only the action node has Request Settings; an operation reads them as item 0 gives them.
	if ('getInputData' in context && !('getItemIndex' in context)) {
		return context.getNodeParameter('requestSettings', 0, {}) as Partial<RequestSettings>;
	}
	return (context as IPollFunctions).getNodeParameter('requestSettings', {}) as Partial<RequestSettings>;
}

function runKey(context: RequestContext): object {
	return 'getItemIndex' in context ? context.getExecuteData() : context;
}

/** Starts a new run for this context: what the last one learnt (a refused credential, the credential read) is dropped. */
export function startRun(context: RequestContext): void {
	runs.delete(runKey(context));
}

export function runOf(context: RequestContext): Run {
	const key = runKey(context);
	let run = runs.get(key);
	if (!run) {
		const settings = readSettings(context);
		run = new Run(
			{
				maxParallel: Math.max(1, settings.maxParallel ?? 5),
				maxRetries: Math.max(0, settings.maxRetries ?? 5),
				maxRetryWaitSeconds: Math.max(0, settings.maxRetryWaitSeconds ?? 60),
				timeoutSeconds: settings.timeoutSeconds !== undefined && settings.timeoutSeconds > 0 ? settings.timeoutSeconds : DEFAULT_TIMEOUT_SECONDS,
			},
			context,
		);
		runs.set(key, run);
	}
	return run;
}

/**
 * Whether to send the request again, which must not make a change twice. 429 and 503 mean the server did not take the
 * request, so any request may be resent after them; after 502, 504 or a lost connection the server may have
 * carried it out, so only requests that end in the same state when repeated are resent.
 */
function mayResend({ status, networkCode }: FailedResponse, idempotent: boolean) {
	if (status === 429 || status === 503) return true;
	return idempotent && outcomeUnknown({ status, networkCode });
}

/** After these failures the server may have carried the request out. */
export function outcomeUnknown({ status, networkCode }: Pick<FailedResponse, 'status' | 'networkCode'>) {
	return status === 502 || status === 504 || networkCode !== undefined;
}

function retryAfterMs(retryAfter: string | undefined, attempt: number): number {
	const seconds = Number(retryAfter);
	if (retryAfter !== undefined && retryAfter.trim() !== '' && Number.isFinite(seconds)) {
		return Math.max(0, seconds * 1000);
	}
	const date = retryAfter === undefined ? NaN : Date.parse(retryAfter);
	if (Number.isFinite(date)) return Math.max(0, date - Date.now());
	return Math.min(30_000, 250 * 2 ** attempt);
}

/** An answer, and the failed attempts before it (each may or may not have been carried out, see outcomeUnknown). */
export interface Sent<T> {
	body: T;
	earlierFailures: FailedResponse[];
}

/**
 * Sends one request with what every request of this node gets: the run's bound on parallel requests, redirects
 * followed only within the origin, resending after transient failures within the user's bounds, and errors that say
 * what went wrong (with every secret redacted). `send` makes one attempt (`exchange`: n8n's authenticated HTTP
 * helper, the answer read up to a bound) of `request`, or of where a redirect within the origin led.
 */
async function sendReliably<T>(
	context: RequestContext,
	itemIndex: number,
	idempotent: boolean,
	request: IHttpRequestOptions,
	send: (credentials: ICredentialDataDecryptedObject, request: IHttpRequestOptions) => Promise<T>,
): Promise<Sent<T>> {
	const run = runOf(context);
	const { settings } = run;
	await run.enter();
	let outcome: Outcome = 'unknown';
	const earlierFailures: FailedResponse[] = [];
	try {
		let credentials: ICredentialDataDecryptedObject;
		try {
			credentials = await run.credentials();
		} catch (error) {
			throw credentialLoadError(run.node, error, itemIndex);
		}
		if (run.credentialsRefused) {
			const error = apiError(run.node, { response: { status: 401, headers: {} } }, itemIndex);
			error.description = `Not sent: an earlier request of this run was refused with these credentials. ${error.description}`;
			throw error;
		}
		let timeouts = 0;
		let redirects = 0;
		let current = request;
		for (let attempt = 0; ; attempt++) {
			try {
				const body = await send(credentials, current);
				outcome = 'accepted';
				return { body, earlierFailures };
			} catch (error) {
				// The node's own refusals (of an answer, in postReceive) are already what the user should see.
				if (error instanceof NodeOperationError) throw asNodeError(run.node, error, itemIndex);
				if (error instanceof UnusableAnswerError) {
					outcome = 'accepted';
					throw asNodeError(run.node, error, itemIndex);
				}
				await readFailedAnswer(error);
				const failure = readFailure(error);
				const redirected = redirectTarget(run.node, itemIndex, credentials.baseUrl, current, failure, redirects);
				if (redirected) {
					redirects++;
					current = redirected;
					// Not an attempt: the request has not been answered yet.
					attempt--;
					continue;
				}
				if (failure.timedOut) timeouts++;
				const wait = retryAfterMs(failure.retryAfter, attempt);
				const transient = mayResend(failure, idempotent) && timeouts <= MAX_RESENDS_AFTER_TIMEOUT;
				const waitAllowed = wait <= settings.maxRetryWaitSeconds * 1000;
				if (transient && waitAllowed && attempt < settings.maxRetries) {
					earlierFailures.push(failure);
					await sleep(wait);
					continue;
				}
				if (failure.status === 401) outcome = 'refused';
				else if (failure.status !== undefined) outcome = 'accepted';
				throw apiError(
					run.node,
					error,
					itemIndex,
					{
						idempotent,
						resent: attempt,
						timeoutSeconds: settings.timeoutSeconds,
						...(transient && !waitAllowed ? { waitRefusedSeconds: Math.ceil(wait / 1000) } : {}),
					},
					credentials,
				);
			}
		}
	} finally {
		run.leave(outcome);
	}
}

const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'PATCH']);

export type ApiRequest = IHttpRequestOptions & {
	idempotent?: boolean;
	/** What the operation reads from the answer: anything else is refused with what came back (answers.ts). */
	expect?: Expected;
};

/** The request's address, for redirects: the API root of the credential and the request's path. */
function addressOf(apiBase: string, url: string): string {
	return /^https?:\/\//i.test(url) ? url : `${apiBase}${url}`;
}

/**
 * Where a redirect leads, if the node follows it: only as `redirectDecision` allows (within the origin, never turning a
 * change into a read), MAX_REDIRECTS times at most. Every other redirect stops with an error that names where it
 * pointed; nothing is sent there (the credential's `authenticate` tells n8n's helper not to follow any redirect).
 */
function redirectTarget(
	node: INode,
	itemIndex: number,
	baseUrl: unknown,
	current: IHttpRequestOptions,
	{ status, location }: FailedResponse,
	redirectsSoFar: number,
): IHttpRequestOptions | undefined {
	if (status === undefined || status < 300 || status > 399 || location === undefined) return undefined;
	// The request was sent, so the Base URL is one.
	const apiBase = apiBaseUrl(baseUrl);
	const decision = redirectDecision(addressOf(apiBase, current.url), current.method, status, location);
	const fix =
		"Put the address the server answers at in the credential's Base URL. Redirects to another host, port or scheme are not followed, so that the credentials never reach a server you did not name (a proxy, a load balancer or a moved server may redirect).";
	if ('refuse' in decision) throw unusableAnswer(node, itemIndex, status, decision.refuse, fix);
	if (redirectsSoFar >= MAX_REDIRECTS) {
		throw unusableAnswer(node, itemIndex, status, `The server redirected the request more than ${MAX_REDIRECTS} times`, fix);
	}
	// Within the API root the path stays relative, so that an HMAC signature covers it as the server reads it.
	const target = decision.follow.href;
	const url = target.startsWith(`${apiBase}/`) ? target.slice(apiBase.length) : target;
	// The redirect's address carries the query the server wants.
	return { ...current, url, qs: undefined };
}

/** A failed request's answer, read (up to a bound) from its stream, so that its reason and body can be shown. */
async function readFailedAnswer(error: unknown): Promise<void> {
	for (const candidate of [error, (error as { cause?: unknown })?.cause]) {
		const response = (candidate as { response?: { data?: unknown } })?.response;
		if (response && isBodyStream(response.data)) {
			const bytes = await readUpTo(response.data, MAX_ERROR_ANSWER_BYTES).catch(() => undefined);
			response.data = bytes === undefined ? undefined : parseJsonAnswer(bytes.toString('utf8'));
		}
	}
}

/** An answer read whole (up to its bound): status, headers and bytes. */
interface Exchanged {
	statusCode: number;
	headers: IDataObject;
	bytes: Buffer;
}

/**
 * Sends one authenticated request (the run's bound, resending, redirects within the origin, the Timeout) and reads its
 * answer from a stream, `limit` bytes at most: a larger answer is refused without being read whole. With `UNREAD`, an
 * answer is not read at all (its bytes are empty): the operation does not use it, and the server has done the change.
 * `check` looks at the answer before it counts as accepted.
 */
async function exchange<T>(
	context: RequestContext,
	itemIndex: number,
	request: IHttpRequestOptions,
	idempotent: boolean,
	limit: { bytes: number; what: string } | typeof UNREAD,
	check: (answer: Exchanged, credentials: ICredentialDataDecryptedObject) => T,
): Promise<Sent<T>> {
	const { node, settings } = runOf(context);
	// Parameters that go into an address are refused where they are read, naming the parameter (validation.ts,
	// requireWellFormed). This guards the rest (a value taken from an answer, say): n8n's encoder would send another
	// character in place of a broken one, or throw "URI malformed".
	if (brokenTextIn([request.url, request.qs])) {
		throw new NodeOperationError(node, `A value for the request's address holds a broken character, such as half of an emoji (item ${itemIndex})`, {
			itemIndex,
			description: 'Nothing was sent for this item. Correct the text where it comes from.',
		});
	}
	// A broken character in a JSON body (text.ts) goes out as the escape \ud83d, which EspoCRM 8.1.5 refuses with 500
	// and no reason (PHP's json_decode: "Single unpaired UTF-16 surrogate"), so one cut-off emoji in a description
	// would fail its item with an unexplained error. It is sent as U+FFFD (�) instead, as every UTF-8 encoder writes
	// such a character (and a browser sends it from a form): the half character carries nothing, the rest of the text
	// is kept. IDs and match values are never mended: they are refused, since another value would find another record.
	if (request.body !== undefined) request = { ...request, body: mendedBody(request.body) };
	return await sendReliably(context, itemIndex, idempotent, request, async (data, current) => {
		const response = (await context.helpers.httpRequestWithAuthentication.call(
			context,
			CREDENTIAL_TYPE,
			{
				json: true,
				arrayFormat: 'indices',
				...current,
				headers: { Accept: 'application/json', 'Content-Type': 'application/json', ...current.headers },
				timeout: settings.timeoutSeconds * 1000,
				returnFullResponse: true,
				// Read below, up to a bound, instead of whole by n8n's helper.
				encoding: 'stream',
			},
			// The credential read once for the run, instead of once per request.
			{
				credentialsDecrypted: {
					id: node.credentials?.[CREDENTIAL_TYPE]?.id ?? '',
					name: node.credentials?.[CREDENTIAL_TYPE]?.name ?? '',
					type: CREDENTIAL_TYPE,
					data,
				},
			},
		)) as IN8nHttpFullResponse;
		const declared = Number(response.headers['content-length']);
		const stream = isBodyStream(response.body) ? response.body : undefined;
		if (limit === UNREAD) {
			stream?.destroy?.();
			return check({ statusCode: response.statusCode, headers: response.headers, bytes: Buffer.alloc(0) }, data);
		}
		const bytes =
			Number.isFinite(declared) && declared > limit.bytes
				? undefined
				: stream
					? await readUpTo(stream, limit.bytes)
					: Buffer.from(String(response.body ?? ''));
		if (bytes === undefined) {
			stream?.destroy?.();
			throw tooLarge(node, itemIndex, request, response.statusCode, limit.bytes, limit.what);
		}
		return check({ statusCode: response.statusCode, headers: response.headers, bytes }, data);
	});
}

/** For `exchange`: an answer the operation does not use (Delete, Follow, Unfollow), which is not read. */
const UNREAD = Symbol('the answer is not read');

const JSON_LIMIT = {
	bytes: MAX_JSON_ANSWER_BYTES,
	what: `The node reads answers of up to ${megabytes(MAX_JSON_ANSWER_BYTES)}: a page of 200 records is far smaller.`,
};

const FILE_LIMIT = {
	bytes: MAX_FILE_BYTES,
	what: `Downloads are read up to ${megabytes(MAX_FILE_BYTES)}, far above what EspoCRM accepts as an upload by default.`,
};

/**
 * One authenticated request of this node, with the run's bound, resending and errors; the answer and earlier failures.
 * The answer must be JSON, of the shape `expect` names (answers.ts), and MAX_JSON_ANSWER_BYTES at most.
 */
export async function send<T = IDataObject>(context: RequestContext, itemIndex: number, options: ApiRequest): Promise<Sent<T>> {
	const { idempotent, expect, ...request } = options;
	const method = (request.method ?? 'GET').toUpperCase();
	const { node } = runOf(context);
	return await exchange(context, itemIndex, request, idempotent ?? IDEMPOTENT_METHODS.has(method), JSON_LIMIT, (answer, data) => {
		const text = answer.bytes.toString('utf8');
		const body = parseJsonAnswer(text);
		const contentType = String(answer.headers['content-type'] ?? '');
		checkAnswer(node, itemIndex, request, { status: answer.statusCode, contentType, text, body }, expect, () => secretsOf(data, undefined, request));
		return body as T;
	});
}

/** One authenticated request of this node: its answer. */
export async function apiRequest<T = IDataObject>(context: RequestContext, itemIndex: number, options: ApiRequest): Promise<T> {
	return (await send<T>(context, itemIndex, options)).body;
}

/**
 * The run of a routed operation's item. n8n's "Retry On Fail" routes the items again with the same execute-data
 * object: an item that comes a second time starts a new run, so that a retry does not inherit the last try's refusal.
 */
function routedRunOf(context: IExecutePaginationFunctions): Run {
	const itemIndex = context.getItemIndex();
	if (runOf(context).routedItems.has(itemIndex)) startRun(context);
	const run = runOf(context);
	run.routedItems.add(itemIndex);
	return run;
}

/**
 * The postReceive of a routed operation whose answer is not its output (Delete, Follow, Unfollow): the item says what
 * was done. A function, so that `routeRequest` runs it (it runs no declarative postReceive actions).
 */
export function outcomeItem(json: IDataObject): PostReceiveFunction {
	return async function (): Promise<INodeExecutionData[]> {
		return [{ json: { ...json } }];
	};
}

/**
 * n8n's RoutingNode hands every request of a routed operation (its routing sets `send.paginate`) to this function,
 * the node's `requestOperations.pagination`, so that every request gets the run's bound, resending and errors.
 */
export async function routeRequest(
	this: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
): Promise<INodeExecutionData[]> {
	routedRunOf(this);
	const itemIndex = this.getItemIndex();
	const { postReceive } = requestData;
	// n8n's routing has filled in the url (preSend `resolvePath`).
	const options = requestData.options as IHttpRequestOptions;
	const method = (options.method ?? 'GET').toUpperCase();
	const idempotent = IDEMPOTENT_METHODS.has(method);
	const actions = postReceive.flatMap((receive) => receive.actions);
	const functions = actions.filter((action): action is PostReceiveFunction => typeof action === 'function');
	const operation = this.getNodeParameter('operation', '') as string;
	// Get: the answer is the item (then its postReceive functions, such as Simplify). Sent here, so that it is read
	// up to a bound and checked to be a record.
	if (operation === 'get') {
		const { body } = await send(this, itemIndex, { ...options, expect: 'record' });
		let items: INodeExecutionData[] = [{ json: body }];
		for (const action of functions) items = await action.call(this, items, { body, headers: {}, statusCode: 200 });
		return items;
	}
	// Download: the file, read up to a bound. Delete, Follow, Unfollow: the answer is not used (and a change that was
	// done must not fail on it), so it is not read. Either goes to the operation's postReceive functions, which make the
	// item; n8n's routing would read the answer whole.
	const limit = operation === 'download' ? FILE_LIMIT : UNREAD;
	const { body: answer } = await exchange<Exchanged>(this, itemIndex, options, idempotent, limit, (exchanged) => exchanged);
	const response: IN8nHttpFullResponse = { body: answer.bytes, headers: answer.headers, statusCode: answer.statusCode };
	let items: INodeExecutionData[] = [{ json: {} }];
	for (const action of functions) items = await action.call(this, items, response);
	return items;
}
