import type {
	IDataObject,
	IExecuteFunctions,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { parseJsonParameter } from './validation';

type Show = NonNullable<INodeProperties['displayOptions']>['show'];

/** The fields of the interface, each offered for the entity types it is seen on ('custom' types may have any). */
const INTERFACE_FIELDS: Array<{ name: string; displayName: string; type: 'string' | 'number'; on?: string[]; description: string }> = [
	{ name: 'name', displayName: 'Name', type: 'string', on: ['Account', 'Opportunity', 'Email', 'custom'], description: 'Name of the record' },
	{ name: 'firstName', displayName: 'First Name', type: 'string', on: ['Contact', 'Lead', 'custom'], description: 'First name of the person' },
	{ name: 'lastName', displayName: 'Last Name', type: 'string', on: ['Contact', 'Lead', 'custom'], description: 'Last name of the person' },
	{ name: 'emailAddress', displayName: 'Email Address', type: 'string', description: 'Primary e-mail address' },
	{ name: 'phoneNumber', displayName: 'Phone Number', type: 'string', description: 'Primary phone number, in international format such as +1 555 0100' },
	{ name: 'description', displayName: 'Description', type: 'string', description: 'Free text' },
	{ name: 'accountId', displayName: 'Account ID', type: 'string', on: ['Contact', 'Lead', 'Opportunity', 'custom'], description: 'ID of the related Account' },
	{ name: 'assignedUserId', displayName: 'Assigned User ID', type: 'string', description: 'ID of the user the record is assigned to' },
	{ name: 'status', displayName: 'Status', type: 'string', on: ['Lead', 'Opportunity', 'Account', 'custom'], description: 'Status, for example "New" for a Lead' },
	{ name: 'amount', displayName: 'Amount', type: 'number', on: ['Opportunity', 'custom'], description: 'Amount of the opportunity' },
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
				displayName: field.displayName,
				name: field.name,
				type: field.type,
				default: field.type === 'number' ? 0 : '',
				description: field.description,
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

/** The fields to send for one item, as the user defined them; refuses what cannot be sent. */
export function recordBody(context: ParameterReader, itemIndex: number): IDataObject {
	const get = (name: string, fallback?: unknown) => context.getNodeParameter(name, itemIndex, fallback);
	if (get('bodyMode', 'fields') === 'json') {
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
	return { ...request, body: { ...(request.body as IDataObject), ...recordBody(reader, itemIndex) } };
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
