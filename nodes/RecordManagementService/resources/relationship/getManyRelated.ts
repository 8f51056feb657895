import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { runOf } from '../../shared/http/run';
import { forEachItem } from '../../shared/operation/forEachItem';
import { dialectOf } from '../../shared/server/dialect';
import { listQueryOf, wantedRecords } from '../../shared/list/where';
import { relatedRecordSelect } from '../../shared/server/attributes';
import { readMetadata } from '../../shared/server/metadata';
import { pathOf } from '../../shared/item/paths';
import { searchQueryOf } from '../../shared/list/search';
import { listRecords } from '../../shared/list/listing';
import { countedForModel } from '../../shared/list/counted';
import { entityTypeOf, linkOf } from '../../shared/item/validation';

/**
 * GET /{entityType}/{recordId}/{link} with the list query, paged as Get Many is. EspoCRM answers some related lists
 * without `select` (an account's contacts, whose link has attributes of its own) with little more than the records'
 * IDs: without Fields to Return, the node asks for every field of the related type, as its metadata (read once per
 * run) lists them. From version 1.1 on, Return All keeps the related list's own order, by offset (version 1 paged by ID
 * when no sort order was set); EspoCRM orders a relationship by the link's own definition, which a where condition
 * after the last record would have to follow.
 */
export async function getManyRelated(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const run = runOf(this);
	const dialect = await dialectOf(run);
	const espocrm = dialect === 'espocrm';
	const listOrder = run.node.typeVersion >= 1.1;
	return await forEachItem(run, async (item) => {
		const target = { entityType: entityTypeOf(item), link: linkOf(item) };
		const qs = { ...listQueryOf(item), ...searchQueryOf(item, dialect) };
		if (espocrm && qs.select === undefined) {
			const select = relatedRecordSelect(
				await readMetadata(run, item.index),
				target.entityType,
				target.link,
			);
			if (select) qs.select = select;
		}
		const counted = countedForModel(item);
		const url = pathOf(item, '/{entityType}/{recordId}/{link}', target);
		return counted.withCount(
			await listRecords(run, item.index, { url, qs }, wantedRecords(item), {
				listOrder,
				...counted.options,
			}),
		);
	});
}
