import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { isBodyStream, parseJsonAnswer, readUpTo } from '../../../../shared/answerBody';
import type { Expected } from './answers';
import { MAX_JSON_ANSWER_BYTES, checkAnswer, megabytes, tooLarge } from './answers';
import { secretsOf } from './failure';
import { CREDENTIAL_TYPE } from './run';
import type { Run } from './run';
import { sendReliably } from './send';
import type { Sent } from './send';
import { brokenTextIn, mendedBody } from './text';

const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'PATCH']);

/** Whether repeating a request of this method ends in the same state, so that it may be resent after a lost answer. */
export function isIdempotent(method: string | undefined): boolean {
	return IDEMPOTENT_METHODS.has((method ?? 'GET').toUpperCase());
}

export type ApiRequest = IHttpRequestOptions & {
	idempotent?: boolean;
	/** What the operation reads from the answer: anything else is refused with what came back (answers.ts). */
	expect?: Expected;
};

/** An answer read whole (up to its bound): status, headers and bytes. */
export interface Exchanged {
	statusCode: number;
	headers: IDataObject;
	bytes: Buffer;
}

/** For `exchange`: an answer the operation does not use (Delete, Follow, Unfollow), which is not read. */
export const UNREAD = Symbol('the answer is not read');

/** How much of an answer is read, and what the error says of the bound when it is larger. */
export interface ReadLimit {
	bytes: number;
	what: string;
}

const JSON_LIMIT: ReadLimit = {
	bytes: MAX_JSON_ANSWER_BYTES,
	what: `The node reads answers of up to ${megabytes(MAX_JSON_ANSWER_BYTES)}: a page of 200 records is far smaller.`,
};

/**
 * Sends one authenticated request (the run's bound, resending, redirects within the origin, the Timeout) and reads its
 * answer from a stream, `limit` bytes at most: a larger answer is refused without being read whole. With `UNREAD`, an
 * answer is not read at all (its bytes are empty): the operation does not use it, and the server has done the change.
 * `check` looks at the answer before it counts as accepted.
 */
export async function exchange<T>(
	run: Run,
	itemIndex: number,
	request: IHttpRequestOptions,
	idempotent: boolean,
	limit: ReadLimit | typeof UNREAD,
	check: (answer: Exchanged, credentials: ICredentialDataDecryptedObject) => T,
): Promise<Sent<T>> {
	const { node, settings, context } = run;
	// Parameters that go into an address are refused where they are read, naming the parameter (item/validation.ts,
	// requireWellFormed). This guards the rest (a value taken from an answer, say): n8n's encoder would send another
	// character in place of a broken one, or throw "URI malformed".
	if (brokenTextIn([request.url, request.qs])) {
		throw new NodeOperationError(
			node,
			`A value for the request's address holds a broken character, such as half of an emoji (item ${itemIndex})`,
			{
				itemIndex,
				description: 'Nothing was sent for this item. Correct the text where it comes from.',
			},
		);
	}
	// A broken character in a JSON body (text.ts) goes out as the escape \ud83d, which EspoCRM 8.1.5 refuses with 500
	// and no reason (PHP's json_decode: "Single unpaired UTF-16 surrogate"), so one cut-off emoji in a description
	// would fail its item with an unexplained error. It is sent as U+FFFD (�) instead, as every UTF-8 encoder writes
	// such a character (and a browser sends it from a form): the half character carries nothing, the rest of the text
	// is kept. IDs and match values are never mended: they are refused, since another value would find another record.
	if (request.body !== undefined) request = { ...request, body: mendedBody(request.body) };
	return await sendReliably(run, itemIndex, idempotent, request, async (data, current) => {
		const response = (await context.helpers.httpRequestWithAuthentication.call(
			context,
			CREDENTIAL_TYPE,
			{
				json: true,
				arrayFormat: 'indices',
				...current,
				headers: {
					Accept: 'application/json',
					'Content-Type': 'application/json',
					...current.headers,
				},
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
			return check(
				{ statusCode: response.statusCode, headers: response.headers, bytes: Buffer.alloc(0) },
				data,
			);
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

/**
 * One authenticated request of this node, with the run's bound, resending and errors; the answer and earlier failures.
 * The answer must be JSON, of the shape `expect` names (answers.ts), and MAX_JSON_ANSWER_BYTES at most.
 */
export async function send<T = IDataObject>(
	run: Run,
	itemIndex: number,
	options: ApiRequest,
): Promise<Sent<T>> {
	const { idempotent, expect, ...request } = options;
	return await exchange(
		run,
		itemIndex,
		request,
		idempotent ?? isIdempotent(request.method),
		JSON_LIMIT,
		(answer, data) => {
			const text = answer.bytes.toString('utf8');
			const body = parseJsonAnswer(text);
			const contentType = String(answer.headers['content-type'] ?? '');
			checkAnswer(
				run.node,
				itemIndex,
				request,
				{ status: answer.statusCode, contentType, text, body },
				expect,
				() => secretsOf(data, undefined, request),
			);
			return body as T;
		},
	);
}

/** One authenticated request of this node: its answer. */
export async function apiRequest<T = IDataObject>(
	run: Run,
	itemIndex: number,
	options: ApiRequest,
): Promise<T> {
	return (await send<T>(run, itemIndex, options)).body;
}
