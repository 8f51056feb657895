import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { eachItem, entityTypeOf } from '../../shared/customOperations';
import { recordBody, recordBodyFields, skipDuplicateCheckOption } from '../../shared/recordFields';
import { PAGE_SIZE, apiRequest } from '../../shared/transport';
import { requirePlainIdentifier } from '../../shared/validation';

const show = { resource: ['record'], operation: ['upsert'] };

export const upsertFields: INodeProperties[] = [
	{
		displayName: 'Match By Field Name or ID',
		name: 'matchField',
		type: 'options',
		typeOptions: { loadOptionsMethod: 'getFields', loadOptionsDependsOn: ['entityType', 'customEntityType'] },
		default: 'emailAddress',
		required: true,
		description: 'The field that identifies the record, for example emailAddress. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
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
	...recordBodyFields(show),
	{
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
	},
];

/** Looks the record up by the match field, then creates it, updates it, or refuses when the match is ambiguous. */
export async function upsert(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	return await eachItem(this, async (itemIndex) => {
		const entityType = entityTypeOf(this, itemIndex);
		const matchField = requirePlainIdentifier(this, this.getNodeParameter('matchField', itemIndex), 'Match By Field', itemIndex);
		const matchValue = this.getNodeParameter('matchValue', itemIndex) as string;
		if (matchValue === '' || matchValue === undefined || matchValue === null) {
			throw new NodeOperationError(this.getNode(), `The parameter "Match Value" is empty (item ${itemIndex})`, { itemIndex });
		}
		const body = recordBody(this, itemIndex, this.getInputData()[itemIndex].json);
		const options = this.getNodeParameter('upsertOptions', itemIndex, {}) as IDataObject;

		const matches: IDataObject[] = [];
		for (let offset = 0; ; offset += PAGE_SIZE) {
			const page = await apiRequest<{ list: IDataObject[] }>(this, itemIndex, {
				method: 'GET',
				url: `/${entityType}`,
				qs: { where: [{ type: 'equals', attribute: matchField, value: matchValue }], select: 'id', offset, maxSize: PAGE_SIZE },
			});
			matches.push(...page.list);
			if (page.list.length < PAGE_SIZE) break;
		}

		if (matches.length === 0) {
			return await apiRequest(this, itemIndex, {
				method: 'POST',
				url: `/${entityType}`,
				body: { [matchField]: matchValue, ...body },
				headers: options.skipDuplicateCheck ? { 'X-Skip-Duplicate-Check': 'true' } : {},
			});
		}
		if (matches.length > 1 && options.onSeveralMatches !== 'updateAll') {
			throw new NodeOperationError(
				this.getNode(),
				`${matches.length} ${entityType} records have ${matchField} "${matchValue}", so it is not clear which to update (item ${itemIndex})`,
				{
					itemIndex,
					description: 'Pick a field that identifies one record, or set the option "When Several Records Match" to "Update All of Them".',
				},
			);
		}
		const updated: IDataObject[] = [];
		for (const match of matches) {
			updated.push(
				await apiRequest(this, itemIndex, {
					method: 'PUT',
					url: `/${entityType}/${encodeURIComponent(String(match.id))}`,
					body,
				}),
			);
		}
		return updated;
	});
}
