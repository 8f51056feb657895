import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { forEachItem } from '../../shared/customOperations';
import { listQueryOf, wantedRecords } from '../../shared/filters';
import { pathOf } from '../../shared/paths';
import { listRecords } from '../../shared/transport';

/** GET /{entityType}/{recordId}/{link} with the list query, paged as Get Many is. */
export async function getManyRelated(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	return await forEachItem(this, async (item) =>
		await listRecords(
			this,
			item.index,
			{ url: pathOf(item, '/{entityType}/{recordId}/{link}'), qs: listQueryOf(item) },
			wantedRecords(item),
		),
	);
}
