import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import { runOf } from '../../shared/http/run';
import { pathOf } from '../../shared/item/paths';
import { requireWellFormed } from '../../shared/item/validation';
import { wantedRecords } from '../../shared/list/where';
import { listRecords } from '../../shared/list/listing';
import { NOTE_TYPES, noteTypesWhere, streamOfField } from '../../shared/list/notes';
import { forEachItem } from '../../shared/operation/forEachItem';
import { dialectOf, requireEspoCrm } from '../../shared/server/dialect';

const show = { resource: ['stream'], operation: ['getStream'] };

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
	const run = runOf(this);
	const dialect = await dialectOf(run);
	return await forEachItem(run, async (item) => {
		requireEspoCrm(item, dialect, 'Stream > Get Many');
		const ofUser = item.parameter<string>('streamOf', 'record') === 'user';
		const url = ofUser ? '/Stream' : pathOf(item, '/{entityType}/{recordId}/stream');
		const wanted = wantedRecords(item);
		const options = item.parameter<IDataObject>('streamOptions', {});
		const noteTypes = ([] as unknown[]).concat(options.noteTypes ?? []).map(String);
		requireWellFormed(item, noteTypes, 'Note Types');
		const where = noteTypesWhere(noteTypes);
		const qs: IDataObject = where ? { where } : {};
		return await listRecords(run, item.index, { url, qs }, wanted, { serverOrder: true });
	});
}
