import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import { forEachItem } from '../../shared/operation/forEachItem';
import {
	duplicateCheckHeaders,
	requiredRecordBody,
	skipDuplicateCheckOption,
} from '../../shared/fields/recordBody';
import { apiRequest } from '../../shared/http/request';
import { runOf } from '../../shared/http/run';
import { pathOf } from '../../shared/item/paths';
import { entityTypeOf } from '../../shared/item/validation';
import { withStatusThroughPipeline } from './pipelines';

export const createOptions: INodeProperties = {
	displayName: 'Options',
	name: 'createOptions',
	type: 'collection',
	placeholder: 'Add Option',
	default: {},
	displayOptions: { show: { operation: ['create'] } },
	options: [skipDuplicateCheckOption],
};

/** POST /{entityType} with the fields of each item (the status through a pipeline where EspoCRM 10 has one: pipelines.ts). */
export async function create(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	return await forEachItem(runOf(this), async (item) => {
		const options = item.parameter<IDataObject>('createOptions', {});
		const entityType = entityTypeOf(item);
		const path = pathOf(item, '/{entityType}', { entityType });
		const body = requiredRecordBody(item);
		const created = await apiRequest(item.run, item.index, {
			method: 'POST',
			url: path,
			expect: 'record',
			body,
			headers: duplicateCheckHeaders(options),
		});
		return await withStatusThroughPipeline(item, entityType, path, body, created);
	});
}
