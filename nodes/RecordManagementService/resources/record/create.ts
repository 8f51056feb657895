import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { forEachItem } from '../../shared/customOperations';
import { duplicateCheckHeaders, requiredRecordBody, skipDuplicateCheckOption } from '../../shared/recordFields';
import { apiRequest } from '../../shared/transport';
import { pathOf } from '../../shared/paths';

export const createOptions: INodeProperties = {
	displayName: 'Options',
	name: 'createOptions',
	type: 'collection',
	placeholder: 'Add Option',
	default: {},
	displayOptions: { show: { operation: ['create'] } },
	options: [skipDuplicateCheckOption],
};

/** POST /{entityType} with the fields of each item. */
export async function create(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	return await forEachItem(this, async (item) => {
		const options = item.parameter<IDataObject>('createOptions', {});
		return await apiRequest(this, item.index, {
			method: 'POST',
			url: pathOf(item, '/{entityType}'),
			expect: 'record',
			body: requiredRecordBody(item),
			headers: duplicateCheckHeaders(options),
		});
	});
}
