import type { IDataObject, IDisplayOptions, INodeProperties } from 'n8n-workflow';

/**
 * A stream read as a list (Stream > Get Many, and the polling trigger's New Stream Note): whose stream, and which of
 * its notes.
 */

/** The types of EspoCRM's notes (entityDefs.Note.fields.type.options of EspoCRM 8.1.5). */
export const NOTE_TYPES = [
	{ name: 'Assigned', value: 'Assign', description: 'The record was assigned to a user' },
	{ name: 'Created', value: 'Create', description: 'The record was created' },
	{
		name: 'Created Related',
		value: 'CreateRelated',
		description: 'A record linked to it was created (a call, a task, …)',
	},
	{ name: 'Email Received', value: 'EmailReceived' },
	{ name: 'Email Sent', value: 'EmailSent' },
	{ name: 'Linked', value: 'Relate', description: 'A record was linked to it' },
	{ name: 'Post', value: 'Post', description: 'A post written by a user or by a workflow' },
	{
		name: 'Status Changed',
		value: 'Status',
		description: 'Its status field changed (a note EspoCRM writes up to version 9.1)',
	},
	{
		name: 'Status Changed (Any Version)',
		value: 'statusChange',
		description:
			"Its status field (an Opportunity's stage, a Lead's status) changed: a Status note up to EspoCRM 9.1, an Updated note with the new value from 9.2 on",
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
	const updateWithStatus = {
		type: 'and',
		value: [
			{ type: 'equals', attribute: 'type', value: 'Update' },
			{ type: 'like', attribute: 'data', value: '%"value":%' },
		],
	};
	return [
		{
			type: 'or',
			value: [
				{ type: 'in', attribute: 'type', value: [...new Set([...types, 'Status'])] },
				updateWithStatus,
			],
		},
	];
}

/** Whose stream: a record's, or the API user's own (Get Many here, and the polling trigger's New Stream Note). */
export function streamOfField(showWhen: IDisplayOptions['show']): INodeProperties {
	return {
		displayName: 'Stream Of',
		name: 'streamOf',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'A Record',
				value: 'record',
				description: "The record's stream, as its Stream panel shows it",
			},
			{
				name: 'The API User',
				value: 'user',
				description:
					"The API user's own stream: what happens on the records it follows, and posts to it",
			},
		],
		default: 'record',
		displayOptions: { show: showWhen },
	};
}
