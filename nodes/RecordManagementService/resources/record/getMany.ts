import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { forEachItem } from '../../shared/customOperations';
import { listQueryOf, wantedRecords } from '../../shared/filters';
import { pathOf } from '../../shared/paths';
import { listRecords } from '../../shared/transport';

/** GET /{entityType} with the list query, paged with offset and maxSize (all pages for Return All). */
export async function getMany(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	return await forEachItem(this, async (item) =>
		await listRecords(this, item.index, { url: pathOf(item, '/{entityType}'), qs: listQueryOf(item) }, wantedRecords(item)),
	);
}
