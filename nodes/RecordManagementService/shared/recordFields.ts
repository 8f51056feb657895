import type {
	IDataObject,
	IExecuteFunctions,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeProperties,
	ResourceMapperValue,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { mappedFields } from './fieldMapper';
import { parseJsonParameter } from './validation';

type Show = NonNullable<INodeProperties['displayOptions']>['show'];

/** The fields of the interface, each offered for the entity types it is seen on ('custom' types may have any). */
const INTERFACE_FIELDS: Array<{ field: string; label: string; kind: 'string' | 'number'; on?: string[]; about: string }> = [
	{ field: 'name', label: 'Name', kind: 'string', on: ['Account', 'Opportunity', 'Email', 'custom'], about: 'Name of the record' },
	{ field: 'firstName', label: 'First Name', kind: 'string', on: ['Contact', 'Lead', 'custom'], about: 'First name of the person' },
	{ field: 'lastName', label: 'Last Name', kind: 'string', on: ['Contact', 'Lead', 'custom'], about: 'Last name of the person' },
	{ field: 'emailAddress', label: 'Email Address', kind: 'string', about: 'Primary e-mail address' },
	{ field: 'phoneNumber', label: 'Phone Number', kind: 'string', about: 'Primary phone number, in international format such as +1 555 0100' },
	{ field: 'description', label: 'Description', kind: 'string', about: 'Free text' },
	{ field: 'accountId', label: 'Account ID', kind: 'string', on: ['Contact', 'Lead', 'Opportunity', 'custom'], about: 'ID of the related Account' },
	{ field: 'assignedUserId', label: 'Assigned User ID', kind: 'string', about: 'ID of the user the record is assigned to' },
	{ field: 'status', label: 'Status', kind: 'string', on: ['Lead', 'Opportunity', 'Account', 'custom'], about: 'Status, for example "New" for a Lead' },
	{ field: 'amount', label: 'Amount', kind: 'number', on: ['Opportunity', 'custom'], about: 'Amount of the opportunity' },
];

/**
 * The record's fields: from the form ("Fields" and "Custom Fields") or the whole body as JSON.
 * Create, Update, Create or Update and Mass Update share this definition and `recordBody`.
 */
export function recordBodyFields(show: Show, fieldsLabel = 'Fields'): INodeProperties[] {
	return [
		{
			displayName: 'Define Fields',
			name: 'bodyMode',
			type: 'options',
			options: [
				{ name: 'Using the Form Below', value: 'fields' },
				{
					name: 'Using the Field Mapper',
					value: 'mapper',
					description: "The entity type's fields, read from the server (EspoCRM), to map one by one or automatically",
				},
				{ name: 'Using JSON', value: 'json' },
			],
			default: 'fields',
			displayOptions: { show },
			routing: { send: { preSend: [setRecordBody] } },
		},
		{
			displayName: fieldsLabel,
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
				...(field.on ? { displayOptions: { show: { '/entityType': field.on } } } : {}),
			})),
		},
		{
			displayName: 'Custom Fields',
			name: 'customFields',
			type: 'fixedCollection',
			placeholder: 'Add Custom Field',
			typeOptions: { multipleValues: true },
			default: {},
			description: 'Any other field of the entity type, by its name on the server (for example "website" or "cStage")',
			displayOptions: { show: { ...show, bodyMode: ['fields'] } },
			options: [
				{
					displayName: 'Field',
					name: 'field',
					values: [
						{ displayName: 'Field Name', name: 'name', type: 'string', default: '', placeholder: 'website' },
						{ displayName: 'Field Value', name: 'value', type: 'string', default: '' },
					],
				},
			],
		},
		{
			displayName: fieldsLabel,
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
}

type ParameterReader = Pick<IExecuteFunctions, 'getNode' | 'getNodeParameter'>;

/** The fields to send for one item (whose input is `item`), as the user defined them; refuses what cannot be sent. */
export function recordBody(context: ParameterReader, itemIndex: number, item: IDataObject): IDataObject {
	const get = (name: string, fallback?: unknown) => context.getNodeParameter(name, itemIndex, fallback);
	const mode = get('bodyMode', 'fields');
	if (mode === 'mapper') return mappedFields(context.getNode(), get('columns') as ResourceMapperValue, itemIndex, item);
	if (mode === 'json') {
		const body = parseJsonParameter(context, get('jsonBody'), 'JSON', itemIndex);
		if (body === null || typeof body !== 'object' || Array.isArray(body)) {
			throw new NodeOperationError(context.getNode(), `The parameter "JSON" must be a JSON object (item ${itemIndex})`, {
				itemIndex,
			});
		}
		return body;
	}
	const body: IDataObject = { ...(get('fields', {}) as IDataObject) };
	const rows = get('customFields.field', []) as Array<{ name?: string; value?: unknown }>;
	for (const [index, row] of rows.entries()) {
		const name = row.name?.trim();
		if (!name) {
			throw new NodeOperationError(
				context.getNode(),
				`The parameter "Custom Fields": row ${index + 1} has no field name (item ${itemIndex})`,
				{ itemIndex },
			);
		}
		body[name] = row.value as IDataObject[string];
	}
	return body;
}

/** preSend of Create and Update. */
async function setRecordBody(this: IExecuteSingleFunctions, request: IHttpRequestOptions) {
	const itemIndex = this.getItemIndex();
	const reader: ParameterReader = {
		getNode: () => this.getNode(),
		getNodeParameter: ((name: string, _itemIndex: number, fallback?: unknown) =>
			this.getNodeParameter(name, fallback)) as IExecuteFunctions['getNodeParameter'],
	};
	const body = recordBody(reader, itemIndex, this.getInputData().json);
	return { ...request, body: { ...(request.body as IDataObject), ...body } };
}

export const skipDuplicateCheckOption: INodeProperties = {
	displayName: 'Skip Duplicate Check',
	name: 'skipDuplicateCheck',
	type: 'boolean',
	default: false,
	description:
		'Whether to create the record even if the server finds records that look the same (it refuses with "duplicate" otherwise)',
	routing: { request: { headers: { 'X-Skip-Duplicate-Check': '={{ $value ? "true" : "false" }}' } } },
};
