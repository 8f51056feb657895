import type { INodeProperties } from 'n8n-workflow';

import { checkEntityType, checkLink, checkRecordId } from './validation';

/**
 * The entity type as it goes into a request path. `checkEntityType` (preSend of the entity type parameter)
 * has refused anything but a plain name before the request is sent.
 */
export const ENTITY_TYPE_PATH =
	'{{ $parameter.entityType === "custom" ? $parameter.customEntityType.trim() : $parameter.entityType }}';

/** The record ID as one encoded path segment; the resource locator resolves "By URL" to the ID. */
export const RECORD_ID_PATH = '{{ encodeURIComponent(String($parameter.recordId).trim()) }}';

export const ENTITY_TYPE_OPTIONS = [
	{ name: 'Account', value: 'Account' },
	{ name: 'Contact', value: 'Contact' },
	{ name: 'Email', value: 'Email' },
	{ name: 'Lead', value: 'Lead' },
	{ name: 'Opportunity', value: 'Opportunity' },
	{ name: 'Other (Enter Name)', value: 'custom' },
];

export function entityTypeFields(show: NonNullable<INodeProperties['displayOptions']>['show']): INodeProperties[] {
	return [
		{
			displayName: 'Entity Type',
			name: 'entityType',
			type: 'options',
			noDataExpression: false,
			options: ENTITY_TYPE_OPTIONS,
			default: 'Contact',
			description: 'The type of record',
			displayOptions: { show },
			routing: { send: { preSend: [checkEntityType] } },
		},
		{
			displayName: 'Entity Type Name',
			name: 'customEntityType',
			type: 'string',
			default: '',
			// Not `required`: n8n then requires it whenever Entity Type is an expression. An empty name is refused at run time.
			placeholder: 'CProject',
			description: 'Name of the entity type as the server knows it, for example a custom type such as CProject',
			displayOptions: { show: { ...show, entityType: ['custom'] } },
		},
	];
}

/** A record ID, or a record's web address such as https://crm.example.com/#Contact/view/6b02e09eadb4139af. */
export function recordIdField(
	show: NonNullable<INodeProperties['displayOptions']>['show'],
	overrides: Partial<INodeProperties> = {},
): INodeProperties {
	return {
		displayName: 'Record',
		name: 'recordId',
		type: 'resourceLocator',
		default: { mode: 'id', value: '' },
		required: true,
		modes: [
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: '6b02e09eadb4139af',
			},
			{
				displayName: 'By URL',
				name: 'url',
				type: 'string',
				placeholder: 'https://crm.example.com/#Contact/view/6b02e09eadb4139af',
				validation: [
					{
						type: 'regex',
						properties: {
							regex: 'https?://.+#[A-Za-z0-9_]+/view/[^/?#]+',
							errorMessage: 'Not a record address such as https://crm.example.com/#Contact/view/<id>',
						},
					},
				],
				extractValue: { type: 'regex', regex: 'https?://.+#[A-Za-z0-9_]+/view/([^/?#]+)' },
			},
		],
		displayOptions: { show },
		routing: { send: { preSend: [checkRecordId] } },
		...overrides,
	};
}

export const requestSettingsField: INodeProperties = {
	displayName: 'Request Settings',
	name: 'requestSettings',
	type: 'collection',
	placeholder: 'Add Setting',
	default: {},
	options: [
		{
			displayName: 'Max Parallel Requests',
			name: 'maxParallel',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 50 },
			default: 5,
			description: 'How many requests this node has open at once. Lower it for a small server, or if it answers 429 or 503.',
		},
		{
			displayName: 'Max Retries',
			name: 'maxRetries',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: 20 },
			default: 5,
			description:
				'How often a request is sent again when the server is busy (429, 503) or, for reads and other repeatable requests, unreachable (502, 504, lost connection). Creates are never resent when the server may have carried them out.',
		},
		{
			displayName: 'Max Wait Before Retry (Seconds)',
			name: 'maxRetryWaitSeconds',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: 60,
			description: "Longest wait the node accepts from the server's Retry-After before it gives up",
		},
	],
};

/** The relationship name as a path segment; `checkLink` (preSend of the relationship parameter) refused anything else. */
export const LINK_PATH = '{{ $parameter.link === "custom" ? $parameter.customLink.trim() : $parameter.link }}';

export function linkFields(show: NonNullable<INodeProperties['displayOptions']>['show']): INodeProperties[] {
	return [
		{
			displayName: 'Relationship',
			name: 'link',
			type: 'options',
			options: [
				{ name: 'Account (of a Contact or Opportunity)', value: 'account' },
				{ name: 'Accounts', value: 'accounts' },
				{ name: 'Contacts', value: 'contacts' },
				{ name: 'Emails', value: 'emails' },
				{ name: 'Leads', value: 'leads' },
				{ name: 'Opportunities', value: 'opportunities' },
				{ name: 'Other (Enter Name)', value: 'custom' },
				{ name: 'Teams', value: 'teams' },
			],
			default: 'contacts',
			description: 'Name of the relationship on the record, for example "contacts" on an Account',
			displayOptions: { show },
			routing: { send: { preSend: [checkLink] } },
		},
		{
			displayName: 'Relationship Name',
			name: 'customLink',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'cProjects',
			displayOptions: { show: { ...show, link: ['custom'] } },
		},
	];
}
