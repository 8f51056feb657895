import type { ICredentialDataDecryptedObject, IHttpRequestOptions } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { apiBaseUrl, followRedirects } from '../../../../shared/addresses';
import { isBodyStream, parseJsonAnswer, readUpTo } from '../../../../shared/answerBody';
import { MAX_ERROR_ANSWER_BYTES } from './answers';
import {
	RedirectNotFollowed,
	UnusableAnswerError,
	apiError,
	asNodeError,
	credentialLoadError,
} from './errors';
import { readFailure } from './failure';
import type { FailedResponse } from './failure';
import type { Outcome, Run } from './run';

/** After a timeout, a read is sent again this often at most: a server that hangs is unlikely to answer the next one. */
const MAX_RESENDS_AFTER_TIMEOUT = 1;

/** Redirects within the origin followed at most per request (a trailing slash, a moved path). */
const MAX_REDIRECTS = 5;

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
export function outcomeUnknown({
	status,
	networkCode,
}: Pick<FailedResponse, 'status' | 'networkCode'>) {
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

const REDIRECT_FIX =
	"Put the address the server answers at in the credential's Base URL. Redirects to another host, port or scheme are not followed, so that the credentials never reach a server you did not name (a proxy, a load balancer or a moved server may redirect).";

/**
 * Sends one request with what every request of this node gets: the run's bound on parallel requests, redirects
 * followed only within the origin (`followRedirects`; the credential's `authenticate` turns n8n's own following off,
 * so nothing is sent elsewhere), resending after transient failures within the user's bounds, and errors that say
 * what went wrong (with every secret redacted). `send` makes one attempt (`exchange`: n8n's authenticated HTTP helper,
 * the answer read up to a bound) of `request`, or of where a redirect within the origin led: a resend goes there too.
 */
export async function sendReliably<T>(
	run: Run,
	itemIndex: number,
	idempotent: boolean,
	request: IHttpRequestOptions,
	send: (credentials: ICredentialDataDecryptedObject, request: IHttpRequestOptions) => Promise<T>,
): Promise<Sent<T>> {
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
		let current = request;
		const apiBase = () => apiBaseUrl(credentials.baseUrl);
		const followingRedirects = async () =>
			await followRedirects({
				from: () =>
					/^https?:\/\//i.test(current.url) ? current.url : `${apiBase()}${current.url}`,
				method: current.method,
				max: MAX_REDIRECTS,
				attempt: async (address) => {
					if (address !== undefined) {
						// Within the API root the path stays relative, so that an HMAC signature covers it as the server reads
						// it; the redirect's address carries the query the server wants.
						current = {
							...current,
							url: address.startsWith(`${apiBase()}/`) ? address.slice(apiBase().length) : address,
							qs: undefined,
						};
					}
					return await send(credentials, current);
				},
				redirectOf: async (outcome) => {
					if (!('error' in outcome)) return undefined;
					await readFailedAnswer(outcome.error);
					const { status, location } = readFailure(outcome.error);
					return status !== undefined && status >= 300 && status <= 399 && location !== undefined
						? { status, location }
						: undefined;
				},
				refuse: ({ status, message, tooMany }) =>
					new RedirectNotFollowed(
						run.node,
						itemIndex,
						status,
						message ?? `The server redirected the request more than ${tooMany} times`,
						REDIRECT_FIX,
					),
			});
		for (let attempt = 0; ; attempt++) {
			try {
				const body = await followingRedirects();
				outcome = 'accepted';
				return { body, earlierFailures };
			} catch (error) {
				// Not followed: thrown as it was made (its outcome unknown: the credentials were neither taken nor refused).
				if (error instanceof RedirectNotFollowed) throw asNodeError(run.node, error, itemIndex);
				// The node's own refusals (of an answer, in postReceive) are already what the user should see.
				if (error instanceof NodeOperationError) throw asNodeError(run.node, error, itemIndex);
				if (error instanceof UnusableAnswerError) {
					outcome = 'accepted';
					throw asNodeError(run.node, error, itemIndex);
				}
				await readFailedAnswer(error);
				const failure = readFailure(error);
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
