import type { IExecuteSingleFunctions, IHttpRequestOptions, INodeProperties } from 'n8n-workflow';

import { outcomeItem } from '../../shared/http/routing';
import { routedItemOf } from '../../shared/item/item';
import { resolvePath } from '../../shared/item/paths';
import { entityTypeOf } from '../../shared/item/validation';
import { dialectOf, requireEspoCrm } from '../../shared/server/dialect';
import { getStreamFields } from './getStream';
import { postFields } from './post';
import { requireStream } from './streamScopes';

/** preSend of the routed operations: EspoCRM's, refused before the request on a Standard server. */
async function requireEspoCrmServer(this: IExecuteSingleFunctions, request: IHttpRequestOptions) {
	const item = routedItemOf(this);
	requireEspoCrm(item, await dialectOf(item.run), 'Stream');
	return request;
}

/** preSend of Follow: a record of a type without a stream is refused before the request (streamScopes.ts). */
async function requireStreamToFollow(this: IExecuteSingleFunctions, request: IHttpRequestOptions) {
	const item = routedItemOf(this);
	await requireStream(item, entityTypeOf(item), 'follow');
	return request;
}

/**
 * EspoCRM's streams: the notes on a record (posts, and what happened to it) and the records a user follows.
 * Post (files to upload first) and Get Many (paged) run as custom operations (post.ts, getStream.ts); Follow and
 * Unfollow are one request each, routed as Get and Delete are (`{…}` filled by `resolvePath`, `send.paginate`
 * handing the request to the node's bound, resending and errors). EspoCRM answers both with `true`, also when the
 * record was already followed or not followed.
 */
export const streamOperations: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { resource: ['stream'] } },
	options: [
		{
			name: 'Follow',
			value: 'follow',
			action: 'Follow a record',
			description:
				"Make the API user follow a record, so that the record's changes and posts come in the API user's stream",
			routing: {
				request: { method: 'PUT', url: '/{entityType}/{recordId}/subscription' },
				send: {
					preSend: [requireEspoCrmServer, resolvePath, requireStreamToFollow],
					paginate: true,
				},
				output: { postReceive: [outcomeItem({ followed: true })] },
			},
		},
		{
			name: 'Get Many',
			value: 'getStream',
			action: 'Get many notes of a stream',
			description:
				"List the notes of a record's stream (posts, updates, status changes, e-mails, newest first), or of the API user's own stream; optionally only notes of some types",
		},
		{
			name: 'Post',
			value: 'post',
			action: 'Post to the stream of a record',
			description:
				"Write a post (Markdown text, optionally with files from the input item) in a record's stream, where the team sees it on the record",
		},
		{
			name: 'Unfollow',
			value: 'unfollow',
			action: 'Unfollow a record',
			description: 'Make the API user stop following a record',
			routing: {
				request: { method: 'DELETE', url: '/{entityType}/{recordId}/subscription' },
				send: { preSend: [requireEspoCrmServer, resolvePath], paginate: true },
				output: { postReceive: [outcomeItem({ followed: false })] },
			},
		},
	],
	default: 'post',
};

export const streamOperationFields: INodeProperties[] = [...postFields, ...getStreamFields];
