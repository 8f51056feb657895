import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { runOf } from '../../shared/http/run';
import { forEachItem } from '../../shared/operation/forEachItem';
import type { Item } from '../../shared/item/item';
import { pathOf } from '../../shared/item/paths';
import { apiRequest } from '../../shared/http/request';
import { idsFrom, linkOf, recordIdOf, requireId } from '../../shared/item/validation';

export const relatedIdFields: INodeProperties[] = [
	{
		displayName: 'Related Record IDs',
		name: 'relatedIds',
		type: 'string',
		default: '',
		required: true,
		placeholder: '6b02e09eadb4139af, 6b02e09eadb4139b0',
		description:
			'ID of the record to link, or several separated by commas (an expression may also return a list)',
		displayOptions: { show: { operation: ['link'] } },
	},
	{
		displayName: 'Related Record IDs',
		name: 'relatedId',
		type: 'string',
		default: '',
		required: true,
		placeholder: '6b02e09eadb4139af, 6b02e09eadb4139b0',
		description:
			'ID of the record to unlink, or several separated by commas (an expression may also return a list)',
		displayOptions: { show: { operation: ['unlink'] } },
	},
];

/** A server answers `true`, or `false` (EspoCRM, when nothing was found to change). */
function requireChanged(item: Item, reply: unknown, what: string) {
	if (reply === false) {
		throw new NodeOperationError(
			item.node,
			`The server answered that nothing was ${what} (item ${item.index})`,
			{
				itemIndex: item.index,
				description: 'Check the relationship name and the related record ID.',
			},
		);
	}
}

/** POST /{entityType}/{recordId}/{link} with `{"id"}` for one record, `{"ids"}` for several. */
export async function link(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	return await forEachItem(runOf(this), async (item) => {
		const target = { recordId: recordIdOf(item), link: linkOf(item) };
		const ids = idsFrom(item, item.parameter('relatedIds'), 'Related Record IDs');
		if (ids.length === 0) requireId(item, '', 'Related Record IDs');
		const reply = await apiRequest<unknown>(item.run, item.index, {
			method: 'POST',
			url: pathOf(item, '/{entityType}/{recordId}/{link}', target),
			body: ids.length === 1 ? { id: ids[0] } : { ids },
		});
		requireChanged(item, reply, 'linked');
		return { id: target.recordId, relationship: target.link, linked: ids };
	});
}

/**
 * DELETE /{entityType}/{recordId}/{link} with the ID in the query (as the interface reads it) and in the body (as
 * EspoCRM reads it): sending both unlinks on either. The interface takes one ID per request, so several IDs (the
 * forms Link accepts) are one request each, in order.
 */
export async function unlink(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	return await forEachItem(runOf(this), async (item) => {
		const target = { recordId: recordIdOf(item), link: linkOf(item) };
		const ids = idsFrom(item, item.parameter('relatedId'), 'Related Record IDs');
		if (ids.length === 0) requireId(item, '', 'Related Record IDs');
		const url = pathOf(item, '/{entityType}/{recordId}/{link}', target);
		for (const id of ids) {
			const reply = await apiRequest<unknown>(item.run, item.index, {
				method: 'DELETE',
				url,
				qs: { id },
				body: { id },
			});
			requireChanged(item, reply, ids.length === 1 ? 'unlinked' : `unlinked for ${id}`);
		}
		return { id: target.recordId, relationship: target.link, unlinked: ids };
	});
}
