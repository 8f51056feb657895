import type { INodeProperties } from 'n8n-workflow';

import { resolvePath } from '../../shared/item/paths';
import { simplifyRoutedRecord } from '../../shared/operation/simplify';
import { outcomeItem, reading } from '../../shared/http/routing';
import { createOptions } from './create';
import { upsertFields, upsertOptions } from './upsert';

/**
 * Get and Delete are routed: their request is below, `{…}` in a url being filled by `resolvePath` from the
 * parameters of that name, and `send.paginate` hands it to the node's `requestOperations.pagination`
 * (shared/http/routing.ts), which gives it the run's bound on parallel requests, resending and error messages, and
 * reads the answer as its postReceive says (`reading`, `outcomeItem`).
 * The others run as custom operations (`customOperations` in the node; each file holds its requests): n8n's routing
 * resolves every parameter at least three times per item before the first request leaves (the filter's conditions
 * five times), where an operation of its own resolves each once and sends while it reads the next item.
 */
export const recordOperations: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { resource: ['record'] } },
	options: [
		{
			name: 'Create',
			value: 'create',
			action: 'Create a record from the given fields',
			description: 'Create a new record',
		},
		{
			name: 'Create or Update',
			value: 'upsert',
			action: 'Create a record or update the one that matches a field',
			description: 'Create a new record, or update the current one if it already exists (upsert)',
		},
		{
			name: 'Delete',
			value: 'delete',
			action: 'Delete a record by its ID',
			description: 'Delete a record',
			routing: {
				request: { method: 'DELETE', url: '/{entityType}/{recordId}' },
				send: { preSend: [resolvePath], paginate: true },
				output: { postReceive: [outcomeItem({ deleted: true })] },
			},
		},
		{
			name: 'Get',
			value: 'get',
			action: 'Get a record by its ID',
			description: 'Get a record by its ID',
			routing: {
				request: { method: 'GET', url: '/{entityType}/{recordId}' },
				send: { preSend: [resolvePath], paginate: true },
				output: { postReceive: [reading({ as: 'record' }, simplifyRoutedRecord)] },
			},
		},
		{
			name: 'Get Many',
			value: 'getMany',
			action: 'Get many records that match conditions',
			description: 'List records, with filters and sorting',
		},
		{
			name: 'Update',
			value: 'update',
			action: 'Update the given fields of a record by its ID',
			description: 'Change the given fields of a record; the others stay as they are',
		},
	],
	default: 'create',
};

export const recordOperationFields: INodeProperties[] = [...upsertFields];

export const recordOptionFields: INodeProperties[] = [createOptions, upsertOptions];
