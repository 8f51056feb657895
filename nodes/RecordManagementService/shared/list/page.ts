import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';

import type { ApiRequest } from '../http/request';

/** The server returns at most this many records per list request, and refuses a larger maxSize. */
export const PAGE_SIZE = 200;

/** A page of a list: its records, and how many match in all when the server counted them. */
export interface ListReply {
	total?: number;
	list: IDataObject[];
}

/** Asks the server not to count the matching records, which costs it a query per page (`total` is then -1 or -2). */
export const NO_TOTAL = { 'X-No-Total': 'true' };

/** Which page of a list to ask for, besides the list's own query. */
export interface Page {
	offset?: number;
	/** PAGE_SIZE unless fewer are wanted. */
	maxSize?: number;
	/** Whether the server is to count the matching records: only where the count is read. */
	total?: boolean;
	/** The order to page in (`orderBy`, `order`), when the page follows on from a record. */
	order?: { field: string; order: string };
	/** Fields to return instead of the list's own. */
	select?: string;
	/** The where items of the page: the list's own and the page's conditions. */
	where?: IDataObject[];
}

/**
 * The request of one page of a list: every list the node reads (Get Many and the lists it pages through, the polling
 * trigger, a record locator's search) asks for its pages so, as a GET whose answer must be a list.
 */
export function pageRequest(
	request: IHttpRequestOptions,
	{ offset, maxSize = PAGE_SIZE, total = false, order, select, where }: Page,
): ApiRequest {
	return {
		...request,
		method: 'GET',
		expect: 'list',
		...(total ? {} : { headers: { ...request.headers, ...NO_TOTAL } }),
		qs: {
			...request.qs,
			...(select === undefined ? {} : { select }),
			...(order === undefined ? {} : { orderBy: order.field, order: order.order }),
			...(offset === undefined ? {} : { offset }),
			maxSize,
			...(where === undefined ? {} : { where }),
		},
	};
}
