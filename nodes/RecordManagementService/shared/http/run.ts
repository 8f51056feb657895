import type {
	ICredentialDataDecryptedObject,
	IExecuteFunctions,
	IExecuteSingleFunctions,
	IHookFunctions,
	ILoadOptionsFunctions,
	INode,
	IPollFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';

export const CREDENTIAL_TYPE = 'recordManagementServiceApi';

/** Every kind of n8n context that sends requests: operations, routed items, triggers, webhook lifecycle, the form's lists. */
export type RequestContext =
	| IExecuteFunctions
	| IExecuteSingleFunctions
	| IPollFunctions
	| IHookFunctions
	| IWebhookFunctions
	| ILoadOptionsFunctions;

export interface RequestSettings {
	maxParallel: number;
	maxRetries: number;
	maxRetryWaitSeconds: number;
	/** How long a request may wait for its answer (n8n's own default is 300 s). */
	timeoutSeconds: number;
}

/** Request Settings > Timeout when not set: a CRM answers within seconds, a large mass action within tens. */
export const DEFAULT_TIMEOUT_SECONDS = 30;

/** What a request's outcome says of the credentials: taken, refused (401), or not known (no answer). */
export type Outcome = 'accepted' | 'refused' | 'unknown';

/**
 * What one node run shares between its requests, made once where the run starts (a custom operation, a routed item,
 * a poll, a webhook's lifecycle, a list of the form: `runOf`) and handed down to everything that sends. n8n starts the
 * requests of all items at once; without a bound, 2,000 items are 2,000 connections. The first request goes alone: it
 * fetches the OAuth token that the others then reuse, and if the server refuses the credentials, the rest are not sent
 * (a server blocks an address after 10 failed logins a minute, good credentials included). The credential is read once
 * for the run, not per request; what the run reads of the server once (its metadata) is kept here too (`once`).
 */
export class Run<C extends RequestContext = RequestContext> {
	private active = 0;

	private readonly waiting: Array<() => void> = [];

	private credentialsAccepted = false;

	credentialsRefused = false;

	private credentialData?: Promise<ICredentialDataDecryptedObject>;

	private nodeCopy?: INode;

	private readonly kept = new Map<string, Promise<unknown>>();

	/** The items of a routed operation whose requests this run has started. */
	readonly routedItems = new Set<number>();

	constructor(
		readonly settings: RequestSettings,
		readonly context: C,
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

	/**
	 * What `make` gives, made at the first call of the run for this key only: a failure too, unless `againAfterFailure`
	 * (the next call then makes it again).
	 */
	async once<T>(
		key: string,
		make: () => Promise<T>,
		{ againAfterFailure = false } = {},
	): Promise<T> {
		let kept = this.kept.get(key) as Promise<T> | undefined;
		if (!kept) {
			const made = make();
			this.kept.set(key, (kept = made));
			if (againAfterFailure) made.catch(() => this.kept.get(key) === made && this.kept.delete(key));
		}
		return await kept;
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
	return (context as IPollFunctions).getNodeParameter(
		'requestSettings',
		{},
	) as Partial<RequestSettings>;
}

function runKey(context: RequestContext): object {
	return 'getItemIndex' in context ? context.getExecuteData() : context;
}

/** Starts a new run for this context: what the last one learnt (a refused credential, the credential read) is dropped. */
export function startRun(context: RequestContext): void {
	runs.delete(runKey(context));
}

/** The run of this context: made by its first call, where the run starts; everything below is handed the run. */
export function runOf<C extends RequestContext>(context: C): Run<C> {
	const key = runKey(context);
	let run = runs.get(key);
	if (!run) {
		const settings = readSettings(context);
		run = new Run(
			{
				maxParallel: Math.max(1, settings.maxParallel ?? 5),
				maxRetries: Math.max(0, settings.maxRetries ?? 5),
				maxRetryWaitSeconds: Math.max(0, settings.maxRetryWaitSeconds ?? 60),
				timeoutSeconds:
					settings.timeoutSeconds !== undefined && settings.timeoutSeconds > 0
						? settings.timeoutSeconds
						: DEFAULT_TIMEOUT_SECONDS,
			},
			context,
		);
		runs.set(key, run);
	}
	return run as Run<C>;
}

/**
 * The run of a routed operation's item. n8n's "Retry On Fail" routes the items again with the same execute-data
 * object: an item that comes a second time starts a new run, so that a retry does not inherit the last try's refusal.
 */
export function routedRunOf(context: IExecuteSingleFunctions): Run<IExecuteSingleFunctions> {
	const itemIndex = context.getItemIndex();
	if (runOf(context).routedItems.has(itemIndex)) startRun(context);
	const run = runOf(context);
	run.routedItems.add(itemIndex);
	return run;
}
