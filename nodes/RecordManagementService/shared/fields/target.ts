import type { INodeProperties } from 'n8n-workflow';

import { RECORD_URL } from '../../../../shared/recordAddress';

/**
 * The parameters that several operations share: what the request is about (entity type, record, relationship) and
 * the request settings. Each is declared once for all the operations that show it: n8n resolves every declared
 * copy of a parameter for every item, so a parameter declared for four operations would cost four times.
 */

type Show = NonNullable<INodeProperties['displayOptions']>['show'];

export const ENTITY_TYPE_OPTIONS = [
	{ name: 'Account', value: 'Account' },
	{ name: 'Contact', value: 'Contact' },
	{ name: 'Email', value: 'Email' },
	{ name: 'Lead', value: 'Lead' },
	{ name: 'Opportunity', value: 'Opportunity' },
	{ name: 'Other (Enter Name)', value: 'custom' },
];

/** A record picked from a list (searched by name), by ID, or by its web address. */
export function recordLocator(
	name: string,
	displayName: string,
	show: Show,
	hide?: Show,
): INodeProperties {
	return {
		displayName,
		name,
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
							errorMessage:
								'Not a record address such as https://crm.example.com/#Contact/view/<id>',
						},
					},
				],
				extractValue: { type: 'regex', regex: RECORD_URL },
			},
		],
		displayOptions: hide ? { show, hide } : { show },
	};
}

/** The entity type, chosen from the server's list or typed as a name. */
export function entityTypeFields(show: Show = {}, hide?: Show): INodeProperties[] {
	return [
		{
			displayName: 'Entity Type Name or ID',
			name: 'entityType',
			type: 'options',
			// EspoCRM: the types the API user may reach, custom ones included; Standard: the interface's types.
			typeOptions: { loadOptionsMethod: 'getEntityTypes' },
			default: 'Contact',
			description:
				'The type of record. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			displayOptions: hide ? { show, hide } : { show },
		},
		{
			displayName: 'Entity Type Name',
			name: 'customEntityType',
			type: 'string',
			default: '',
			// Not `required`: n8n then requires it whenever Entity Type is an expression. An empty name is refused at run time.
			placeholder: 'CProject',
			description:
				'Name of the entity type as the server knows it, for example a custom type such as CProject',
			displayOptions: hide
				? { show: { ...show, entityType: ['custom'] }, hide }
				: { show: { ...show, entityType: ['custom'] } },
		},
	];
}

/** The stream of Stream > Get Many that is the API user's own, not a record's: it has no entity type or record. */
const userStream: Show = { streamOf: ['user'] };

/** Entity type, record and relationship: the parts of a request path. */
export const targetFields: INodeProperties[] = [
	...entityTypeFields({ resource: ['record', 'relationship', 'bulk', 'stream'] }, userStream),
	recordLocator(
		'recordId',
		'Record',
		{
			operation: [
				'get',
				'update',
				'delete',
				'getManyRelated',
				'link',
				'unlink',
				'post',
				'getStream',
				'follow',
				'unfollow',
			],
		},
		userStream,
	),
	{
		displayName: 'Relationship Name or ID',
		name: 'link',
		type: 'options',
		// EspoCRM: the links of the entity type with the type each leads to; Standard: the common ones.
		typeOptions: {
			loadOptionsMethod: 'getLinks',
			loadOptionsDependsOn: ['entityType', 'customEntityType'],
		},
		// A Contact (the default entity type) has opportunities; an Account has them too.
		default: 'opportunities',
		description:
			'The relationship on the record, for example "contacts" on an Account. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
		displayOptions: { show: { operation: ['getManyRelated', 'link', 'unlink'] } },
	},
	{
		displayName: 'Relationship Name',
		name: 'customLink',
		type: 'string',
		default: '',
		// Not `required`, like the entity type's name: an empty name is refused at run time.
		placeholder: 'cProjects',
		displayOptions: { show: { operation: ['getManyRelated', 'link', 'unlink'], link: ['custom'] } },
	},
];

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
			description:
				'How many requests this node has open at once. Lower it for a small server, or if it answers 429 or 503.',
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
		{
			displayName: 'Timeout (Seconds)',
			name: 'timeoutSeconds',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 30,
			description:
				'How long each request waits for the server to answer. A read is sent again once at most after a timeout; a change is not, because the server may have carried it out.',
		},
	],
};
