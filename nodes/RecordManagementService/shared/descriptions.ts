import type { INodeProperties } from 'n8n-workflow';

import { checkEntityType, checkLink, checkRecordId } from './validation';

/**
 * The entity type as it goes into a request path. `checkEntityType` (preSend of the entity type parameter)
 * has refused anything but a plain name before the request is sent.
 */
export const ENTITY_TYPE_PATH =
	'{{ $parameter.entityType === "custom" ? $parameter.customEntityType.trim() : $parameter.entityType }}';

/** A record's web address in EspoCRM, such as https://crm.example.com/#Contact/view/6b02e09eadb4139af. */
const RECORD_URL = 'https?://.+#[A-Za-z0-9_]+/view/([^/?#]+)';

/**
 * The record ID as one encoded path segment. n8n resolves a "By URL" value to the ID only when the editor saved
 * the mode's pattern with it, so a web address is also reduced to its ID here (an ID never looks like one).
 */
export const RECORD_ID_PATH = `{{ encodeURIComponent(String($parameter.recordId).trim().replace(/^${RECORD_URL.replace(/\//g, '\\/')}.*$/, "$1")) }}`;

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
			displayName: 'Entity Type Name or ID',
			name: 'entityType',
			type: 'options',
			// EspoCRM: the types the API user may reach, custom ones included; Standard: the interface's types.
			typeOptions: { loadOptionsMethod: 'getEntityTypes' },
			default: 'Contact',
			description: 'The type of record. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
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
		default: { mode: 'list', value: '' },
		required: true,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: { searchListMethod: 'searchRecords', searchable: true },
			},
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
							regex: RECORD_URL,
							errorMessage: 'Not a record address such as https://crm.example.com/#Contact/view/<id>',
						},
					},
				],
				extractValue: { type: 'regex', regex: RECORD_URL },
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
			displayName: 'Relationship Name or ID',
			name: 'link',
			type: 'options',
			// EspoCRM: the links of the entity type with the type each leads to; Standard: the common ones.
			typeOptions: { loadOptionsMethod: 'getLinks', loadOptionsDependsOn: ['entityType', 'customEntityType'] },
			// A Contact (the default entity type) has opportunities; an Account has them too.
			default: 'opportunities',
			description: 'The relationship on the record, for example "contacts" on an Account. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			displayOptions: { show },
			routing: { send: { preSend: [checkLink] } },
		},
		{
			displayName: 'Relationship Name',
			name: 'customLink',
			type: 'string',
			default: '',
			// Not `required`, like the entity type's name: an empty name is refused at run time.
			placeholder: 'cProjects',
			displayOptions: { show: { ...show, link: ['custom'] } },
		},
	];
}
