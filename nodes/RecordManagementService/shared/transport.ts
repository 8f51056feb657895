import type {
	DeclarativeRestApiSettings,
	IDataObject,
	IExecuteFunctions,
	IExecutePaginationFunctions,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	INodeExecutionData,
} from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { apiError, asNodeError, readFailure } from './errors';
import type { FailedResponse } from './errors';

export const CREDENTIAL_TYPE = 'recordManagementServiceApi';

/** The server returns at most this many records per list request, and refuses a larger maxSize. */
export const PAGE_SIZE = 200;

type Context = IExecuteFunctions | IExecuteSingleFunctions;

interface RequestSettings {
	maxParallel: number;
	maxRetries: number;
	maxRetryWaitSeconds: number;
}

/** The node's Request Settings, which hold for the whole run (the gate takes them from its first request). */
function requestSettings(context: Context): RequestSettings {
	const settings = (
		'getItemIndex' in context
			? context.getNodeParameter('requestSettings', {})
			: context.getNodeParameter('requestSettings', 0, {})
	) as Partial<RequestSettings>;
	return {
		maxParallel: Math.max(1, settings.maxParallel ?? 5),
		maxRetries: Math.max(0, settings.maxRetries ?? 5),
		maxRetryWaitSeconds: Math.max(0, settings.maxRetryWaitSeconds ?? 60),
	};
}

type Outcome = 'accepted' | 'refused' | 'unknown';

/**
 * Bounds the requests one node run has in flight. n8n starts the requests of all items at once; without a
 * bound, 2,000 items are 2,000 connections. The first request goes alone: it fetches the OAuth token that
 * the others then reuse, and if the server refuses the credentials, the rest are not sent (a server blocks
 * an address after 10 failed logins a minute, good credentials included).
 */
class RunGate {
	private active = 0;

	private readonly waiting: Array<() => void> = [];

	private credentialsAccepted = false;

	credentialsRefused = false;

	constructor(private readonly maxParallel: number) {}

	private get limit() {
		return this.credentialsAccepted ? this.maxParallel : 1;
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

/** One gate per node run: n8n hands every item of a run the same execute-data object. */
const gates = new WeakMap<object, RunGate>();

function gateOf(context: Context, settings: RequestSettings): RunGate {
	const run = context.getExecuteData();
	let gate = gates.get(run);
	if (!gate) {
		gate = new RunGate(settings.maxParallel);
		gates.set(run, gate);
	}
	return gate;
}

/**
 * Whether to send the request again, which must not make a change twice. 429 and 503 mean the server did not take the
 * request, so any request may be resent after them; after 502, 504 or a lost connection the server may have
 * carried it out, so only requests that end in the same state when repeated are resent.
 */
function mayResend({ status, networkCode }: FailedResponse, idempotent: boolean) {
	if (status === 429 || status === 503) return true;
	return idempotent && (status === 502 || status === 504 || networkCode !== undefined);
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

/**
 * Sends one request with what every request of this node gets: the run's bound on parallel requests, resending
 * after transient failures within the user's bounds, and errors that say what went wrong.
 * `send` makes the actual call (through n8n's routing or its authenticated HTTP helper).
 */
async function sendReliably<T>(
	context: Context,
	itemIndex: number,
	idempotent: boolean,
	send: () => Promise<T>,
): Promise<T> {
	const settings = requestSettings(context);
	const gate = gateOf(context, settings);
	await gate.enter();
	let outcome: Outcome = 'unknown';
	try {
		if (gate.credentialsRefused) {
			const error = apiError(context.getNode(), { response: { status: 401, headers: {} } }, itemIndex);
			error.description = `Not sent: an earlier request of this run was refused with these credentials. ${error.description}`;
			throw error;
		}
		for (let attempt = 0; ; attempt++) {
			try {
				const result = await send();
				outcome = 'accepted';
				return result;
			} catch (error) {
				// The node's own refusals (of an answer, in postReceive) are already what the user should see.
				if (error instanceof NodeOperationError) throw asNodeError(context.getNode(), error, itemIndex);
				const failure = readFailure(error);
				const wait = retryAfterMs(failure.retryAfter, attempt);
				const transient = mayResend(failure, idempotent);
				const waitAllowed = wait <= settings.maxRetryWaitSeconds * 1000;
				if (transient && waitAllowed && attempt < settings.maxRetries) {
					await sleep(wait);
					continue;
				}
				if (failure.status === 401) outcome = 'refused';
				else if (failure.status !== undefined) outcome = 'accepted';
				throw apiError(context.getNode(), error, itemIndex, {
					idempotent,
					resent: attempt,
					...(transient && !waitAllowed ? { waitRefusedSeconds: Math.ceil(wait / 1000) } : {}),
				});
			}
		}
	} finally {
		gate.leave(outcome);
	}
}

const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'PATCH']);

/**
 * n8n's RoutingNode hands every request of an operation whose routing sets `send.paginate` to this function
 * (the node's `requestOperations.pagination`). All declarative operations set it, so that every request they
 * make goes through `sendReliably`; list requests (those with `maxSize`) are also paged here.
 */
export async function routeRequest(
	this: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
): Promise<INodeExecutionData[]> {
	const itemIndex = this.getItemIndex();
	const method = (requestData.options.method ?? 'GET').toUpperCase();
	const idempotent = IDEMPOTENT_METHODS.has(method);
	const send = async (options: DeclarativeRestApiSettings.HttpRequestOptions) =>
		await sendReliably(this, itemIndex, idempotent, async () =>
			await this.makeRoutingRequest({ ...requestData, options }),
		);

	const qs = (requestData.options.qs ?? {}) as IDataObject;
	if (method !== 'GET' || qs.maxSize === undefined) return await send(requestData.options);

	// Page with offset until a short page. `total` is not used: EspoCRM answers -1 or -2 for some lists.
	const wanted = requestData.maxResults === undefined ? Infinity : Number(requestData.maxResults);
	const records: INodeExecutionData[] = [];
	let firstIdOfLastPage: unknown;
	while (records.length < wanted) {
		const maxSize = Math.min(PAGE_SIZE, wanted - records.length);
		const page = await send({ ...requestData.options, qs: { ...qs, offset: records.length, maxSize } });
		// A server that ignored `offset` would send the same page again and again.
		const firstId = page[0]?.json.id;
		if (firstId !== undefined && firstId === firstIdOfLastPage) break;
		firstIdOfLastPage = firstId;
		records.push(...page);
		if (page.length < maxSize) break;
	}
	return records;
}

/** For custom operations: one authenticated request, with the same bound, resending and errors as routed requests. */
export async function apiRequest<T = IDataObject>(
	context: IExecuteFunctions,
	itemIndex: number,
	options: IHttpRequestOptions & { idempotent?: boolean },
): Promise<T> {
	const { idempotent, ...request } = options;
	const method = (request.method ?? 'GET').toUpperCase();
	const response = await sendReliably(context, itemIndex, idempotent ?? IDEMPOTENT_METHODS.has(method), async () =>
		(await context.helpers.httpRequestWithAuthentication.call(context, CREDENTIAL_TYPE, {
			json: true,
			arrayFormat: 'indices',
			...request,
			headers: { 'Content-Type': 'application/json', ...request.headers },
			returnFullResponse: true,
		})) as IN8nHttpFullResponse,
	);
	return response.body as T;
}
