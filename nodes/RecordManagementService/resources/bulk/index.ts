import type { INodeProperties } from 'n8n-workflow';

import { idSourceFields } from './chunks';
import { massDeleteNotice } from './massDelete';
import { massUpdateNotice } from './massUpdate';

/**
 * Both operations gather the IDs of all input items and send them in chunks, so they run as custom operations
 * (`customOperations` in the node): massUpdate.ts and massDelete.ts hold their requests for both server dialects.
 */
export const bulkOperations: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { resource: ['bulk'] } },
	options: [
		{
			name: 'Mass Delete',
			value: 'massDelete',
			action: 'Delete many records at once',
			description:
				'Permanently delete the records whose IDs the input items give, in a few requests',
		},
		{
			name: 'Mass Update',
			value: 'massUpdate',
			action: 'Update many records at once',
			description:
				'Set the same fields on all records whose IDs the input items give, in a few requests',
		},
	],
	default: 'massUpdate',
};

export const bulkOperationFields: INodeProperties[] = [
	massUpdateNotice,
	massDeleteNotice,
	...idSourceFields,
];
