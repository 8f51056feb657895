import type { INodeProperties } from 'n8n-workflow';

import { convertFields } from './convert';

/**
 * Convert looks at the lead before converting it, so it runs as a custom operation (`customOperations` in the
 * node): `convert.ts` holds its requests for both server dialects.
 */
export const leadOperations: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { resource: ['lead'] } },
	options: [
		{
			name: 'Convert',
			value: 'convert',
			action: 'Convert a lead by its ID',
			description: 'Turn a lead into an account, a contact and an opportunity',
		},
	],
	default: 'convert',
};

export const leadOperationFields: INodeProperties[] = convertFields;
