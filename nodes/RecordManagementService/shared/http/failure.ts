import type { ICredentialDataDecryptedObject, IDataObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { hmacAuthorization } from '../../../../shared/hmac';

/** What the node learns from a failed request: the status, the server's X-Status-Reason, and the body if any. */
export interface FailedResponse {
	status?: number;
	reason: string;
	body?: unknown;
	retryAfter?: string;
	/** Set when no response arrived (refused, reset, timed out). */
	networkCode?: string;
	/** Set when no answer came within the request's timeout. */
	timedOut?: boolean;
	/** Where a redirect (3xx) points. */
	location?: string;
	/** What went wrong when nothing was sent at all (the credential refused to build the request, for example). */
	message?: string;
	/** The values of the authentication headers the request carried: only to redact them from what the server said. */
	sentSecrets: string[];
}

const AUTHENTICATION_HEADERS = new Set([
	'authorization',
	'x-api-key',
	'espo-authorization',
	'x-hmac-authorization',
]);

/** The authentication header values of the request that failed (and the token or key inside "Bearer …"/"Basic …"). */
function authenticationHeaderValues(candidate: unknown): string[] {
	const headers =
		(candidate as { config?: { headers?: Record<string, unknown> } })?.config?.headers ?? {};
	return Object.entries(headers)
		.filter(
			([name, value]) =>
				AUTHENTICATION_HEADERS.has(name.toLowerCase()) && typeof value === 'string',
		)
		.flatMap(([, value]) => [
			value as string,
			(value as string).replace(/^(Bearer|Basic)\s+/i, ''),
		]);
}

/**
 * Reads a failure of n8n's HTTP helpers. They wrap the HTTP client's error in a NodeApiError whose `cause`
 * keeps the response; only status, headers and body are read, never the request (it carries the credentials).
 */
export function readFailure(error: unknown): FailedResponse {
	const candidates = [error, (error as { cause?: unknown })?.cause];
	const sentSecrets = candidates.flatMap(authenticationHeaderValues);
	for (const candidate of candidates) {
		const response = (candidate as { response?: IDataObject })?.response;
		if (response && typeof response === 'object' && typeof response.status === 'number') {
			const headers = (response.headers ?? {}) as IDataObject;
			return {
				status: response.status,
				reason: String(headers['x-status-reason'] ?? '').trim(),
				body: response.data,
				retryAfter:
					headers['retry-after'] === undefined ? undefined : String(headers['retry-after']),
				location: headers.location === undefined ? undefined : String(headers.location),
				sentSecrets,
			};
		}
	}
	for (const candidate of candidates) {
		const code = (candidate as { code?: unknown })?.code;
		if (typeof code === 'string' && NETWORK_CODES.has(code)) {
			// Axios says ECONNABORTED with "timeout of 30000ms exceeded" when the request's timeout passed.
			const timedOut =
				code === 'ETIMEDOUT' || /timeout/i.test(String((candidate as Error).message));
			return { reason: '', networkCode: code, timedOut, sentSecrets };
		}
	}
	// The node's own errors (apiError below) carry the status and reason they were made from.
	if (error instanceof NodeApiError && error.httpCode && /^\d+$/.test(error.httpCode)) {
		return {
			status: Number(error.httpCode),
			reason: String(error.errorResponse?.reason ?? ''),
			sentSecrets,
		};
	}
	const cause = (error as { cause?: unknown })?.cause;
	return {
		reason: '',
		message: ((cause instanceof Error ? cause : error) as Error)?.message,
		sentSecrets,
	};
}

/** The credential's fields that are secret, and what the authentication schemes derive from them. */
const SECRET_FIELDS = ['apiKey', 'secretKey', 'password', 'clientSecret', 'accessToken'];

/**
 * Every value that must never reach an output item, an error or a log: the credential's secrets, the Basic pair as
 * it travels, and the authentication headers of the failed request (an HMAC signature, a token).
 */
export function secretsOf(
	credentials: ICredentialDataDecryptedObject | undefined,
	failure?: FailedResponse,
	request?: { method?: string; url: string },
): string[] {
	const values = SECRET_FIELDS.map((field) => credentials?.[field]).filter(
		(value): value is string => typeof value === 'string',
	);
	// An answer that echoes the request's headers: the HMAC header of that request (a failure has it from the request).
	if (credentials?.authentication === 'hmac' && request?.url)
		values.push(hmacAuthorization(credentials, request));
	if (credentials?.username !== undefined && credentials?.password !== undefined) {
		values.push(Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64'));
	}
	values.push(...(failure?.sentSecrets ?? []));
	// Shorter values would redact ordinary words; no credential of these schemes is that short.
	const secrets = values.map((value) => value.trim()).filter((value) => value.length >= 4);
	return (
		[
			...new Set(
				secrets.flatMap((secret) => [
					secret,
					JSON.stringify(secret).slice(1, -1),
					encodeURIComponent(secret),
				]),
			),
		]
			// Longest first, so that a secret containing another is replaced whole.
			.sort((a, b) => b.length - a.length)
	);
}

/** Replaces every secret in a text, however a server or proxy echoed it (as is, JSON-escaped or URL-encoded). */
export function redact(text: string, secrets: string[]): string {
	return secrets.reduce((redacted, secret) => redacted.split(secret).join('[redacted]'), text);
}

export function redactValue<T>(value: T, secrets: string[]): T {
	if (value === undefined || secrets.length === 0) return value;
	return JSON.parse(redact(JSON.stringify(value), secrets)) as T;
}

/** Failures where no answer came back; a cancelled execution (ERR_CANCELED) is not one of them. */
const NETWORK_CODES = new Set([
	'ECONNREFUSED',
	'ECONNRESET',
	'ECONNABORTED',
	'ETIMEDOUT',
	'ESOCKETTIMEDOUT',
	'EPIPE',
	'EHOSTUNREACH',
	'ENETUNREACH',
	'ENOTFOUND',
	'EAI_AGAIN',
]);
