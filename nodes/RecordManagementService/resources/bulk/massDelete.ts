import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { entityTypeOf } from '../../shared/customOperations';
import { dialectOf } from '../../shared/dialect';
import { apiRequest } from '../../shared/transport';
import { chunkResult, chunksOfIds, eachChunk, idSourceFields } from './shared';

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
	const entityType = entityTypeOf(this, 0);
	const chunks = chunksOfIds(this);
	const dialect = await dialectOf(this);
	return await eachChunk(this, chunks, async (chunk) => {
		const itemIndex = chunk.pairedItem[0].item;
		// Deleting what is already deleted changes nothing, so a lost answer may be retried.
		const reply =
			dialect === 'espocrm'
				? await apiRequest(this, itemIndex, {
						method: 'POST',
						url: '/MassAction',
						body: { entityType, action: 'delete', params: { ids: chunk.ids } },
						idempotent: true,
					})
				: await apiRequest(this, itemIndex, {
						method: 'POST',
						url: `/${entityType}/action/massDelete`,
						body: { ids: chunk.ids },
						idempotent: true,
					});
		return { ...chunkResult(entityType, chunk, reply), deleted: true };
	});
}
