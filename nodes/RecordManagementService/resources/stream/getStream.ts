import type { IDataObject, IDisplayOptions, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { forEachItem } from '../../shared/operation/forEachItem';
import { dialectOf, requireEspoCrm } from '../../shared/server/dialect';
import { wantedRecords } from '../../shared/list/filters';
import { pathOf } from '../../shared/item/paths';
import { listRecords } from '../../shared/list/listing';
import { requireWellFormed } from '../../shared/item/validation';

const show = { resource: ['stream'], operation: ['getStream'] };

/** The types of EspoCRM's notes (entityDefs.Note.fields.type.options of EspoCRM 8.1.5). */
export const NOTE_TYPES = [
	{ name: 'Assigned', value: 'Assign', description: 'The record was assigned to a user' },
	{ name: 'Created', value: 'Create', description: 'The record was created' },
	{ name: 'Created Related', value: 'CreateRelated', description: 'A record linked to it was created (a call, a task, …)' },
	{ name: 'Email Received', value: 'EmailReceived' },
	{ name: 'Email Sent', value: 'EmailSent' },
	{ name: 'Linked', value: 'Relate', description: 'A record was linked to it' },
	{ name: 'Post', value: 'Post', description: 'A post written by a user or by a workflow' },
	{ name: 'Status Changed', value: 'Status', description: 'Its status field changed (a note EspoCRM writes up to version 9.1)' },
	{
		name: 'Status Changed (Any Version)',
		value: 'statusChange',
		description: "Its status field (an Opportunity's stage, a Lead's status) changed: a Status note up to EspoCRM 9.1, an Updated note with the new value from 9.2 on",
	},
	{ name: 'Unlinked', value: 'Unrelate', description: 'A record was unlinked from it' },
	{ name: 'Updated', value: 'Update', description: 'Fields that the stream follows changed' },
];

/**
 * The Note Types value that finds every change of a record's status field, whatever the EspoCRM version writes for
 * it: up to 9.1 a `Status` note (`data: {field, value, style}`), from 9.2 on an `Update` note whose data holds the new
 * value (`{"fields": [], "attributes": {"was": {}, "became": {}}, "value": "Negotiation"}`, Tools/Stream/Service::
 * handleAudited; measured on 7.5.6 and 9.3.4). 9.3 has no `Status` type any more: `Status` alone finds nothing there.
 */
const STATUS_CHANGE = 'statusChange';

/**
 * The where list of Note Types (Get Many and the trigger's New Stream Note): the note's type among those chosen, and
 * with "Status Changed (Any Version)" also an Update note whose data has a `value` (EspoCRM's JSON text of the data:
 * a LIKE on it, which every version takes; an audited field named "value" would match too).
 */
export function noteTypesWhere(noteTypes: string[]): IDataObject[] | undefined {
	if (noteTypes.length === 0) return undefined;
	const types = noteTypes.filter((type) => type !== STATUS_CHANGE);
	if (types.length === noteTypes.length) return [{ type: 'in', attribute: 'type', value: types }];
	const updateWithStatus = { type: 'and', value: [{ type: 'equals', attribute: 'type', value: 'Update' }, { type: 'like', attribute: 'data', value: '%"value":%' }] };
	return [{ type: 'or', value: [{ type: 'in', attribute: 'type', value: [...new Set([...types, 'Status'])] }, updateWithStatus] }];
}

/** Whose stream: a record's, or the API user's own (Get Many here, and the polling trigger's New Stream Note). */
export function streamOfField(showWhen: IDisplayOptions['show']): INodeProperties {
	return {
		displayName: 'Stream Of',
		name: 'streamOf',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: 'A Record', value: 'record', description: "The record's stream, as its Stream panel shows it" },
			{
				name: 'The API User',
				value: 'user',
				description: "The API user's own stream: what happens on the records it follows, and posts to it",
			},
		],
		default: 'record',
		displayOptions: { show: showWhen },
	};
}

export const getStreamFields: INodeProperties[] = [
	streamOfField(show),
	// Return All and Limit: listFields in the node (each parameter is declared once).
	{
		displayName: 'Options',
		name: 'streamOptions',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show },
		options: [
			{
				displayName: 'Note Types',
				name: 'noteTypes',
				type: 'multiOptions',
				options: NOTE_TYPES,
				default: [],
				description: 'Only notes of these types (all when none is chosen)',
			},
		],
	},
];

/**
 * GET /{entityType}/{recordId}/stream, or the API user's GET /Stream: the notes, newest first, paged as Get Many is.
 * EspoCRM tells the total of a record's stream (its pages are read at once) but not of the user's (-1 when there is
 * more, -2 when not: one page after another). A note type filter is a where on `type` (noteTypesWhere), which both
 * lists apply.
 */
export async function getStream(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const dialect = await dialectOf(this);
	return await forEachItem(this, async (item) => {
		requireEspoCrm(item, dialect, 'Stream > Get Many');
		const ofUser = item.parameter<string>('streamOf', 'record') === 'user';
		const url = ofUser ? '/Stream' : pathOf(item, '/{entityType}/{recordId}/stream');
		const wanted = wantedRecords(item);
		const options = item.parameter<IDataObject>('streamOptions', {});
		const noteTypes = ([] as unknown[]).concat(options.noteTypes ?? []).map(String);
		requireWellFormed(item, noteTypes, 'Note Types');
		const where = noteTypesWhere(noteTypes);
		const qs: IDataObject = where ? { where } : {};
		return await listRecords(this, item.index, { url, qs }, wanted, { serverOrder: true });
	});
}
