import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { OneAtATime, forEachItem } from '../../shared/customOperations';
import { pathOf } from '../../shared/paths';
import { duplicateCheckHeaders, recordBody, skipDuplicateCheckOption } from '../../shared/recordFields';
import { apiRequest, listRecords } from '../../shared/transport';
import { entityTypeOf, requirePlainIdentifier } from '../../shared/validation';

const show = { operation: ['upsert'] };

export const upsertFields: INodeProperties[] = [
	{
		displayName: 'Match By Field Name or ID',
		name: 'matchField',
		type: 'options',
		typeOptions: { loadOptionsMethod: 'getSortableFields', loadOptionsDependsOn: ['entityType', 'customEntityType'] },
		default: 'emailAddress',
		required: true,
		description:
			'The field that identifies the record, for example emailAddress. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
		displayOptions: { show },
	},
	{
		displayName: 'Match Value',
		name: 'matchValue',
		type: 'string',
		default: '',
		required: true,
		placeholder: '={{ $json.email }}',
		description: 'The value the record has in that field. The field is also set to it when the record is created.',
		displayOptions: { show },
	},
];

export const upsertOptions: INodeProperties = {
	displayName: 'Options',
	name: 'upsertOptions',
	type: 'collection',
	placeholder: 'Add Option',
	default: {},
	displayOptions: { show },
	options: [
		{
			displayName: 'When Several Records Match',
			name: 'onSeveralMatches',
			type: 'options',
			options: [
				{ name: 'Stop With an Error', value: 'error' },
				{ name: 'Update All of Them', value: 'updateAll' },
			],
			default: 'error',
		},
		skipDuplicateCheckOption,
	],
};

/**
 * GET /{entityType} where the match field equals the match value, then POST /{entityType} (none found),
 * PUT /{entityType}/{id} (one found, or each with "Update All of Them"), or an error naming the count.
 * Items with the same match value run one after another, so that two of them cannot both create the record.
 */
export async function upsert(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const sameRecord = new OneAtATime();
	return await forEachItem(this, async (item) => {
		const entityType = entityTypeOf(item);
		const path = pathOf(item, '/{entityType}', { entityType });
		const matchField = requirePlainIdentifier(item, item.parameter('matchField'), 'Match By Field');
		const matchValue = item.parameter<string>('matchValue', '');
		if (matchValue === '' || matchValue === undefined || matchValue === null) throw item.refuse('Match Value', 'is empty');
		const body = recordBody(item);
		const options = item.parameter<IDataObject>('upsertOptions', {});

		return await sameRecord.run(JSON.stringify([path, matchField, matchValue]), async () => {
			const matches = await listRecords(this, item.index, {
				url: path,
				qs: { where: [{ type: 'equals', attribute: matchField, value: matchValue }], select: 'id' },
			});
			if (matches.length === 0) {
				return await apiRequest(this, item.index, {
					method: 'POST',
					url: path,
					body: { [matchField]: matchValue, ...body },
					headers: duplicateCheckHeaders(options),
				});
			}
			if (matches.length > 1 && options.onSeveralMatches !== 'updateAll') {
				throw new NodeOperationError(
					item.node,
					`${matches.length} ${entityType} records have ${matchField} "${matchValue}", so it is not clear which to update (item ${item.index})`,
					{
						itemIndex: item.index,
						description: 'Pick a field that identifies one record, or set the option "When Several Records Match" to "Update All of Them".',
					},
				);
			}
			const updated: IDataObject[] = [];
			for (const match of matches) {
				updated.push(await apiRequest(this, item.index, { method: 'PUT', url: `${path}/${encodeURIComponent(String(match.id))}`, body }));
			}
			return updated;
		});
	});
}
