import type { IDataObject } from 'n8n-workflow';

import type { Item } from '../item/item';
import type { ListOptions } from './listing';

/**
 * A list run as a tool: the model gets the records up to the Limit, and, when more matched, an item that says how many
 * matched in all, so that it can narrow its search (or ask for more) instead of taking the first records for all.
 * `options` go to `listRecords`, `withCount` makes the output.
 */
export function countedForModel(item: Item): {
	options: Pick<ListOptions, 'total'>;
	withCount: (records: IDataObject[]) => IDataObject[];
} {
	if (!item.asTool) return { options: {}, withCount: (records) => records };
	let total: number | undefined;
	return {
		options: { total: (count) => (total = count) },
		withCount: (records) =>
			total === undefined || total <= records.length
				? records
				: [
						...records,
						{
							found: total,
							returned: records.length,
							message: `${total} records match in all; these are the first ${records.length} (the tool's limit). Narrow the search to find the one you need.`,
						},
					],
	};
}
