import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { runOf } from '../../shared/http/run';
import { OneAtATime, forEachItem } from '../../shared/operation/forEachItem';
import { recordLocator } from '../../shared/fields/target';
import { dialectOf } from '../../shared/server/dialect';
import type { Item } from '../../shared/item/item';
import { apiRequest } from '../../shared/http/request';
import { parseJsonObject, recordIdOf } from '../../shared/item/validation';

const show = { operation: ['convert'] };

const moreFields = (example: string): INodeProperties => ({
	displayName: 'More Fields (JSON)',
	name: 'moreFields',
	type: 'json',
	default: '{}',
	description: `Other fields of the new record, for example ${example}`,
});

export const convertFields: INodeProperties[] = [
	recordLocator('leadId', 'Lead', show),
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
					{
						displayName: 'Last Name',
						name: 'lastName',
						type: 'string',
						default: '',
						required: true,
					},
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
				description:
					'Convert nothing and return the IDs of the records the earlier conversion created',
			},
			{
				name: 'Convert Again',
				value: 'convertAgain',
				description:
					'Create the records once more (the server does not refuse a second conversion)',
			},
		],
		default: 'error',
		description:
			'A server converts a lead twice if asked, creating every record again; the node looks at the lead first',
		displayOptions: { show },
	},
];

type RecordsToCreate = Record<string, IDataObject | undefined>;

function recordsToCreate(item: Item): IDataObject {
	const chosen = item.parameter<RecordsToCreate>('records', {});
	const records: IDataObject = {};
	for (const [entityType, fields] of Object.entries(chosen)) {
		if (!fields) continue;
		const { moreFields: extra, ...named } = fields;
		const more = parseJsonObject(
			item,
			extra ?? '{}',
			`Records to Create > ${entityType} > More Fields (JSON)`,
		);
		records[entityType] = { ...more, ...named };
	}
	if (Object.keys(records).length === 0) {
		throw item.refuse(
			'Records to Create',
			'is empty',
			'Add the Account, Contact or Opportunity the lead should become.',
		);
	}
	return records;
}

const CREATED_IDS = ['createdAccountId', 'createdContactId', 'createdOpportunityId'];

/**
 * Looks at the lead first (GET /Lead/{id}: a server converts a converted lead again, creating every record twice),
 * then Standard: POST /Lead/{id}/action/convert {records}; EspoCRM: POST /Lead/action/convert {id, records}.
 * Items about the same lead run one after another, so that two of them cannot both find it unconverted.
 */
export async function convert(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const run = runOf(this);
	const dialect = await dialectOf(run);
	const sameLead = new OneAtATime();
	return await forEachItem(run, async (item) => {
		const leadId = recordIdOf(item, 'leadId', 'Lead');
		const records = recordsToCreate(item);
		const ifConverted = item.parameter<string>('ifConverted', 'error');
		const leadPath = `/Lead/${encodeURIComponent(leadId)}`;

		return await sameLead.run(leadId, async () => {
			if (ifConverted !== 'convertAgain') {
				const lead = await apiRequest(run, item.index, {
					method: 'GET',
					url: leadPath,
					expect: 'record',
				});
				if (lead.status === 'Converted') {
					const created = Object.fromEntries(
						CREATED_IDS.filter((key) => lead[key]).map((key) => [key, lead[key]]),
					);
					if (ifConverted === 'skip') return { id: leadId, alreadyConverted: true, ...created };
					throw new NodeOperationError(
						item.node,
						`Lead ${leadId} is already converted (item ${item.index})`,
						{
							itemIndex: item.index,
							description: `Converting again would create the records once more. Earlier conversion: ${
								JSON.stringify(created) === '{}' ? 'no record IDs known' : JSON.stringify(created)
							}. Set "If Already Converted" to skip such leads or to convert again.`,
						},
					);
				}
			}
			const reply =
				dialect === 'espocrm'
					? await apiRequest(run, item.index, {
							method: 'POST',
							url: '/Lead/action/convert',
							body: { id: leadId, records },
						})
					: await apiRequest(run, item.index, {
							method: 'POST',
							url: `${leadPath}/action/convert`,
							body: { records },
						});
			return reply !== null && typeof reply === 'object' ? reply : { id: leadId, converted: true };
		});
	});
}
