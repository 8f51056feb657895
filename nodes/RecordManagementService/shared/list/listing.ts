import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';

import { apiRequest } from '../http/request';
import type { Run } from '../http/run';
import { BY_ID, listByKeyset, listInSegments } from './keyset';
import type { KeysetOrder } from './keyset';
import { PAGE_SIZE, pageRequest } from './page';
import type { ListReply } from './page';

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
async function pagesById(run: Run, request: IHttpRequestOptions, wanted: number, ordered: boolean) {
	if (wanted !== Infinity || ordered) return false;
	const qs = (request.qs ?? {}) as IDataObject;
	if (
		qs.orderBy !== undefined ||
		qs.order !== undefined ||
		qs.textFilter !== undefined ||
		qs.q !== undefined
	)
		return false;
	return (await run.credentials()).server === 'espocrm';
}

export interface ListOptions {
	/** The list has an order of its own that paging must keep (a stream: newest note first), so it pages by offset. */
	serverOrder?: boolean;
	/**
	 * Return All in the list's order, following on from the last record read (version 1.1, EspoCRM): the order to
	 * follow (sent as `orderBy` and `order`), asked for only once the first page came back full, since it reads the
	 * server's metadata; undefined where that order cannot be followed (by offset then). The caller has checked that
	 * the server and the list allow it (listOrder.ts, mayFollowOn).
	 */
	followOn?: () => Promise<KeysetOrder | undefined>;
	/** Version 1.1 on: no paging by ID; Return All keeps the list's order (`followOn`, else by offset). */
	listOrder?: boolean;
	/**
	 * Told how many records match in all, when the server counts them (a Limit's first page then asks it to): an AI
	 * agent's list tool tells the model, which can narrow its search when it got fewer.
	 */
	total?: (count: number) => void;
}

/**
 * The records of a list request, `wanted` at the most (Infinity: all), each once.
 * - Return All that may follow on (`followOn`, version 1.1): the first page as the list comes, which is all of a list
 *   of one page; a longer one follows on from the first page's last record (followingOn).
 * - Version 1's Return All without an order from EspoCRM: by ID from one end to the other (pagesById, listByKeyset).
 * - Otherwise by offset. When the first page tells the total, the pages up to it are read at once, within Max
 *   Parallel Requests, without the total (`X-No-Total`); then, and whenever the server gives no total (EspoCRM
 *   answers -1 or -2 for some lists), one page after another until a short one.
 */
export async function listRecords(
	run: Run,
	itemIndex: number,
	request: IHttpRequestOptions,
	wanted = Infinity,
	{ serverOrder = false, followOn, listOrder = false, total }: ListOptions = {},
): Promise<IDataObject[]> {
	if (wanted === Infinity && followOn) return await followingOn(run, itemIndex, request, followOn);
	if (!listOrder && (await pagesById(run, request, wanted, serverOrder))) {
		return (
			(await listByKeyset(run, itemIndex, request, BY_ID)) ??
			(await listByOffset(run, itemIndex, request, Infinity))
		);
	}
	return await listByOffset(run, itemIndex, request, wanted, total);
}

/**
 * Return All in the list's order (version 1.1, EspoCRM). The first page is asked for as the list comes: in the chosen
 * Sort By and Sort Order, else in the server's default order, which is the order `followOn` names (listOrder.ts,
 * keysetOrderOf), without the total. EspoCRM adds the sort field to the records of a list that selects fields
 * (Select/Applier: the order's attributes, the default order's too), so the second page can follow on from the first
 * page's last record: a list of one page costs one request, and the metadata is read only for a longer one. It then
 * goes on in segments from the last record read (listInSegments); where the order cannot be followed so (a field
 * whose order a where condition does not follow, a list that ignores the condition), by offset after the first page,
 * which was read with the same query as offset 0.
 */
async function followingOn(
	run: Run,
	itemIndex: number,
	request: IHttpRequestOptions,
	followOn: () => Promise<KeysetOrder | undefined>,
) {
	const first = await apiRequest<ListReply>(run, itemIndex, pageRequest(request, {}));
	if (first.list.length < PAGE_SIZE) return first.list;
	const order = await followOn();
	const segments = order && (await listInSegments(run, itemIndex, request, order, first.list));
	if (segments === undefined)
		return await listByOffset(run, itemIndex, request, Infinity, undefined, first);
	// Each cut lies after the one before it, so the segments do not overlap; kept once by ID all the same, as every
	// list is.
	const records = new Records();
	for (const segment of segments) records.keep(segment);
	return records.list;
}

/**
 * A list read by offset; `readFirst` is its first page when it was already read without the total (followingOn): the
 * second page then counts instead, so that the pages up to the total can still be asked for at once.
 */
async function listByOffset(
	run: Run,
	itemIndex: number,
	request: IHttpRequestOptions,
	wanted: number,
	total?: ListOptions['total'],
	readFirst?: ListReply,
): Promise<IDataObject[]> {
	// Only a Limit of more than a page reads the total: to ask for the pages up to it at once.
	const page = async (offset: number, withTotal = false) =>
		await apiRequest<ListReply>(
			run,
			itemIndex,
			pageRequest(request, {
				offset,
				maxSize: Math.min(PAGE_SIZE, wanted - offset),
				total: withTotal,
			}),
		);
	// Records that move between pages while paging (created or deleted meanwhile) would come twice.
	const records = new Records();
	const keep = (list: IDataObject[]) => records.keep(list);

	const first = readFirst ?? (await page(0, wanted > PAGE_SIZE || total !== undefined));
	if (typeof first.total === 'number' && first.total >= 0) total?.(first.total);
	keep(first.list);
	let offset = first.list.length;
	let last = first;
	const full = (reply: ListReply, at: number) =>
		reply.list.length === Math.min(PAGE_SIZE, wanted - at);
	if (!full(first, 0) || offset >= wanted) return records.list;

	// One page alone first: a server that ignores `offset` answers the first page again, and must not be asked 100 times.
	let second = readFirst ? await page(offset, true) : undefined;
	if (second && repeats(second, first)) return records.list;
	const counted = (second ?? first).total;
	const end = Math.min(wanted, typeof counted === 'number' && counted > 0 ? counted : 0);
	if (offset < end) {
		second ??= await page(offset);
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
	} else if (second) {
		// Read, but no total to go by: one page after another from here.
		keep(second.list);
		if (!full(second, offset)) return records.list;
		offset += second.list.length;
		last = second;
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
	return (
		page.list.length > 0 &&
		page.list[0].id !== undefined &&
		page.list[0].id === previous.list[0]?.id
	);
}
