import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { runOf } from '../../shared/http/run';
import { reported, sendInChunks, unknownFirstAttempt } from './chunks';

export const massDeleteNotice: INodeProperties = {
	displayName:
		'This deletes every record whose ID the input items give. Deleted records cannot be restored from n8n.',
	name: 'massDeleteNotice',
	type: 'notice',
	default: '',
	displayOptions: { show: { operation: ['massDelete'] } },
};

/**
 * Standard: POST /{entityType}/action/massDelete {ids}; EspoCRM 7+: POST /MassAction {entityType, action: delete,
 * params: {ids}}. Deleting what is already deleted changes nothing, so a request whose answer was lost is resent.
 */
export async function massDelete(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	return await sendInChunks(
		runOf(this),
		(entityType, ids, dialect) =>
			dialect === 'espocrm'
				? {
						method: 'POST',
						url: '/MassAction',
						body: { entityType, action: 'delete', params: { ids } },
						idempotent: true,
					}
				: {
						method: 'POST',
						url: `/${entityType}/action/massDelete`,
						body: { ids },
						idempotent: true,
					},
		(chunk, outcome) => {
			const { count, ids } = reported(chunk, outcome.reply);
			const resentAfter = unknownFirstAttempt(outcome);
			// Whether the server says it deleted every record asked for: EspoCRM skips, without an error, records that do
			// not exist or that the API user may not delete.
			const all = count === chunk.ids.length;
			if (resentAfter && !all) {
				// The resend can only count what the first attempt left: the records it did not find may have been deleted
				// by the first attempt or not at all. The fields say "unknown" (null), as the note does, so that an IF node
				// on `deleted` or `count` takes neither the "deleted" nor the "not deleted" branch by mistake.
				return {
					requested: chunk.ids.length,
					outcome: 'unknown',
					deleted: null,
					count: null,
					ids: null,
					deletedWhenResent: ids,
					firstAttempt: `unknown: ${resentAfter}, so the request was sent again`,
					notFoundWhenResent: chunk.ids.filter((id) => !ids.includes(id)),
					note: `The second attempt deleted ${count} of ${chunk.ids.length}. It did not find the others: the first attempt deleted them, they never existed, or the API user may not delete them.`,
				};
			}
			return {
				requested: chunk.ids.length,
				outcome: all ? 'deleted' : 'incomplete',
				count,
				ids,
				deleted: all,
				...(resentAfter
					? { firstAttempt: `unknown: ${resentAfter}, so the request was sent again` }
					: {}),
			};
		},
	);
}
