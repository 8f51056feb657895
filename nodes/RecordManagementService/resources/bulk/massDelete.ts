import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { idSourceFields, sendInChunks } from './shared';

const show = { resource: ['bulk'], operation: ['massDelete'] };

export const massDeleteFields: INodeProperties[] = [
	{
		displayName: 'This deletes every record whose ID the input items give. Deleted records cannot be restored from n8n.',
		name: 'massDeleteNotice',
		type: 'notice',
		default: '',
		displayOptions: { show },
	},
	...idSourceFields(show),
];

export async function massDelete(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	// Deleting what is already deleted changes nothing, so a lost answer may be retried.
	return await sendInChunks(
		this,
		(entityType, ids, dialect) =>
			dialect === 'espocrm'
				? { method: 'POST', url: '/MassAction', body: { entityType, action: 'delete', params: { ids } }, idempotent: true }
				: { method: 'POST', url: `/${entityType}/action/massDelete`, body: { ids }, idempotent: true },
		{ deleted: true },
	);
}
