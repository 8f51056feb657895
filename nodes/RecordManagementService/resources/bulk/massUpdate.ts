import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { recordBody, recordBodyFields } from '../../shared/recordFields';
import { idSourceFields, sendInChunks } from './shared';

const show = { resource: ['bulk'], operation: ['massUpdate'] };

export const massUpdateFields: INodeProperties[] = [...idSourceFields(show), ...recordBodyFields(show, 'Fields to Set')];

/** One request per chunk of IDs, not one per item; the fields to set are read from the first item. */
export async function massUpdate(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const attributes = recordBody(this, 0, this.getInputData()[0].json);
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
