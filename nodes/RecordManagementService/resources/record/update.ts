import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { forEachItem } from '../../shared/customOperations';
import { requiredRecordBody } from '../../shared/recordFields';
import { apiRequest } from '../../shared/transport';
import { pathOf } from '../../shared/paths';

/** PUT /{entityType}/{id} with only the fields given: the server leaves the others as they are. */
export async function update(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	return await forEachItem(this, async (item) =>
		await apiRequest(this, item.index, {
			method: 'PUT',
			url: pathOf(item, '/{entityType}/{recordId}'),
			expect: 'record',
			body: requiredRecordBody(item),
		}),
	);
}
