import type { ICredentialDataDecryptedObject, IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { messageForModel, runsAsTool } from '../tool/mode';
import { readFailure, redact, redactValue, secretsOf } from './failure';
import type { FailedResponse } from './failure';
import { LOCKED_RECORD, explainVersionRefusal } from './refusals';

/** What the node did about a failure, which changes what the user should do next. */
export interface Handling {
	/** Whether repeating the request cannot change anything twice. */
	idempotent: boolean;
	/** How often it was sent again. */
	resent: number;
	/** Set when the server asked to wait longer than the user allows. */
	waitRefusedSeconds?: number;
	/** The request's timeout (Request Settings > Timeout). */
	timeoutSeconds?: number;
}

const MAX_SIZE_REFUSED = /max size/i;
/** What EspoCRM says of a list's where items, order and search filters: 400 on 9.x, 500 on 8.x. */
const LIST_SETTING_REFUSED = /where item|order by|order value|primary filter|bool filter/i;
/** EspoCRM 9's answer to a relationship name the entity type does not have (8.x answers 500). */
const UNKNOWN_LINK = /link does not exist/i;

/** Messages say what happened in the user's terms; descriptions say what to do about it. */
function explain(
	failure: FailedResponse,
	handling: Handling,
): { message: string; description: string } {
	const { status, reason } = failure;
	const said = reason ? `: ${reason}` : '';
	const ofRelease = explainVersionRefusal(failure);
	if (ofRelease) return ofRelease;
	switch (status) {
		case undefined:
			if (!failure.networkCode) {
				return {
					message: failure.message || 'The request could not be made',
					// A request n8n could not build (a Base URL that is no address), a token request without a token, or an
					// answer n8n could not take in: the server may or may not have seen it.
					description:
						'The request failed before an answer from the server could be used. Check the credential (its Base URL and authentication settings).',
				};
			}
			// The network code goes into the description: n8n replaces any message that contains one with its own text.
			if (failure.timedOut && handling.timeoutSeconds !== undefined) {
				return {
					message: `The server did not answer: timed out after ${handling.timeoutSeconds} s`,
					description: `${failure.networkCode}. The request was sent ${handling.resent + 1} time${handling.resent ? 's' : ''}. Raise "Timeout" under Request Settings if the server is slow for this request (a large list, a mass action), or check that it is running. ${
						handling.idempotent
							? 'A read is sent again once at most after a timeout.'
							: 'Requests that change records are not resent after a timeout, because the server may have carried them out: check the server before running them again.'
					}`,
				};
			}
			return {
				message: 'The server could not be reached, or the connection was lost before it answered',
				description: `${failure.networkCode ?? 'No response'}. Check the Base URL of the credential and that the server is running and reachable from n8n. Requests that change records are not resent after a lost connection, because the server may have carried them out: check the server before running them again.`,
			};
		case 400:
			if (LIST_SETTING_REFUSED.test(reason)) {
				return {
					message: `The server refused the list's settings (400)${said}`,
					description:
						'Check the filter conditions (their fields and operators), the sort field and order, and the search filters: the reason above names the one refused.',
				};
			}
			return {
				message: `The server refused the request as invalid (400)${said}`,
				description:
					'Check the fields sent: a required field may be missing or a value may have the wrong form. The reason above names the field when the server gives one.',
			};
		case 401:
			return {
				message: `The server did not accept the credentials (401)${said}`,
				description:
					'Check the authentication settings of the credential (API key, user name and password, client ID and secret, or HMAC keys) and that the API user is active.',
			};
		case 403:
			if (MAX_SIZE_REFUSED.test(reason)) {
				return {
					message: `The server refused the page size (403)${said}`,
					description:
						'The server returns at most 200 records per request: use Return All or a Limit, which page for you.',
				};
			}
			return {
				message: `The server denied access (403)${said}`,
				description: reason
					? "The API user's role does not allow this. Ask the server's administrator to grant access to this entity type and action."
					: "The API user's role does not allow this, or the server blocks this address after more than 10 failed logins in a minute (wait a minute, then check the credential).",
			};
		case 404:
			if (UNKNOWN_LINK.test(reason)) {
				return {
					message: `The entity type has no relationship of that name (404)${said}`,
					description:
						'Check "Relationship Name or ID": it takes the link\'s name as the server knows it, for example "contacts" (pick it from the list to see the names this server has).',
				};
			}
			return {
				message: `The server did not find what was asked for (404)${said}`,
				description: /controller/i.test(reason)
					? 'The entity type does not exist on this server: check its name (it is case-sensitive, for example "Contact").'
					: /action/i.test(reason)
						? 'This server does not offer this action in this form: check the "Server" setting of the credential (Standard or EspoCRM 7 or later).'
						: 'Check the record ID and the entity type.',
			};
		case 409:
			if (/duplicate/i.test(reason)) {
				const found = Array.isArray(failure.body) ? (failure.body as IDataObject[]) : [];
				const names = found
					.map((record) => `${record.name ?? '(no name)'} [${record.id}]`)
					.join(', ');
				return {
					message: `The server found possible duplicates and did not create the record (409)${
						names ? `: ${names}` : ''
					}`,
					description:
						'Update the existing record instead (Create or Update matches by a field), or turn on the option "Skip Duplicate Check", where the operation offers it, to create it anyway.',
				};
			}
			return {
				message: `The record was changed by someone else meanwhile (409)${said}`,
				description: 'Read the record again and retry the change.',
			};
		case 429:
		case 502:
		case 503:
		case 504: {
			const message = `The server is busy or unavailable (${status})${said}`;
			if (handling.waitRefusedSeconds !== undefined) {
				return {
					message,
					description: `The server asked to wait ${handling.waitRefusedSeconds} seconds, longer than "Max Wait Before Retry" under Request Settings allows. Raise it, or try again later.`,
				};
			}
			if ((status === 502 || status === 504) && !handling.idempotent) {
				return {
					message,
					description:
						'The request was not sent again: the server may have carried it out before the gateway gave up. Check (for example whether the record exists) before running it again.',
				};
			}
			return {
				message,
				description: `The node sent the request ${handling.resent + 1} times. Lower "Max Parallel Requests" or raise "Max Retries" under Request Settings, or try again later.`,
			};
		}
		case 500:
			if (reason === 'sendingFail') {
				const email = (failure.body ?? {}) as IDataObject;
				return {
					message: `The e-mail was not sent: the server could not send it (500)${email.message ? `: ${email.message}` : ''}`,
					description: `The e-mail ${email.id ? `(record ${email.id}) ` : ''}is kept on the server as a draft. Check the server's outgoing mail (SMTP) settings, then send it again.`,
				};
			}
			return {
				message: `The server failed to process the request (500)${said}`,
				description:
					'EspoCRM also answers 500 to an unknown relationship name, an unknown filter operator or a malformed body: check those, then the server log.',
			};
		default:
			return {
				message: `The server refused the request (${status})${said}`,
				description: 'Check the parameters of the node; the server log may say more.',
			};
	}
}

/**
 * Turns a failure into the NodeApiError users see. It is built from plain values so that nothing of the
 * request (headers with credentials) can travel with the error into the output or the logs.
 */
export function apiError(
	node: INode,
	error: unknown,
	itemIndex: number,
	handling: Handling = { idempotent: false, resent: 0 },
	credentials?: ICredentialDataDecryptedObject,
): NodeApiError {
	const read = readFailure(error);
	const secrets = secretsOf(credentials, read);
	// What the server said may echo the request's headers (seen with misconfigured proxies).
	const failure: FailedResponse = {
		...read,
		reason: redact(read.reason, secrets),
		body: redactValue(read.body, secrets),
		message: read.message === undefined ? undefined : redact(read.message, secrets),
	};
	const explained = explain(failure, handling);
	const { message } = explained;
	// As a tool, the description is what the model is told (after the message): what it can do, not the author.
	const description = (runsAsTool(node) && adviceForModel(failure)) || explained.description;
	const errorResponse: JsonObject = {
		message,
		httpCode: failure.status === undefined ? null : String(failure.status),
		reason: failure.reason,
		...(Array.isArray(failure.body) ? { duplicates: failure.body as JsonObject[] } : {}),
	};
	return new NodeApiError(node, errorResponse, {
		message: messageForModel(node, message, description),
		description,
		httpCode: failure.status === undefined ? undefined : String(failure.status),
		itemIndex,
	});
}

/** EspoCRM's reason for a required field left out: `Field validation failure; entityType: Task, field: assignedUser, type: required.` */
const REQUIRED_FIELD = /entityType: (\w+), field: (\w+), type: required/;

/**
 * What an AI agent's model can do about a failure, where that differs from what the workflow's author reads: the
 * model cannot change the tool's settings, only call a tool again with other arguments or another tool.
 */
function adviceForModel(failure: FailedResponse): string | undefined {
	if (failure.status === 409 && /duplicate/i.test(failure.reason)) {
		const ids = (Array.isArray(failure.body) ? (failure.body as IDataObject[]) : [])
			.map((record) => record.id)
			.filter((id) => typeof id === 'string');
		const existing =
			ids.length === 1
				? `the existing record (ID ${ids[0]})`
				: ids.length
					? `one of the existing records (IDs ${ids.join(', ')})`
					: 'the existing record (find it first)';
		return `Nothing was created. Do not create it again: use ${existing} instead, as it is (to post on it, link to it or add a task to it) or updated with the new details by its ID.`;
	}
	if (failure.status === 409 && LOCKED_RECORD.test(failure.reason)) {
		return 'Nothing was changed: the record is locked in the CRM, and calling the tool again fails the same way. Say in your answer that the record is locked and that a user with the Lock permission must unlock it first.';
	}
	const required = REQUIRED_FIELD.exec(failure.reason);
	if (failure.status === 400 && required) {
		const [, entityType, field] = required;
		return `Nothing was stored: a ${entityType} needs the field "${field}", and this tool did not give it. If one of the tool's arguments fills "${field}", call the tool again with it; otherwise this tool cannot store a ${entityType} as it is set up (its author must give "${field}" in the tool, a fixed value or an argument): say so in your answer.`;
	}
	return undefined;
}

/**
 * An answer the node refuses although the server sent it with a success status (or a redirect): not what the operation
 * reads, too large, or pointing elsewhere. It is a NodeApiError (the server's doing) that sendReliably (send.ts) passes on as is.
 */
export class UnusableAnswerError extends NodeApiError {}

export function unusableAnswer(
	node: INode,
	itemIndex: number,
	status: number,
	message: string,
	description: string,
): UnusableAnswerError {
	return new UnusableAnswerError(node, { message, httpCode: String(status) } as JsonObject, {
		message,
		description,
		httpCode: String(status),
		itemIndex,
	});
}

/** A redirect the node did not follow (to another origin, or one too many): it says where it pointed, never its path. */
export class RedirectNotFollowed extends UnusableAnswerError {
	constructor(
		node: INode,
		itemIndex: number,
		status: number,
		message: string,
		description: string,
	) {
		super(node, { message, httpCode: String(status) } as JsonObject, {
			message,
			description,
			httpCode: String(status),
			itemIndex,
		});
	}
}

/** n8n's own codes that its errors turn into "The service refused the connection – perhaps it is offline" and the like. */
const CODES_N8N_REWORDS =
	/\b(ECONNREFUSED|ECONNRESET|ENOTFOUND|ETIMEDOUT|ECONNABORTED|EHOSTUNREACH|EAI_AGAIN|EADDRNOTAVAIL)\b/i;

/**
 * The credential could not be loaded (n8n's database, its encryption key, an external secrets store): nothing was
 * sent, and the server is not to blame. The message has no network code, so n8n does not reword it as the server's.
 */
export function credentialLoadError(
	node: INode,
	error: unknown,
	itemIndex: number,
): NodeOperationError {
	const said = String((error as Error)?.message ?? error);
	const name = node.credentials?.recordManagementServiceApi?.name;
	return new NodeOperationError(node, error as Error, {
		message: `n8n could not load the credential${name ? ` "${name}"` : ''}: nothing was sent to the server`,
		description: `n8n said: ${said}. This is n8n's own failure (its database, or the store the credential comes from), not the server's. Run the workflow again once n8n's database is reachable; check that the credential still exists.`,
		itemIndex,
	});
}

/**
 * The failure of a request made for several items (a look-up of many match values), as the error of one of them:
 * the same error, naming that item, so that each item that fails with it says which it is.
 */
export function forItem(error: unknown, itemIndex: number): unknown {
	if (
		!(error instanceof NodeApiError || error instanceof NodeOperationError) ||
		error.context.itemIndex === itemIndex
	)
		return error;
	const copy = Object.create(Object.getPrototypeOf(error) as object) as
		NodeApiError | NodeOperationError;
	Object.defineProperties(copy, Object.getOwnPropertyDescriptors(error));
	copy.context = { ...error.context, itemIndex };
	return copy;
}

/** The node's own errors are NodeApiError or NodeOperationError already; anything else is wrapped to name the item. */
export function asNodeError(
	node: INode,
	error: unknown,
	itemIndex?: number,
): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	const said = String((error as Error)?.message ?? error);
	// A node error of n8n's own copy of n8n-workflow (a request's failure, say) is wrapped as it is. Any other error
	// with a network code is n8n's own (its database, its binary data storage), which n8n would word as the server's
	// ("The service refused the connection"): every failure of a request has been made a node error by then.
	const nodeErrorOfN8n = typeof (error as { node?: unknown })?.node === 'object';
	if (!nodeErrorOfN8n && CODES_N8N_REWORDS.test(said)) {
		return new NodeOperationError(node, error as Error, {
			message: 'n8n failed inside, not the server',
			description: `n8n said: ${said}. Check n8n's own services (its database, binary data storage), then run the workflow again.`,
			itemIndex,
		});
	}
	return new NodeOperationError(node, error as Error, { itemIndex });
}
