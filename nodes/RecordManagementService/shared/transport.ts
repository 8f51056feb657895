import type {
	DeclarativeRestApiSettings,
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IExecutePaginationFunctions,
	IExecuteSingleFunctions,
	IHookFunctions,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	INode,
	INodeExecutionData,
	IPollFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { apiError, asNodeError, readFailure } from './errors';
import type { FailedResponse } from './errors';

export const CREDENTIAL_TYPE = 'recordManagementServiceApi';

/** The server returns at most this many records per list request, and refuses a larger maxSize. */
export const PAGE_SIZE = 200;

/** Every kind of n8n context that sends requests: operations, routed items, triggers, webhook lifecycle. */
export type RequestContext = IExecuteFunctions | IExecuteSingleFunctions | IPollFunctions | IHookFunctions | IWebhookFunctions;

interface RequestSettings {
	maxParallel: number;
	maxRetries: number;
	maxRetryWaitSeconds: number;
}

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
		this.credentialData ??= this.context.getCredentials(CREDENTIAL_TYPE);
		return await this.credentialData;
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
 * Sends one request with what every request of this node gets: the run's bound on parallel requests, resending
 * after transient failures within the user's bounds, and errors that say what went wrong (with every secret
 * redacted). `send` makes the actual call (through n8n's routing or its authenticated HTTP helper).
 */
async function sendReliably<T>(
	context: RequestContext,
	itemIndex: number,
	idempotent: boolean,
	send: (credentials: ICredentialDataDecryptedObject) => Promise<T>,
): Promise<Sent<T>> {
	const run = runOf(context);
	const { settings } = run;
	await run.enter();
	let outcome: Outcome = 'unknown';
	const earlierFailures: FailedResponse[] = [];
	try {
		const credentials = await run.credentials();
		if (run.credentialsRefused) {
			const error = apiError(run.node, { response: { status: 401, headers: {} } }, itemIndex);
			error.description = `Not sent: an earlier request of this run was refused with these credentials. ${error.description}`;
			throw error;
		}
		for (let attempt = 0; ; attempt++) {
			try {
				const body = await send(credentials);
				outcome = 'accepted';
				return { body, earlierFailures };
			} catch (error) {
				// The node's own refusals (of an answer, in postReceive) are already what the user should see.
				if (error instanceof NodeOperationError) throw asNodeError(run.node, error, itemIndex);
				const failure = readFailure(error);
				const wait = retryAfterMs(failure.retryAfter, attempt);
				const transient = mayResend(failure, idempotent);
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
					{ idempotent, resent: attempt, ...(transient && !waitAllowed ? { waitRefusedSeconds: Math.ceil(wait / 1000) } : {}) },
					credentials,
				);
			}
		}
	} finally {
		run.leave(outcome);
	}
}

const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'PATCH']);

export type ApiRequest = IHttpRequestOptions & { idempotent?: boolean };

/** One authenticated request of this node, with the run's bound, resending and errors; the answer and earlier failures. */
export async function send<T = IDataObject>(context: RequestContext, itemIndex: number, options: ApiRequest): Promise<Sent<T>> {
	const { idempotent, ...request } = options;
	const method = (request.method ?? 'GET').toUpperCase();
	const { node } = runOf(context);
	const sent = await sendReliably(context, itemIndex, idempotent ?? IDEMPOTENT_METHODS.has(method), async (data) =>
		(await context.helpers.httpRequestWithAuthentication.call(
			context,
			CREDENTIAL_TYPE,
			{
				json: true,
				arrayFormat: 'indices',
				...request,
				headers: { Accept: 'application/json', 'Content-Type': 'application/json', ...request.headers },
				returnFullResponse: true,
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
		)) as IN8nHttpFullResponse,
	);
	return { body: sent.body.body as T, earlierFailures: sent.earlierFailures };
}

/** One authenticated request of this node: its answer. */
export async function apiRequest<T = IDataObject>(context: RequestContext, itemIndex: number, options: ApiRequest): Promise<T> {
	return (await send<T>(context, itemIndex, options)).body;
}

// Lists page through listing.ts: by ID on EspoCRM, by offset elsewhere.
export { listRecords, repeats } from './listing';
export type { ListReply } from './listing';

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
 * n8n's RoutingNode hands every request of a routed operation (its routing sets `send.paginate`) to this function,
 * the node's `requestOperations.pagination`, so that every request gets the run's bound, resending and errors.
 */
export async function routeRequest(
	this: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
): Promise<INodeExecutionData[]> {
	routedRunOf(this);
	const method = (requestData.options.method ?? 'GET').toUpperCase();
	const sent = await sendReliably(this, this.getItemIndex(), IDEMPOTENT_METHODS.has(method), async () =>
		await this.makeRoutingRequest(requestData),
	);
	return sent.body;
}
