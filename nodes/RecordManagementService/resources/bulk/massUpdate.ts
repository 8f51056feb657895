import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { runOf } from '../../shared/http/run';
import { itemOf } from '../../shared/item/item';
import { requiredRecordBody } from '../../shared/fields/recordBody';
import { reported, sendInChunks, unknownFirstAttempt } from './chunks';

export const massUpdateNotice: INodeProperties = {
	displayName:
		'All records get the same fields: the entity type and the fields to set are taken as the first input item gives them',
	name: 'massUpdateNotice',
	type: 'notice',
	default: '',
	displayOptions: { show: { operation: ['massUpdate'] } },
};

/**
 * Standard: PUT /{entityType}/action/massUpdate {ids, attributes}; EspoCRM 7+: POST /MassAction {entityType,
 * action: update, params: {ids}, data}. One request per chunk of IDs, not one per item.
 */
export async function massUpdate(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const run = runOf(this);
	const attributes = requiredRecordBody(itemOf(run, 0));
	return await sendInChunks(
		run,
		(entityType, ids, dialect) =>
			dialect === 'espocrm'
				? {
						method: 'POST',
						url: '/MassAction',
						body: { entityType, action: 'update', params: { ids }, data: attributes },
						// Setting the same fields again changes nothing, so a request whose answer was lost is resent.
						idempotent: true,
					}
				: { method: 'PUT', url: `/${entityType}/action/massUpdate`, body: { ids, attributes } },
		(chunk, outcome) => {
			const resentAfter = unknownFirstAttempt(outcome);
			return {
				requested: chunk.ids.length,
				...reported(chunk, outcome.reply),
				...(resentAfter
					? {
							firstAttempt: `unknown: ${resentAfter}, so the request was sent again (setting the same fields twice changes nothing)`,
						}
					: {}),
			};
		},
	);
}
