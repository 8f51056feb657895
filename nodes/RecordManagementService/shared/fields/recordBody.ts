import type { IDataObject, INodeProperties, ResourceMapperValue } from 'n8n-workflow';

import { mappedFields } from './fieldMapper';
import type { Item } from '../item/item';
import { checkLinkPairs } from '../tool/arguments';
import { parseJsonObject } from '../item/validation';

/** The fields of the interface, each hidden for the built-in entity types that do not have it (any other type may). */
export const INTERFACE_FIELDS: Array<{
	field: string;
	label: string;
	kind: 'string' | 'number';
	notOn?: string[];
	about: string;
}> = [
	{
		field: 'name',
		label: 'Name',
		kind: 'string',
		notOn: ['Contact', 'Lead'],
		about: 'Name of the record',
	},
	{
		field: 'firstName',
		label: 'First Name',
		kind: 'string',
		notOn: ['Account', 'Opportunity', 'Email'],
		about: 'First name of the person',
	},
	{
		field: 'lastName',
		label: 'Last Name',
		kind: 'string',
		notOn: ['Account', 'Opportunity', 'Email'],
		about: 'Last name of the person',
	},
	{
		field: 'emailAddress',
		label: 'Email Address',
		kind: 'string',
		about: 'Primary e-mail address',
	},
	{
		field: 'phoneNumber',
		label: 'Phone Number',
		kind: 'string',
		about: 'Primary phone number, in international format as EspoCRM stores it, such as +15550100',
	},
	{ field: 'description', label: 'Description', kind: 'string', about: 'Free text' },
	{
		field: 'accountId',
		label: 'Account ID',
		kind: 'string',
		notOn: ['Account', 'Email'],
		about: 'ID of the related Account',
	},
	{
		field: 'assignedUserId',
		label: 'Assigned User ID',
		kind: 'string',
		about: 'ID of the user the record is assigned to',
	},
	{
		field: 'status',
		label: 'Status',
		kind: 'string',
		notOn: ['Contact'],
		about: 'Status, for example "New" for a Lead',
	},
	{
		field: 'amount',
		label: 'Amount',
		kind: 'number',
		notOn: ['Account', 'Contact', 'Lead', 'Email'],
		about: 'Amount of the opportunity',
	},
];

const show = { operation: ['create', 'update', 'upsert', 'massUpdate'] };

/**
 * The record's fields: from the form ("Fields" and "Custom Fields"), n8n's field mapper, or the whole body as JSON.
 * Create, Update, Create or Update and Mass Update share these parameters and `recordBody`.
 */
export const recordBodyFields: INodeProperties[] = [
	{
		displayName: 'Define Fields',
		name: 'bodyMode',
		type: 'options',
		options: [
			{ name: 'Using the Form Below', value: 'fields' },
			{
				name: 'Using the Field Mapper',
				value: 'mapper',
				description:
					"The entity type's fields, read from the server (EspoCRM), to map one by one or automatically",
			},
			{ name: 'Using JSON', value: 'json' },
		],
		default: 'fields',
		displayOptions: { show },
	},
	{
		displayName: 'Fields',
		name: 'fields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		displayOptions: { show: { ...show, bodyMode: ['fields'] } },
		options: INTERFACE_FIELDS.map((field) => ({
			displayName: field.label,
			name: field.field,
			type: field.kind,
			default: field.kind === 'number' ? 0 : '',
			description: field.about,
			...(field.notOn ? { displayOptions: { hide: { '/entityType': field.notOn } } } : {}),
		})),
	},
	{
		displayName: 'Custom Fields',
		name: 'customFields',
		type: 'fixedCollection',
		placeholder: 'Add Custom Field',
		typeOptions: { multipleValues: true },
		default: {},
		description:
			'Any other field of the entity type, by its name on the server (for example "website" or "cStage")',
		displayOptions: { show: { ...show, bodyMode: ['fields'] } },
		options: [
			{
				displayName: 'Field',
				name: 'field',
				values: [
					{
						displayName: 'Field Name',
						name: 'name',
						type: 'string',
						default: '',
						placeholder: 'website',
					},
					{ displayName: 'Field Value', name: 'value', type: 'string', default: '' },
				],
			},
		],
	},
	{
		displayName: 'Fields',
		name: 'columns',
		type: 'resourceMapper',
		noDataExpression: true,
		default: { mappingMode: 'defineBelow', value: null },
		required: true,
		typeOptions: {
			loadOptionsDependsOn: ['entityType', 'customEntityType'],
			resourceMapper: {
				resourceMapperMethod: 'getMappingFields',
				mode: 'add',
				fieldWords: { singular: 'field', plural: 'fields' },
				addAllFields: false,
				multiKeyMatch: false,
				supportAutoMap: true,
			},
		},
		displayOptions: { show: { ...show, bodyMode: ['mapper'] } },
	},
	{
		displayName: 'JSON',
		name: 'jsonBody',
		type: 'json',
		default: '{\n  "firstName": "Ada",\n  "lastName": "Lovelace"\n}',
		description: 'All fields of the record as a JSON object',
		displayOptions: { show: { ...show, bodyMode: ['json'] } },
	},
];

/** The fields to send for one item, as the user defined them; refuses what cannot be sent. */
export function recordBody(item: Item): IDataObject {
	const body = definedFields(item);
	if (item.asTool) checkLinkPairs(item.node, item.index, body);
	return body;
}

function definedFields(item: Item): IDataObject {
	const mode = item.parameter<string>('bodyMode', 'fields');
	if (mode === 'mapper') return mappedFields(item, item.parameter<ResourceMapperValue>('columns'));
	if (mode === 'json') return parseJsonObject(item, item.parameter('jsonBody'), 'JSON');
	const body: IDataObject = { ...item.parameter<IDataObject>('fields', {}) };
	// The collection whole: as saved, its `field` list is absent when empty, which a read of `customFields.field` would
	// resolve through n8n's engine for every item.
	const rows =
		item.parameter<{ field?: Array<{ name?: string; value?: unknown }> }>('customFields', {})
			.field ?? [];
	for (const [index, row] of rows.entries()) {
		const name = row.name?.trim();
		if (!name) throw item.refuse('Custom Fields', `: row ${index + 1} has no field name`);
		body[name] = row.value as IDataObject[string];
	}
	return body;
}

/** The fields of a create or change, which must not be empty. */
export function requiredRecordBody(item: Item): IDataObject {
	const body = recordBody(item);
	if (Object.keys(body).length === 0)
		throw item.refuse('Fields', 'is empty', 'Add at least one field to send.');
	return body;
}

export const skipDuplicateCheckOption: INodeProperties = {
	displayName: 'Skip Duplicate Check',
	name: 'skipDuplicateCheck',
	type: 'boolean',
	default: false,
	description:
		'Whether to create the record even if the server finds records that look the same (it refuses with "duplicate" otherwise)',
};

/** The header that makes the server create a record although it looks like an existing one. */
export function duplicateCheckHeaders(options: IDataObject): IDataObject {
	return options.skipDuplicateCheck === true ? { 'X-Skip-Duplicate-Check': 'true' } : {};
}
