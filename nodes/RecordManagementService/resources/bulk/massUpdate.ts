import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { entityTypeOf } from '../../shared/customOperations';
import { dialectOf } from '../../shared/dialect';
import { recordBody, recordBodyFields } from '../../shared/recordFields';
import { apiRequest } from '../../shared/transport';
import { chunkResult, chunksOfIds, eachChunk, idSourceFields } from './shared';

const show = { resource: ['bulk'], operation: ['massUpdate'] };

export const massUpdateFields: INodeProperties[] = [...idSourceFields(show), ...recordBodyFields(show, 'Fields to Set')];

/** One request per chunk of IDs, not one per item; the fields to set are read from the first item. */
export async function massUpdate(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const entityType = entityTypeOf(this, 0);
	const attributes = recordBody(this, 0, this.getInputData()[0].json);
	const chunks = chunksOfIds(this);
	const dialect = await dialectOf(this);
	return await eachChunk(this, chunks, async (chunk) => {
		const itemIndex = chunk.pairedItem[0].item;
		const reply =
			dialect === 'espocrm'
				? await apiRequest(this, itemIndex, {
						method: 'POST',
						url: '/MassAction',
						body: { entityType, action: 'update', params: { ids: chunk.ids }, data: attributes },
						idempotent: true,
					})
				: await apiRequest(this, itemIndex, {
						method: 'PUT',
						url: `/${entityType}/action/massUpdate`,
						body: { ids: chunk.ids, attributes },
					});
		return chunkResult(entityType, chunk, reply);
	});
}
