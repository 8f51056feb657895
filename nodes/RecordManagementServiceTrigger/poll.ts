import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';
import { DateTime } from 'luxon';

import { readMoment, serverDateTime } from '../RecordManagementService/shared/dates';
import { whereOf } from '../RecordManagementService/shared/filters';
import { triggerItemOf } from '../RecordManagementService/shared/item';
import { dialectOf } from '../RecordManagementService/shared/dialect';
import { pathOf } from '../RecordManagementService/shared/paths';
import { searchQueryOf } from '../RecordManagementService/shared/search';
import { PAGE_SIZE, apiRequest, listRecords, repeats, startRun } from '../RecordManagementService/shared/transport';
import type { ListReply } from '../RecordManagementService/shared/transport';

/**
 * What the trigger remembers between polls, in n8n's workflow static data (so it holds across restarts and in queue
 * mode, where any process may poll next): the newest change time it has emitted, and the IDs it emitted at that
 * time, since several records can share one second.
 */
interface PollState {
	/** Milliseconds since the epoch; undefined until the first poll has looked. */
	since?: number;
	/** IDs of records emitted whose change time is `since`. */
	seenAtSince?: string[];
}

/** Pages overlap by this many records, so that records deleted during a poll cannot shift one past unread. */
const OVERLAP = 10;

/**
 * The triggers polling now in this process. n8n starts the next poll on time even when the last one has not ended;
 * both would read the same state and emit the same records. Polls run on one n8n process (main, or the leader of
 * several), so this is no state another process needs.
 */
const polling = new Set<string>();

/** When a record was created or last changed, as an instant (the server writes UTC; the interface's spec, ISO). */
function changedAt(record: IDataObject, attribute: string): number | undefined {
	return readMoment(record[attribute], 'UTC')?.toMillis();
}

/**
 * The records created (or changed) since the last poll, oldest first, each once. Reads the list newest first, page
 * after page, until a record older than the last poll: more than a page of changes is never cut off, and a record
 * created while the poll pages through is newer than everything read, so the next poll finds it.
 * The first poll emits nothing: it notes where the list stands. A manual run ("Fetch Test Event") returns the newest
 * record, changing nothing.
 */
export async function pollChanges(context: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	const item = triggerItemOf(context);
	const attribute = item.parameter<string>('event', 'created') === 'created' ? 'createdAt' : 'modifiedAt';
	const select = ([] as string[]).concat(item.parameter<string[] | string>('select', [])).join(',');
	const qs: IDataObject = {
		orderBy: attribute,
		order: 'desc',
		...(whereOf(item) ? { where: whereOf(item) } : {}),
		...searchQueryOf(item, await dialectOf(context)),
		// The change time and ID are what the trigger reads; the server adds the ID.
		...(select ? { select: `${select},${attribute}` } : {}),
	};
	const url = pathOf(item, '/{entityType}');

	if (context.getMode() === 'manual') {
		const [newest] = await listRecords(context, 0, { url, qs }, 1);
		return newest ? [[{ json: newest }]] : null;
	}

	const key = `${context.getWorkflow().id}:${context.getNode().id}`;
	if (polling.has(key)) return null;
	polling.add(key);
	// n8n keeps this context from activation to deactivation: a poll must not inherit the last one's refusal.
	startRun(context);
	try {
		return await pollSince(context, url, qs, attribute);
	} finally {
		polling.delete(key);
	}
}

/** One poll: the records changed since the state the last poll left. */
async function pollSince(context: IPollFunctions, url: string, qs: IDataObject, attribute: string): Promise<INodeExecutionData[][] | null> {
	const state = context.getWorkflowStaticData('node') as PollState;
	const since = state.since;
	const seen = new Set(state.seenAtSince ?? []);
	const isNew = (record: IDataObject) => {
		const at = changedAt(record, attribute);
		if (at === undefined || since === undefined) return false;
		return at > since || (at === since && !seen.has(String(record.id)));
	};

	// EspoCRM may order a text search by relevance before the change time (entity types with full-text search): its
	// pages are then not newest first, so they are read to the end, of the records changed since the last poll only.
	const searched = qs.textFilter !== undefined || qs.q !== undefined;
	const sinceCondition = { type: 'greaterThanOrEquals', attribute, value: serverDateTime(DateTime.fromMillis(since ?? 0, { zone: 'UTC' })) };
	const pageQs = searched && since !== undefined ? { ...qs, where: [...((qs.where as IDataObject[] | undefined) ?? []), sinceCondition] } : qs;

	const found = new Map<string, IDataObject>();
	let newest: { at: number; ids: Set<string> } | undefined;
	let previous: ListReply | undefined;
	for (let offset = 0; ; offset += PAGE_SIZE - OVERLAP) {
		// The poll stops on dates, not on a count: no page needs the total (counting costs EspoCRM a query per page).
		const page = await apiRequest<ListReply>(context, 0, { method: 'GET', expect: 'list', url, qs: { ...pageQs, offset, maxSize: PAGE_SIZE }, headers: { 'X-No-Total': 'true' } });
		// A server that ignores `offset` answers the first page again: what lies beyond it cannot be read.
		if (previous && repeats(page, previous)) break;
		previous = page;
		for (const record of page.list) {
			const at = changedAt(record, attribute);
			if (at === undefined) continue;
			if (!newest || at > newest.at) newest = { at, ids: new Set() };
			if (at === newest.at) newest.ids.add(String(record.id));
			if (isNew(record)) found.set(String(record.id), record);
		}
		const oldest = changedAt(page.list[page.list.length - 1] ?? {}, attribute);
		// The first poll only needs the newest record; later polls stop at the first record older than the last one.
		if (page.list.length < PAGE_SIZE || since === undefined || oldest === undefined || (!searched && oldest < since)) break;
	}

	if (since === undefined) {
		state.since = newest?.at ?? 0;
		state.seenAtSince = [...(newest?.ids ?? [])];
		return null;
	}
	if (found.size === 0) return null;
	// Records sharing the newest second may still come in that second: remember all IDs emitted at it.
	if (newest && newest.at > since) {
		state.since = newest.at;
		state.seenAtSince = [...newest.ids];
	} else {
		state.seenAtSince = [...seen, ...found.keys()];
	}
	const records = [...found.values()].reverse();
	return [records.map((json) => ({ json }))];
}
