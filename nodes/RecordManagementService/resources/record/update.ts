import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { forEachItem } from '../../shared/operation/forEachItem';
import { requiredRecordBody } from '../../shared/fields/recordBody';
import { apiRequest } from '../../shared/http/request';
import { runOf } from '../../shared/http/run';
import { pathOf } from '../../shared/item/paths';
import { entityTypeOf } from '../../shared/item/validation';
import { withStatusThroughPipeline } from './pipelines';
import { withPrimaryAddressesKept } from './primaryAddress';

/**
 * PUT /{entityType}/{id} with only the fields given: the server leaves the others as they are. Where an EspoCRM
 * version does not take what was written, the node writes it as that version needs: a new e-mail address or phone
 * number on 7.5 (primaryAddress.ts), a status on 10 with pipelines (pipelines.ts).
 */
export async function update(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	return await forEachItem(runOf(this), async (item) => {
		const entityType = entityTypeOf(item);
		const path = pathOf(item, '/{entityType}', { entityType });
		const body = requiredRecordBody(item);
		const updated = await apiRequest(item.run, item.index, {
			method: 'PUT',
			url: pathOf(item, '/{entityType}/{recordId}', { entityType }),
			expect: 'record',
			body,
		});
		return await withStatusThroughPipeline(
			item,
			entityType,
			path,
			body,
			await withPrimaryAddressesKept(item, path, body, updated),
		);
	});
}
