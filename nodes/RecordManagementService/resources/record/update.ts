import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { forEachItem } from '../../shared/customOperations';
import { requiredRecordBody } from '../../shared/recordFields';
import { apiRequest } from '../../shared/transport';
import { pathOf } from '../../shared/paths';
import { entityTypeOf } from '../../shared/validation';
import { withStatusThroughPipeline } from './pipelines';

/**
 * PUT /{entityType}/{id} with only the fields given: the server leaves the others as they are (the status through a
 * pipeline where EspoCRM 10 has one: pipelines.ts).
 */
export async function update(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	return await forEachItem(this, async (item) => {
		const entityType = entityTypeOf(item);
		const body = requiredRecordBody(item);
		const updated = await apiRequest(this, item.index, { method: 'PUT', url: pathOf(item, '/{entityType}/{recordId}', { entityType }), expect: 'record', body });
		return await withStatusThroughPipeline(this, item, entityType, pathOf(item, '/{entityType}', { entityType }), body, updated);
	});
}
