import type {
	DeclarativeRestApiSettings,
	IDataObject,
	IExecutePaginationFunctions,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	INodeExecutionData,
	PostReceiveAction,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { UNREAD, exchange, isIdempotent, send } from './request';
import type { Exchanged, ReadLimit } from './request';
import { routedRunOf } from './run';

/** A postReceive of the node's own (a function, as Download's), not one of n8n's declarative actions. */
type PostReceiveFunction = Extract<PostReceiveAction, (...args: never[]) => unknown>;

/**
 * How a routed operation's answer is read before its postReceive functions make the item: as a record (Get: checked to
 * be one, read up to the JSON bound), as bytes up to a bound (Download: the file), or not at all (Delete, Follow,
 * Unfollow: the operation does not use it, and a change that was done must not fail on it).
 */
export type AnswerReading = { as: 'record' } | { as: 'bytes'; limit: ReadLimit } | { as: 'unread' };

/** A routed operation's postReceive function that also says how `routeRequest` reads the answer it is handed. */
type ReadingPostReceive = PostReceiveFunction & { reading?: AnswerReading };

/** `receive`, marked with how the answer it is handed is read: each routed operation's routing names its reading so. */
export function reading(answer: AnswerReading, receive: PostReceiveFunction): PostReceiveFunction {
	return Object.assign(
		async function (this: unknown, ...args: Parameters<PostReceiveFunction>) {
			return await (receive as (...a: unknown[]) => Promise<INodeExecutionData[]>).apply(
				this,
				args,
			);
		},
		{ reading: answer },
	) as PostReceiveFunction;
}

/**
 * The postReceive of a routed operation whose answer is not its output (Delete, Follow, Unfollow): the answer is not
 * read, and the item says what was done.
 */
export function outcomeItem(json: IDataObject): PostReceiveFunction {
	return reading({ as: 'unread' }, async function (): Promise<INodeExecutionData[]> {
		return [{ json: { ...json } }];
	});
}

/**
 * n8n's RoutingNode hands every request of a routed operation (its routing sets `send.paginate`) to this function,
 * the node's `requestOperations.pagination`, so that every request gets the run's bound, resending and errors, and its
 * answer is read as the operation's postReceive says (`reading`): never whole by n8n's routing.
 */
export async function routeRequest(
	this: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
): Promise<INodeExecutionData[]> {
	const run = routedRunOf(this);
	const itemIndex = this.getItemIndex();
	// n8n's routing has filled in the url (preSend `resolvePath`).
	const options = requestData.options as IHttpRequestOptions;
	const functions = requestData.postReceive
		.flatMap((receive) => receive.actions)
		.filter((action): action is ReadingPostReceive => typeof action === 'function');
	const answer = functions.map((action) => action.reading).find((found) => found !== undefined);
	if (answer === undefined)
		throw new NodeOperationError(
			run.node,
			"This operation's routing does not say how its answer is read",
		);
	let items: INodeExecutionData[];
	let response: IN8nHttpFullResponse;
	if (answer.as === 'record') {
		const { body } = await send(run, itemIndex, { ...options, expect: 'record' });
		items = [{ json: body }];
		response = { body, headers: {}, statusCode: 200 };
	} else {
		const limit = answer.as === 'bytes' ? answer.limit : UNREAD;
		const { body: read } = await exchange<Exchanged>(
			run,
			itemIndex,
			options,
			isIdempotent(options.method),
			limit,
			(exchanged) => exchanged,
		);
		items = [{ json: {} }];
		response = { body: read.bytes, headers: read.headers, statusCode: read.statusCode };
	}
	for (const action of functions) items = await action.call(this, items, response);
	return items;
}
