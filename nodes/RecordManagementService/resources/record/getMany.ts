import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { runOf } from '../../shared/http/run';
import { pathOf } from '../../shared/item/paths';
import { entityTypeOf } from '../../shared/item/validation';
import { countedForModel } from '../../shared/list/counted';
import { listQueryOf, wantedRecords } from '../../shared/list/where';
import { listRecords } from '../../shared/list/listing';
import { keysetOrderOf, mayFollowOn } from '../../shared/list/listOrder';
import { searchQueryOf } from '../../shared/list/search';
import { forEachItem } from '../../shared/operation/forEachItem';
import { dialectOf } from '../../shared/server/dialect';
import { entityDefsOfRun } from '../../shared/server/metadata';

/**
 * GET /{entityType} with the list query, paged with offset and maxSize (all pages for Return All). From version 1.1
 * on, Return All from EspoCRM comes in the list's own order, as a Limit does, following on from the last record read
 * where the order allows it (keysetOrderOf, from the entity type's metadata, read only when a second page is needed);
 * version 1 paged by ID when no sort order was set (oldest first).
 */
export async function getMany(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const run = runOf(this);
	const dialect = await dialectOf(run);
	const listOrder = run.node.typeVersion >= 1.1;
	return await forEachItem(run, async (item) => {
		const qs = { ...listQueryOf(item), ...searchQueryOf(item, dialect) };
		const wanted = wantedRecords(item);
		const entityType = entityTypeOf(item);
		const followOn =
			listOrder && dialect === 'espocrm' && mayFollowOn(qs)
				? async () => keysetOrderOf(qs, await entityDefsOfRun(run, item.index, entityType))
				: undefined;
		const counted = countedForModel(item);
		return counted.withCount(
			await listRecords(
				run,
				item.index,
				{ url: pathOf(item, '/{entityType}', { entityType }), qs },
				wanted,
				{ followOn, listOrder, ...counted.options },
			),
		);
	});
}
