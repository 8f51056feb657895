import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { eachItem } from '../../shared/customOperations';
import { recordIdField } from '../../shared/descriptions';
import { dialectOf } from '../../shared/dialect';
import { apiRequest } from '../../shared/transport';
import { parseJsonObject, requireId } from '../../shared/validation';

const show = { resource: ['lead'], operation: ['convert'] };

const moreFields = (example: string): INodeProperties => ({
	displayName: 'More Fields (JSON)',
	name: 'moreFields',
	type: 'json',
	default: '{}',
	description: `Other fields of the new record, for example ${example}`,
});

export const convertFields: INodeProperties[] = [
	recordIdField(show, { displayName: 'Lead' }),
	{
		displayName: 'Records to Create',
		name: 'records',
		type: 'fixedCollection',
		placeholder: 'Add Record to Create',
		default: {},
		description: 'The records the lead becomes; only those added here are created',
		displayOptions: { show },
		options: [
			{
				displayName: 'Account',
				name: 'Account',
				values: [
					{ displayName: 'Name', name: 'name', type: 'string', default: '', required: true },
					moreFields('{"website": "https://example.com"}'),
				],
			},
			{
				displayName: 'Contact',
				name: 'Contact',
				values: [
					{ displayName: 'First Name', name: 'firstName', type: 'string', default: '' },
					{ displayName: 'Last Name', name: 'lastName', type: 'string', default: '', required: true },
					moreFields('{"emailAddress": "ada@example.com"}'),
				],
			},
			{
				displayName: 'Opportunity',
				name: 'Opportunity',
				values: [
					{ displayName: 'Name', name: 'name', type: 'string', default: '', required: true },
					{ displayName: 'Amount', name: 'amount', type: 'number', default: 0 },
					moreFields('{"closeDate": "2026-12-31"}'),
				],
			},
		],
	},
	{
		displayName: 'If Already Converted',
		name: 'ifConverted',
		type: 'options',
		options: [
			{
				name: 'Stop With an Error',
				value: 'error',
				description: 'Refuse, naming the records the earlier conversion created',
			},
			{
				name: 'Skip and Return the Existing Records',
				value: 'skip',
				description: 'Convert nothing and return the IDs of the records the earlier conversion created',
			},
			{
				name: 'Convert Again',
				value: 'convertAgain',
				description: 'Create the records once more (the server does not refuse a second conversion)',
			},
		],
		default: 'error',
		description: 'A server converts a lead twice if asked, creating every record again; the node looks at the lead first',
		displayOptions: { show },
	},
];

type RecordsToCreate = Record<string, IDataObject | undefined>;

function recordsToCreate(context: IExecuteFunctions, itemIndex: number): IDataObject {
	const chosen = context.getNodeParameter('records', itemIndex, {}) as RecordsToCreate;
	const records: IDataObject = {};
	for (const [entityType, fields] of Object.entries(chosen)) {
		if (!fields) continue;
		const { moreFields: extra, ...named } = fields;
		const more = parseJsonObject(context, extra ?? '{}', `Records to Create > ${entityType} > More Fields (JSON)`, itemIndex);
		records[entityType] = { ...more, ...named };
	}
	if (Object.keys(records).length === 0) {
		throw new NodeOperationError(context.getNode(), `The parameter "Records to Create" is empty (item ${itemIndex})`, {
			itemIndex,
			description: 'Add the Account, Contact or Opportunity the lead should become.',
		});
	}
	return records;
}

const CREATED_IDS = ['createdAccountId', 'createdContactId', 'createdOpportunityId'];

export async function convert(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const dialect = await dialectOf(this);
	return await eachItem(this, async (itemIndex) => {
		const leadId = requireId(this, this.getNodeParameter('recordId', itemIndex, undefined, { extractValue: true }), 'Lead', itemIndex);
		const records = recordsToCreate(this, itemIndex);
		const ifConverted = this.getNodeParameter('ifConverted', itemIndex) as string;
		const leadPath = `/Lead/${encodeURIComponent(leadId)}`;

		if (ifConverted !== 'convertAgain') {
			const lead = await apiRequest(this, itemIndex, { method: 'GET', url: leadPath });
			if (lead.status === 'Converted') {
				const created = Object.fromEntries(CREATED_IDS.filter((key) => lead[key]).map((key) => [key, lead[key]]));
				if (ifConverted === 'skip') return { id: leadId, alreadyConverted: true, ...created };
				throw new NodeOperationError(this.getNode(), `Lead ${leadId} is already converted (item ${itemIndex})`, {
					itemIndex,
					description: `Converting again would create the records once more. Earlier conversion: ${
						JSON.stringify(created) === '{}' ? 'no record IDs known' : JSON.stringify(created)
					}. Set "If Already Converted" to skip such leads or to convert again.`,
				});
			}
		}

		const reply =
			dialect === 'espocrm'
				? await apiRequest(this, itemIndex, { method: 'POST', url: '/Lead/action/convert', body: { id: leadId, records } })
				: await apiRequest(this, itemIndex, { method: 'POST', url: `${leadPath}/action/convert`, body: { records } });
		return reply !== null && typeof reply === 'object' ? reply : { id: leadId, converted: true };
	});
}
