import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { DateTime } from 'luxon';

import { readMoment, serverDateTime } from '../RecordManagementService/shared/fields/dates';
import { apiRequest } from '../RecordManagementService/shared/http/request';
import { runOf, startRun } from '../RecordManagementService/shared/http/run';
import type { Run } from '../RecordManagementService/shared/http/run';
import { triggerItemOf } from '../RecordManagementService/shared/item/item';
import type { Item } from '../RecordManagementService/shared/item/item';
import { pathOf } from '../RecordManagementService/shared/item/paths';
import { entityTypeOf } from '../RecordManagementService/shared/item/validation';
import { whereOf } from '../RecordManagementService/shared/list/where';
import { listRecords, repeats } from '../RecordManagementService/shared/list/listing';
import { noteTypesWhere } from '../RecordManagementService/shared/list/notes';
import { PAGE_SIZE, pageRequest } from '../RecordManagementService/shared/list/page';
import type { ListReply } from '../RecordManagementService/shared/list/page';
import { searchQueryOf } from '../RecordManagementService/shared/list/search';
import { remedied } from '../RecordManagementService/shared/operation/activation';
import { dialectOf, requireEspoCrm } from '../RecordManagementService/shared/server/dialect';

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
 * record, changing nothing. n8n keeps the context from activation to deactivation: each poll starts a run of its own
 * (it must not inherit the last one's refusal), unless the last poll of this trigger still runs.
 */
export async function pollChanges(context: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	if (context.getMode() === 'manual') return await pollOrFetch(runOf(context));
	const key = `${context.getWorkflow().id}:${context.getNode().id}`;
	if (polling.has(key)) return null;
	polling.add(key);
	startRun(context);
	try {
		return await pollOrFetch(runOf(context));
	} finally {
		polling.delete(key);
	}
}

async function pollOrFetch(run: Run<IPollFunctions>): Promise<INodeExecutionData[][] | null> {
	const item = triggerItemOf(run);
	if (item.parameter<string>('event', 'created') === 'streamNote')
		return await pollStream(run, item);
	const attribute =
		item.parameter<string>('event', 'created') === 'created' ? 'createdAt' : 'modifiedAt';
	const select = ([] as string[]).concat(item.parameter<string[] | string>('select', [])).join(',');
	const searched = searchQueryOf(item, await dialectOf(run));
	const qs: IDataObject = {
		orderBy: attribute,
		order: 'desc',
		...(whereOf(item) ? { where: whereOf(item) } : {}),
		...searched,
		// The change time and ID are what the trigger reads; the server adds the ID.
		...(select ? { select: `${select},${attribute}` } : {}),
	};
	const url = pathOf(item, '/{entityType}');

	if (run.context.getMode() === 'manual') {
		const [newest] = await listRecords(run, 0, { url, qs }, 1);
		if (newest) return [[{ json: newest }]];
		const narrowed = qs.where !== undefined || Object.keys(searched).length > 0;
		throw nothingToShow(
			run,
			`No ${entityTypeOf(item)} record${narrowed ? ' matches the conditions and search of the trigger' : ' was found'}`,
			`Fetch Test Event shows the newest one. Create one in the CRM${narrowed ? ', or change the conditions' : ''}, or choose another entity type, then fetch again.`,
		);
	}

	// EspoCRM may order a text search by relevance before the change time (entity types with full-text search): its
	// pages are then not newest first, so a poll reads them to the end, of the records changed since the last poll only.
	const byRelevance = qs.textFilter !== undefined || qs.q !== undefined;
	const changedSince = (since: number) => ({
		where: [
			...((qs.where as IDataObject[] | undefined) ?? []),
			{
				type: 'greaterThanOrEquals',
				attribute,
				value: serverDateTime(DateTime.fromMillis(since, { zone: 'UTC' })),
			},
		],
	});
	return await pollSince(
		run,
		url,
		qs,
		attribute,
		byRelevance ? { narrow: changedSince, newestFirst: false } : {},
	);
}

/**
 * The notes that came in a stream since the last poll (New Stream Note; EspoCRM only): a record's stream
 * (`GET /{entityType}/{id}/stream`) or the API user's (`GET /Stream`). Both lists are newest first and take
 * `after=<createdAt>` (Controllers/Stream::fetchSearchParams: the notes created strictly after it), so a poll reads only
 * the notes of the last poll's second and later, however long the stream; the state and the first poll are the
 * records' (the notes of the last second that were emitted are remembered by ID).
 */
async function pollStream(
	run: Run<IPollFunctions>,
	item: Item,
): Promise<INodeExecutionData[][] | null> {
	requireEspoCrm(item, await dialectOf(run), 'The event "New Stream Note (EspoCRM)"');
	const url =
		item.parameter<string>('streamOf', 'record') === 'user'
			? '/Stream'
			: pathOf(item, '/{entityType}/{recordId}/stream');
	const noteTypes = ([] as unknown[])
		.concat(item.parameter('noteTypes', ['Post']) ?? [])
		.map(String);
	const where = noteTypesWhere(noteTypes);
	const qs: IDataObject = where ? { where } : {};

	if (run.context.getMode() === 'manual') {
		// The stream's own order (newest first), not one by ID.
		const [newest] = await listRecords(run, 0, { url, qs }, 1, { serverOrder: true });
		if (newest) return [[{ json: newest }]];
		const ofTypes = noteTypes.length ? ` of the types chosen (${noteTypes.join(', ')})` : '';
		throw item.parameter<string>('streamOf', 'record') === 'user'
			? nothingToShow(
					run,
					`The API user's stream has no note${ofTypes} yet`,
					"Fetch Test Event shows the newest one. Post to a record the API user follows (in EspoCRM, or with this node's Stream > Post), or choose other Note Types, then fetch again.",
				)
			: nothingToShow(
					run,
					`The stream of this ${entityTypeOf(item)} has no note${ofTypes} yet`,
					"Fetch Test Event shows the newest one. Post a note on the record (in EspoCRM, or with this node's Stream > Post), or choose a record whose stream has notes, or other Note Types, then fetch again.",
				);
	}
	// From the start of the last poll's second: the notes of that second not emitted yet may still come.
	const after = (since: number) => ({ after: serverDateTime(DateTime.fromMillis(since - 1000)) });
	return await pollSince(run, url, qs, 'createdAt', { narrow: after });
}

/**
 * Fetch Test Event found nothing: n8n would show "No trigger output" and nothing else. As n8n's own polling triggers
 * do, the trigger says so, with why and what to do (one message: n8n shows the description beside it).
 */
function nothingToShow(run: Run, why: string, whatToDo: string): NodeOperationError {
	return remedied(new NodeOperationError(run.node, `${why}. ${whatToDo}`));
}

/**
 * One poll: the records changed since the state the last poll left. `narrow` adds to each request what limits the
 * list to records changed since then, where the server can (a stream's `after`, a where on the change time);
 * `newestFirst: false` for a list whose pages are not in the order of the change time (it is then read to the end).
 */
async function pollSince(
	run: Run<IPollFunctions>,
	url: string,
	listQs: IDataObject,
	attribute: string,
	{
		narrow,
		newestFirst = true,
	}: { narrow?: (since: number) => IDataObject; newestFirst?: boolean } = {},
): Promise<INodeExecutionData[][] | null> {
	const state = run.context.getWorkflowStaticData('node') as PollState;
	const since = state.since;
	const qs = since !== undefined && narrow ? { ...listQs, ...narrow(since) } : listQs;
	const seen = new Set(state.seenAtSince ?? []);
	const isNew = (record: IDataObject) => {
		const at = changedAt(record, attribute);
		if (at === undefined || since === undefined) return false;
		return at > since || (at === since && !seen.has(String(record.id)));
	};

	const found = new Map<string, IDataObject>();
	let newest: { at: number; ids: Set<string> } | undefined;
	let previous: ListReply | undefined;
	for (let offset = 0; ; offset += PAGE_SIZE - OVERLAP) {
		// The poll stops on dates, not on a count: no page needs the total (counting costs EspoCRM a query per page).
		const page = await apiRequest<ListReply>(run, 0, pageRequest({ url, qs }, { offset }));
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
		if (
			page.list.length < PAGE_SIZE ||
			since === undefined ||
			oldest === undefined ||
			(newestFirst && oldest < since)
		)
			break;
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
