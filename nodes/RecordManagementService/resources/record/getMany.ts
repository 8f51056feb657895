import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { forEachItem } from '../../shared/customOperations';
import { dialectOf } from '../../shared/dialect';
import { listQueryOf, wantedRecords } from '../../shared/filters';
import { pathOf } from '../../shared/paths';
import { searchQueryOf } from '../../shared/search';
import { countedForModel } from '../../shared/tool';
import { listRecords } from '../../shared/transport';

/** GET /{entityType} with the list query, paged with offset and maxSize (all pages for Return All). */
export async function getMany(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const dialect = await dialectOf(this);
	return await forEachItem(this, async (item) => {
		const qs = { ...listQueryOf(item), ...searchQueryOf(item, dialect) };
		const counted = countedForModel(item);
		return counted.withCount(await listRecords(this, item.index, { url: pathOf(item, '/{entityType}'), qs }, wantedRecords(item), counted.options));
	});
}
