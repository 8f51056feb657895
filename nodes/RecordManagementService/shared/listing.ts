import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';

import { PAGE_SIZE, apiRequest, runOf } from './transport';
import type { RequestContext } from './transport';

export interface ListReply {
	total?: number;
	list: IDataObject[];
}

/** Asks the server not to count the matching records, which costs it a query per page (`total` is then -1 or -2). */
const NO_TOTAL = { 'X-No-Total': 'true' };

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
 * A list order that paging can resume after the last record read (keyset paging): by `field`, then by ID, both in
 * `order`, as EspoCRM sorts (Select/Order/Applier: the ID in the same direction breaks ties). Only for a field
 * that EspoCRM sorts by its own column and compares in `where` with the same collation, so that the condition
 * "after the last record" agrees with the order exactly (see README, "Filters and paging").
 */
export interface KeysetOrder {
	field: string;
	order: 'asc' | 'desc';
}

/** Version 1's Return All without a sort order: by ID, oldest first. */
const BY_ID: KeysetOrder = { field: 'id', order: 'asc' };

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
 * - Return All in a keyset order (`keyset`, or version 1's order by ID, see pagesById): page after page from the
 *   last record read, until a short page.
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
	if (wanted === Infinity && keyset) return await listByKeyset(context, itemIndex, request, keyset);
	if (!listOrder && (await pagesById(context, request, wanted, serverOrder))) return await listByKeyset(context, itemIndex, request, BY_ID);
	return await listByOffset(context, itemIndex, request, wanted, total);
}

/**
 * The where item of the records after `last` in the order: (field beyond its value) or (the same value and the ID
 * beyond). MySQL and MariaDB sort NULL first in ascending order and last in descending order, and no comparison
 * takes NULL: a record without a value is followed by the others without one (by ID), then, ascending, by all
 * with one.
 */
function after({ field, order }: KeysetOrder, last: IDataObject): IDataObject {
	const beyond = order === 'asc' ? 'greaterThan' : 'lessThan';
	const idBeyond = { type: beyond, attribute: 'id', value: last.id };
	if (field === 'id') return idBeyond;
	const value = last[field];
	const isNull = { type: 'isNull', attribute: field };
	if (value === null) {
		const nullsAfter = { type: 'and', value: [isNull, idBeyond] };
		return order === 'asc' ? { type: 'or', value: [nullsAfter, { type: 'isNotNull', attribute: field }] } : nullsAfter;
	}
	const tied = { type: 'and', value: [{ type: 'equals', attribute: field, value }, idBeyond] };
	const later = [{ type: beyond, attribute: field, value }, tied];
	return { type: 'or', value: order === 'asc' ? later : [...later, isNull] };
}

async function listByKeyset(context: RequestContext, itemIndex: number, request: IHttpRequestOptions, order: KeysetOrder): Promise<IDataObject[]> {
	// Each page starts after the last record of the one before, so no record can come twice: only the last page's IDs
	// are kept, to tell a server that ignored the condition (no set of 100,000 IDs).
	const records: IDataObject[] = [];
	let previousIds = new Set<unknown>();
	const where = ((request.qs as IDataObject | undefined)?.where as IDataObject[] | undefined) ?? [];
	let last: IDataObject | undefined;
	for (;;) {
		const reply = await apiRequest<ListReply>(context, itemIndex, {
			...request,
			expect: 'list',
			method: 'GET',
			headers: { ...request.headers, ...NO_TOTAL },
			qs: {
				...request.qs,
				orderBy: order.field,
				order: order.order,
				maxSize: PAGE_SIZE,
				...(last === undefined ? {} : { where: [...where, after(order, last)] }),
			},
		});
		// A list that ignores the condition and the order (EspoCRM's opted-out members of a target list) answers the
		// last page again; a record without the sort field (a server that did not add it to the select) cannot be
		// followed: such a list is read again from the start, by offset.
		if (reply.list.some((record) => previousIds.has(record.id))) return await listByOffset(context, itemIndex, request, Infinity);
		for (const record of reply.list) records.push(record);
		previousIds = new Set(reply.list.map((record) => record.id));
		if (reply.list.length < PAGE_SIZE) break;
		last = reply.list[reply.list.length - 1];
		if (last.id === undefined) break;
		if (!(order.field in last)) return await listByOffset(context, itemIndex, request, Infinity);
	}
	return records;
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
