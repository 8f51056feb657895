import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';

import { BY_ID, listByKeyset, listInSegments } from './keyset';
import type { KeysetOrder } from './keyset';
import { NO_TOTAL, PAGE_SIZE, apiRequest, runOf } from './transport';
import type { ListReply, RequestContext } from './transport';

/** The records of a list, each once, in the order they came. */
class Records {
	readonly list: IDataObject[] = [];

	private readonly seen = new Set<unknown>();

	/** Keeps the records not kept yet; how many were new. */
	keep(records: IDataObject[]): number {
		let added = 0;
		for (const record of records) {
			if (record.id !== undefined && this.seen.has(record.id)) continue;
			this.seen.add(record.id);
			this.list.push(record);
			added++;
		}
		return added;
	}
}

/**
 * Whether to page by ID instead of by offset: version 1's Return All from EspoCRM in no order the user chose. Each
 * page asks for the records after the last ID read (`orderBy=id`, `where id greaterThan`), which the database finds
 * through the primary key however deep the list goes, where an offset is counted from the start on every page; no
 * page needs the total. A record created meanwhile comes when its ID is still ahead, one deleted meanwhile shifts
 * nothing. Not with Search Text: EspoCRM may order a full-text search by relevance first. Not on a Standard server,
 * whose interface does not promise an order by ID.
 */
async function pagesById(context: RequestContext, request: IHttpRequestOptions, wanted: number, ordered: boolean) {
	if (wanted !== Infinity || ordered) return false;
	const qs = (request.qs ?? {}) as IDataObject;
	if (qs.orderBy !== undefined || qs.order !== undefined || qs.textFilter !== undefined || qs.q !== undefined) return false;
	return (await runOf(context).credentials()).server === 'espocrm';
}

export interface ListOptions {
	/** The list has an order of its own that paging must keep (a stream: newest note first), so it pages by offset. */
	serverOrder?: boolean;
	/**
	 * Return All in this order, page after page from the last record read (sent as `orderBy` and `order`). The
	 * caller has checked that the server and the field allow it; otherwise undefined (by ID in version 1).
	 */
	keyset?: KeysetOrder;
	/** Version 1.1 on: no paging by ID; Return All keeps the list's order (`keyset`, else by offset). */
	listOrder?: boolean;
	/**
	 * Told how many records match in all, when the server counts them (a Limit's first page then asks it to): an AI
	 * agent's list tool tells the model, which can narrow its search when it got fewer.
	 */
	total?: (count: number) => void;
}

/**
 * The records of a list request, `wanted` at the most (Infinity: all), each once.
 * - Return All in a keyset order: page after page from the last record read, until a short page; a long list in
 *   segments read side by side (`keyset`, version 1.1: listInSegments), version 1's order by ID from one end to the
 *   other (pagesById, listByKeyset).
 * - Otherwise by offset. When the first page tells the total, the pages up to it are read at once, within Max
 *   Parallel Requests, without the total (`X-No-Total`); then, and whenever the server gives no total (EspoCRM
 *   answers -1 or -2 for some lists), one page after another until a short one.
 */
export async function listRecords(
	context: RequestContext,
	itemIndex: number,
	request: IHttpRequestOptions,
	wanted = Infinity,
	{ serverOrder = false, keyset, listOrder = false, total }: ListOptions = {},
): Promise<IDataObject[]> {
	if (wanted === Infinity && keyset) {
		const segments = await listInSegments(context, itemIndex, request, keyset);
		if (segments === undefined) return await listByOffset(context, itemIndex, request, Infinity);
		// Two cuts between segments could cross if thousands of records went between their reads, and the segments
		// overlap: each record is kept once, where it came first.
		const records = new Records();
		for (const segment of segments) records.keep(segment);
		return records.list;
	}
	if (!listOrder && (await pagesById(context, request, wanted, serverOrder))) {
		return (await listByKeyset(context, itemIndex, request, BY_ID)) ?? (await listByOffset(context, itemIndex, request, Infinity));
	}
	return await listByOffset(context, itemIndex, request, wanted, total);
}

async function listByOffset(
	context: RequestContext,
	itemIndex: number,
	request: IHttpRequestOptions,
	wanted: number,
	total?: ListOptions['total'],
): Promise<IDataObject[]> {
	// Only a Limit of more than a page reads the total: to ask for the pages up to it at once.
	const page = async (offset: number, withTotal = false) =>
		await apiRequest<ListReply>(context, itemIndex, {
			...request,
			expect: 'list',
			method: 'GET',
			...(withTotal ? {} : { headers: { ...request.headers, ...NO_TOTAL } }),
			qs: { ...request.qs, offset, maxSize: Math.min(PAGE_SIZE, wanted - offset) },
		});
	// Records that move between pages while paging (created or deleted meanwhile) would come twice.
	const records = new Records();
	const keep = (list: IDataObject[]) => records.keep(list);

	const first = await page(0, wanted > PAGE_SIZE || total !== undefined);
	if (typeof first.total === 'number' && first.total >= 0) total?.(first.total);
	keep(first.list);
	let offset = first.list.length;
	let last = first;
	const full = (reply: ListReply, at: number) => reply.list.length === Math.min(PAGE_SIZE, wanted - at);
	if (!full(first, 0) || offset >= wanted) return records.list;

	const end = Math.min(wanted, typeof first.total === 'number' && first.total > 0 ? first.total : 0);
	if (offset < end) {
		// One page alone first: a server that ignores `offset` answers the first page again, and must not be asked 100 times.
		const second = await page(offset);
		if (repeats(second, first)) return records.list;
		const offsets: number[] = [];
		for (let next = offset + PAGE_SIZE; next < end; next += PAGE_SIZE) offsets.push(next);
		const rest = await Promise.all(offsets.map(async (at) => await page(at)));
		for (const [index, reply] of [second, ...rest].entries()) {
			keep(reply.list);
			const at = index === 0 ? offset : offsets[index - 1];
			if (!full(reply, at)) return records.list;
			last = reply;
		}
		offset = (offsets.length ? offsets[offsets.length - 1] : offset) + last.list.length;
	}
	while (offset < wanted) {
		const reply = await page(offset);
		if (repeats(reply, last)) break;
		keep(reply.list);
		if (!full(reply, offset)) break;
		offset += reply.list.length;
		last = reply;
	}
	return records.list;
}

/** A server that ignored `offset` sends the same page again. */
export function repeats(page: ListReply, previous: ListReply) {
	return page.list.length > 0 && page.list[0].id !== undefined && page.list[0].id === previous.list[0]?.id;
}
