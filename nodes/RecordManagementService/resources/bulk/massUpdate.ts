import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { recordBody, recordBodyFields, requireFields } from '../../shared/recordFields';
import { idSourceFields, sendInChunks } from './shared';

const show = { resource: ['bulk'], operation: ['massUpdate'] };

export const massUpdateFields: INodeProperties[] = [
	{
		displayName:
			'All records get the same fields: the entity type and the fields to set are taken as the first input item gives them',
		name: 'massUpdateNotice',
		type: 'notice',
		default: '',
		displayOptions: { show },
	},
	...idSourceFields(show),
	...recordBodyFields(show, 'Fields to Set'),
];

/** One request per chunk of IDs, not one per item; the fields to set are read from the first item. */
export async function massUpdate(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const attributes = requireFields(this, recordBody(this, 0, this.getInputData()[0].json), 'Fields to Set', 0);
	return await sendInChunks(this, (entityType, ids, dialect) =>
		dialect === 'espocrm'
			? {
					method: 'POST',
					url: '/MassAction',
					body: { entityType, action: 'update', params: { ids }, data: attributes },
					// Setting the same fields again changes nothing, so a lost answer may be retried.
					idempotent: true,
				}
			: { method: 'PUT', url: `/${entityType}/action/massUpdate`, body: { ids, attributes } },
	);
}
