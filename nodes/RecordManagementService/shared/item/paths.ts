import type { IExecuteSingleFunctions, IHttpRequestOptions } from 'n8n-workflow';

import type { Item } from './item';
import { routedItemOf } from './item';
import { entityTypeOf, linkOf, recordIdOf, requireId } from './validation';

/** The parameters a request path is made of, each checked before anything is sent. */
const SEGMENTS: Record<string, (item: Item) => string> = {
	entityType: entityTypeOf,
	recordId: (item) => recordIdOf(item),
	link: linkOf,
	attachmentId: (item) => requireId(item, item.parameter('attachmentId'), 'Attachment ID'),
};

/**
 * A request path such as `/{entityType}/{recordId}/{link}` for one item: every `{name}` is the parameter of that name,
 * checked (a plain name, a record ID) and encoded as one path segment, so that no value can reach another path.
 * `known` gives segments the caller has already read (each parameter is resolved once per item).
 */
export function pathOf(item: Item, template: string, known: Record<string, string> = {}): string {
	return template.replace(/\{(\w+)\}/g, (_, name: string) =>
		encodeURIComponent(known[name] ?? SEGMENTS[name](item)),
	);
}

/** preSend of the routed operations: their url is a template for `pathOf`. */
export async function resolvePath(this: IExecuteSingleFunctions, request: IHttpRequestOptions) {
	return { ...request, url: pathOf(routedItemOf(this), request.url) };
}
