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
import { parseJsonObject } from './validation';

type Show = NonNullable<INodeProperties['displayOptions']>['show'];

/** The fields of the interface, each hidden for the built-in entity types that do not have it (any other type may). */
const INTERFACE_FIELDS: Array<{ field: string; label: string; kind: 'string' | 'number'; notOn?: string[]; about: string }> = [
	{ field: 'name', label: 'Name', kind: 'string', notOn: ['Contact', 'Lead'], about: 'Name of the record' },
	{ field: 'firstName', label: 'First Name', kind: 'string', notOn: ['Account', 'Opportunity', 'Email'], about: 'First name of the person' },
	{ field: 'lastName', label: 'Last Name', kind: 'string', notOn: ['Account', 'Opportunity', 'Email'], about: 'Last name of the person' },
	{ field: 'emailAddress', label: 'Email Address', kind: 'string', about: 'Primary e-mail address' },
	{ field: 'phoneNumber', label: 'Phone Number', kind: 'string', about: 'Primary phone number, in international format such as +1 555 0100' },
	{ field: 'description', label: 'Description', kind: 'string', about: 'Free text' },
	{ field: 'accountId', label: 'Account ID', kind: 'string', notOn: ['Account', 'Email'], about: 'ID of the related Account' },
	{ field: 'assignedUserId', label: 'Assigned User ID', kind: 'string', about: 'ID of the user the record is assigned to' },
	{ field: 'status', label: 'Status', kind: 'string', notOn: ['Contact'], about: 'Status, for example "New" for a Lead' },
	{ field: 'amount', label: 'Amount', kind: 'number', notOn: ['Account', 'Contact', 'Lead', 'Email'], about: 'Amount of the opportunity' },
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

type ParameterReader = Pick<IExecuteFunctions, 'getNode' | 'getNodeParameter' | 'getTimezone'>;

/** The fields to send for one item (whose input is `item`), as the user defined them; refuses what cannot be sent. */
export function recordBody(context: ParameterReader, itemIndex: number, item: IDataObject): IDataObject {
	const get = (name: string, fallback?: unknown) => context.getNodeParameter(name, itemIndex, fallback);
	const mode = get('bodyMode', 'fields');
	if (mode === 'mapper') {
		return mappedFields(context.getNode(), get('columns') as ResourceMapperValue, itemIndex, item, context.getTimezone());
	}
	if (mode === 'json') return parseJsonObject(context, get('jsonBody'), 'JSON', itemIndex);
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

/** Refuses to send a create or change with no field in it. */
export function requireFields(context: Pick<IExecuteFunctions, 'getNode'>, body: IDataObject, parameter: string, itemIndex: number) {
	if (Object.keys(body).length === 0) {
		throw new NodeOperationError(context.getNode(), `The parameter "${parameter}" is empty (item ${itemIndex})`, {
			itemIndex,
			description: 'Add at least one field to send.',
		});
	}
	return body;
}

/** preSend of Create and Update. */
async function setRecordBody(this: IExecuteSingleFunctions, request: IHttpRequestOptions) {
	const itemIndex = this.getItemIndex();
	const reader: ParameterReader = {
		getNode: () => this.getNode(),
		getTimezone: () => this.getTimezone(),
		getNodeParameter: ((name: string, _itemIndex: number, fallback?: unknown) =>
			this.getNodeParameter(name, fallback)) as IExecuteFunctions['getNodeParameter'],
	};
	const label = this.getNodeParameter('operation') === 'update' ? 'Fields to Update' : 'Fields';
	const body = requireFields(this, recordBody(reader, itemIndex, this.getInputData().json), label, itemIndex);
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
