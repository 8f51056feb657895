import type { INodeProperties } from 'n8n-workflow';

import { recordBodyFields, skipDuplicateCheckOption } from '../../shared/recordFields';

const show = { resource: ['record'], operation: ['create'] };

export const createFields: INodeProperties[] = [
	...recordBodyFields(show),
	{
		displayName: 'Options',
		name: 'createOptions',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show },
		options: [skipDuplicateCheckOption],
	},
];
