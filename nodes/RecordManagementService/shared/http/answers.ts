import type { IDataObject, INode } from 'n8n-workflow';

import { unusableAnswer } from './errors';
import { redact } from './failure';

/**
 * What the node accepts as an answer, checked before the answer becomes an item: its size (read from a stream, so
 * that an endless or huge answer is cut off instead of held whole in memory), that it is JSON where JSON was asked
 * for, and its shape where the operation reads a record or a list.
 */

/** The most a JSON answer may be. A page of 200 records is well below 2 MB, the largest records included. */
export const MAX_JSON_ANSWER_BYTES = 16 * 1024 * 1024;

/** The most a failed request's answer is read (its reason, EspoCRM's duplicates): the rest is left unread. */
export const MAX_ERROR_ANSWER_BYTES = 1024 * 1024;

/** What an operation reads from an answer: a record (an object with an `id`), or a list (`list`, an array). */
export type Expected = 'record' | 'list';

/** An answer as read: its status, content type, the raw text and what it parses to. */
export interface Answer {
	status: number;
	contentType: string;
	text: string;
	body: unknown;
}

export function megabytes(bytes: number): string {
	return `${Math.round(bytes / (1024 * 1024))} MB`;
}

const WHAT_TO_CHECK =
	"Check the credential's Base URL (the address of the CRM itself, such as https://crm.example.com: the node adds /api/v1), and that no proxy, login page or web server catch-all answers in its place.";

/** How an answer looks to a user: its content type, the kind of thing it is, and how it began (secrets redacted). */
function describe(answer: Answer, secrets: string[]): string {
	const type = answer.contentType.split(';')[0].trim() || 'no content type';
	const kind =
		/html/i.test(type) || /^\s*<(!doctype|html)/i.test(answer.text)
			? 'a web page'
			: Array.isArray(answer.body)
				? `a JSON list of ${answer.body.length}`
				: typeof answer.body === 'string'
					? 'text that is not JSON'
					: answer.body === undefined
						? 'nothing'
						: `JSON ${answer.body === null ? 'null' : typeof answer.body}`;
	// Redacted before it is cut, so that a secret across the cut is still recognised.
	const window = 200 + Math.max(0, ...secrets.map((secret) => secret.length));
	const start = redact(answer.text.slice(0, window), secrets)
		.slice(0, 200)
		.replace(/\s+/g, ' ')
		.trim();
	return `${kind} (${type})${start ? `, beginning: ${start}${answer.text.length > 200 ? '…' : ''}` : ''}`;
}

/** Why the answer is not what the operation reads, if it is not. */
function problemOf(answer: Answer, expected: Expected | undefined): string | undefined {
	const { body } = answer;
	const json = /json/i.test(answer.contentType);
	if (typeof body === 'string' && !json) return 'is not JSON';
	if (expected === 'record') {
		const record = body as IDataObject;
		if (record === null || typeof record !== 'object' || Array.isArray(record))
			return 'is not a record';
		if (record.id === undefined || record.id === null || record.id === '')
			return 'is not a record (it has no "id")';
	}
	if (expected === 'list') {
		if (body === null || typeof body !== 'object' || !Array.isArray((body as IDataObject).list))
			return 'is not a list (it has no "list")';
	}
	return undefined;
}

/** Refuses an answer that is not what the operation reads, saying what came back and what to check. */
export function checkAnswer(
	node: INode,
	itemIndex: number,
	request: { method?: string; url: string },
	answer: Answer,
	expected: Expected | undefined,
	secretsOf: () => string[],
): void {
	const problem = problemOf(answer, expected);
	if (!problem) return;
	const secrets = secretsOf();
	throw unusableAnswer(
		node,
		itemIndex,
		answer.status,
		`The server's answer to ${(request.method ?? 'GET').toUpperCase()} ${redact(request.url.split('?')[0], secrets)} ${problem}: it sent ${describe(answer, secrets)}`,
		`Nothing was made of this answer (status ${answer.status}). ${WHAT_TO_CHECK}`,
	);
}

/** Refuses an answer larger than the operation reads, before it is read whole. */
export function tooLarge(
	node: INode,
	itemIndex: number,
	request: { method?: string; url: string },
	status: number,
	limit: number,
	what: string,
) {
	return unusableAnswer(
		node,
		itemIndex,
		status,
		`The server's answer to ${(request.method ?? 'GET').toUpperCase()} ${request.url.split('?')[0]} is larger than ${megabytes(limit)}: the node stopped reading it`,
		`${what} A larger answer is a misconfigured or misbehaving server (or a proxy in front of it); reading it would hold it in n8n's memory several times over. ${WHAT_TO_CHECK}`,
	);
}
