import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';

import { inParallel } from '../http/parallel';
import { apiRequest } from '../http/request';
import type { Run } from '../http/run';
import { PAGE_SIZE, pageRequest } from './page';
import type { ListReply } from './page';

/**
 * A list order that paging can resume after the last record read (keyset paging): by `field`, then by ID, both in
 * `order`, as EspoCRM sorts (Select/Order/Applier: the ID in the same direction breaks ties). Only for a field
 * that EspoCRM sorts by its own column and compares in `where` with the same collation, so that the condition
 * "after the last record" agrees with the order exactly (see docs/filters-and-paging.md).
 */
export interface KeysetOrder {
	field: string;
	order: 'asc' | 'desc';
}

/** Version 1's Return All without a sort order: by ID, oldest first. */
export const BY_ID: KeysetOrder = { field: 'id', order: 'asc' };

/**
 * A long list is read in segments of about this many records. Each page of a segment asks for the records between
 * the last one read and the segment's end: where the sort field has no index, the server then sorts at most a
 * segment for a page, not the rest of the list (EspoCRM 8.1.5, 100,000 Contacts by lastName: 22 ms of SQL a page
 * instead of 60 ms at the start of the list).
 */
const SEGMENT_SIZE = 5000;
/** At most this many segments: finding where each starts costs the server a pass over the list (cutsAfter). */
const MAX_SEGMENTS = 50;

/**
 * The where item of the records after `last` in the order (from `last` on when `inclusive`): (field beyond its value)
 * or (the same value and the ID beyond). MySQL and MariaDB sort NULL first in ascending order and last in descending
 * order, and no comparison takes NULL: a record without a value is followed by the others without one (by ID), then,
 * ascending, by all with one. Only the values of `last` are compared, never the record itself, so the condition
 * holds if that record has changed or gone meanwhile.
 */
function after({ field, order }: KeysetOrder, last: IDataObject, inclusive = false): IDataObject {
	const beyond = order === 'asc' ? 'greaterThan' : 'lessThan';
	const idBeyond = {
		type: inclusive ? `${beyond}OrEquals` : beyond,
		attribute: 'id',
		value: last.id,
	};
	if (field === 'id') return idBeyond;
	const value = last[field];
	const isNull = { type: 'isNull', attribute: field };
	if (value === null) {
		const nullsAfter = { type: 'and', value: [isNull, idBeyond] };
		return order === 'asc'
			? { type: 'or', value: [nullsAfter, { type: 'isNotNull', attribute: field }] }
			: nullsAfter;
	}
	const tied = { type: 'and', value: [{ type: 'equals', attribute: field, value }, idBeyond] };
	const later = [{ type: beyond, attribute: field, value }, tied];
	return { type: 'or', value: order === 'asc' ? later : [...later, isNull] };
}

/** The where item of the records before `next` in the order: after it in the opposite order. */
function before({ field, order }: KeysetOrder, next: IDataObject): IDataObject {
	return after({ field, order: order === 'asc' ? 'desc' : 'asc' }, next);
}

/** The where items of the records after `start` (from it on when `inclusive`) and, with an `end`, before it. */
function between(
	order: KeysetOrder,
	start: IDataObject,
	inclusive: boolean,
	end: IDataObject | undefined,
): IDataObject[] {
	return end === undefined
		? [after(order, start, inclusive)]
		: [after(order, start, inclusive), before(order, end)];
}

/** Whether a page is followed by more: a full one (or longer: a server that ignored maxSize) whose records have IDs. */
function goesOn(page: IDataObject[]): boolean {
	return page.length >= PAGE_SIZE && page[page.length - 1].id !== undefined;
}

/** A list request read in a keyset order. */
class KeysetList {
	/** Set when a segment cannot go on (an error, a list that cannot be followed): the others stop before their next page. */
	stopped = false;

	private readonly where: IDataObject[];

	constructor(
		private readonly run: Run,
		private readonly itemIndex: number,
		private readonly request: IHttpRequestOptions,
		private readonly order: KeysetOrder,
	) {
		this.where =
			((request.qs as IDataObject | undefined)?.where as IDataObject[] | undefined) ?? [];
	}

	/** One page in the order, of the records that meet `conditions` besides the list's own filters. */
	async page(
		conditions: IDataObject[],
		{
			total = false,
			offset,
			maxSize = PAGE_SIZE,
			select,
		}: { total?: boolean; offset?: number; maxSize?: number; select?: string } = {},
	) {
		const where = conditions.length ? [...this.where, ...conditions] : undefined;
		return await apiRequest<ListReply>(
			this.run,
			this.itemIndex,
			pageRequest(this.request, { total, offset, maxSize, select, order: this.order, where }),
		);
	}

	/**
	 * The page after `page`, up to before `end` (to the end of the list without), with the total when `total`.
	 * Undefined when the list cannot be followed: a record without the sort field (a server that did not add it to the
	 * select) has no place to resume from; a list that ignores the condition and the order (EspoCRM's opted-out members
	 * of a target list) answers the same page again.
	 */
	async pageAfter(
		page: IDataObject[],
		end?: IDataObject,
		total = false,
	): Promise<ListReply | undefined> {
		const last = page[page.length - 1];
		if (!(this.order.field in last)) return undefined;
		const reply = await this.page(between(this.order, last, false, end), { total });
		// Each page starts after the last record of the one before, so no record can come twice: only the last page's
		// IDs are kept, to tell a server that ignored the condition (no set of 100,000 IDs).
		const previousIds = new Set(page.map((record) => record.id));
		return reply.list.some((record) => previousIds.has(record.id)) ? undefined : reply;
	}

	/** The records from `first` (a page already read) on, page after page, up to before `end`; undefined as pageAfter. */
	async follow(first: IDataObject[], end?: IDataObject): Promise<IDataObject[] | undefined> {
		const records = [...first];
		let page = first;
		while (goesOn(page)) {
			if (this.stopped) return undefined;
			const next = await this.pageAfter(page, end);
			if (next === undefined) return undefined;
			for (const record of next.list) records.push(record);
			page = next.list;
		}
		return records;
	}

	/**
	 * Where each segment after the first starts, among the `count` records after `last`: the records at evenly spaced
	 * places (segments of SEGMENT_SIZE to twice that, MAX_SEGMENTS at most). None for fewer than two segments, or a
	 * count the server did not give (EspoCRM answers -1 or -2 for some lists). Each cut is read by offset from the cut
	 * before it (the first from `last`), one after another, so that the server sorts a segment's length for it and not
	 * the list up to its place (EspoCRM 8.1.5, 100,000 Contacts by lastName: 60 ms a cut, where reading the cut at its
	 * place took 100 to 250 ms, more the deeper it lay), and a segment can start as soon as its ends are known. A cut
	 * comes as undefined when the list ends before its place (it got shorter meanwhile: the segments up to there cover
	 * the rest), and so do the ones after it; also when the list cannot be cut there (a record without the sort field or
	 * an ID), which leaves the segment before it to run to the end.
	 */
	cutsAfter(last: IDataObject, count: number | undefined): Array<Promise<IDataObject | undefined>> {
		if (typeof count !== 'number' || count < 2 * SEGMENT_SIZE) return [];
		const segments = Math.min(MAX_SEGMENTS, Math.floor(count / SEGMENT_SIZE));
		const cuts: Array<Promise<IDataObject | undefined>> = [];
		let previous: Promise<{ record: IDataObject; place: number } | undefined> = Promise.resolve({
			record: last,
			place: -1,
		});
		for (let index = 0; index < segments - 1; index++) {
			// Among the records after `last`, counted from 0.
			const place = Math.round(((index + 1) * count) / segments);
			previous = previous.then(async (from) => {
				if (from === undefined || this.stopped) return undefined;
				const offset = place - from.place - 1;
				const [record] = (
					await this.page([after(this.order, from.record)], {
						offset,
						maxSize: 1,
						select: this.order.field,
					})
				).list;
				if (record === undefined || record.id === undefined || !(this.order.field in record))
					return undefined;
				return { record, place };
			});
			const cut = previous.then((found) => found?.record);
			// Awaited by the segments that need it, which may have stopped before (a failure elsewhere).
			cut.catch(() => undefined);
			cuts.push(cut);
		}
		return cuts;
	}
}

/**
 * Return All in a keyset order from one end to the other, a page at a time (version 1's order by ID, whose index
 * finds each page at once). Undefined when the list cannot be followed (KeysetList.pageAfter): read it by offset.
 */
export async function listByKeyset(
	run: Run,
	itemIndex: number,
	request: IHttpRequestOptions,
	order: KeysetOrder,
) {
	const list = new KeysetList(run, itemIndex, request, order);
	return await list.follow((await list.page([])).list);
}

/**
 * Return All in a keyset order (version 1.1's list order) after its `first` page (read in this order, in full), a long
 * list in segments read side by side. The second page also counts the records after the first; when they make two
 * segments (SEGMENT_SIZE) or more, they are cut at records read by offset (KeysetList.cutsAfter), and each segment is
 * read from its cut (inclusive) up to before the next one, page after page from the last record read, as many
 * segments at once as Max Parallel Requests allows, each as soon as its cuts are known. The cuts are positions in the
 * order (a value and an ID), so in a list that does not change each record falls into exactly one segment, in the
 * order of one pass; a record created meanwhile comes once if its place is ahead of its segment's last record read,
 * one deleted meanwhile shifts nothing. The segments' records, in the list's order; undefined when the list cannot be
 * followed: read it by offset.
 */
export async function listInSegments(
	run: Run,
	itemIndex: number,
	request: IHttpRequestOptions,
	order: KeysetOrder,
	first: IDataObject[],
) {
	// A full page whose last record has no ID has no place to follow on from.
	if (!goesOn(first)) return undefined;
	const list = new KeysetList(run, itemIndex, request, order);
	const second = await list.pageAfter(first, undefined, true);
	if (second === undefined) return undefined;
	const cuts = list.cutsAfter(first[first.length - 1], second.total);

	const readSegment = async (index: number) => {
		const end = index < cuts.length ? await cuts[index] : undefined;
		if (index === 0) return await list.follow(second.list, end);
		const start = await cuts[index - 1];
		// The list ended before this segment.
		if (start === undefined) return [];
		return await list.follow((await list.page(between(order, start, true, end))).list, end);
	};
	const segments: Array<IDataObject[] | undefined> = [];
	await inParallel(cuts.length + 1, run.settings.maxParallel, async (index) => {
		try {
			if (!list.stopped) segments[index] = await readSegment(index);
		} finally {
			if (segments[index] === undefined) list.stopped = true;
		}
	});
	return list.stopped ? undefined : [first, ...(segments as IDataObject[][])];
}
