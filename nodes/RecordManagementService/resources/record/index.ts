import type { INodeProperties } from 'n8n-workflow';

import { ENTITY_TYPE_PATH, RECORD_ID_PATH, entityTypeFields } from '../../shared/descriptions';
import { createFields } from './create';
import { deleteFields } from './delete';
import { getFields } from './get';
import { getManyFields } from './getMany';
import { updateFields } from './update';
import { upsertFields } from './upsert';

const showOnlyForRecords = { resource: ['record'] };

/**
 * `send.paginate` hands each request to the node's `requestOperations.pagination` (shared/transport.ts), which
 * pages lists and gives every request the same bound on parallel requests, resending and error messages.
 */
export const recordDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: showOnlyForRecords },
		options: [
			{
				name: 'Create',
				value: 'create',
				action: 'Create a record',
				description: 'Create a new record',
				routing: {
					request: { method: 'POST', url: `=/${ENTITY_TYPE_PATH}` },
					send: { paginate: true },
				},
			},
			{
				name: 'Create or Update',
				value: 'upsert',
				action: 'Create or update a record',
				description: 'Create a new record, or update the current one if it already exists (upsert)',
			},
			{
				name: 'Delete',
				value: 'delete',
				action: 'Delete a record',
				description: 'Delete a record',
				routing: {
					request: { method: 'DELETE', url: `=/${ENTITY_TYPE_PATH}/${RECORD_ID_PATH}` },
					send: { paginate: true },
					output: { postReceive: [{ type: 'set', properties: { value: '={{ { "deleted": true } }}' } }] },
				},
			},
			{
				name: 'Get',
				value: 'get',
				action: 'Get a record',
				description: 'Get a record by its ID',
				routing: {
					request: { method: 'GET', url: `=/${ENTITY_TYPE_PATH}/${RECORD_ID_PATH}` },
					send: { paginate: true },
				},
			},
			{
				name: 'Get Many',
				value: 'getMany',
				action: 'Get many records',
				description: 'List records, with filters and sorting',
				routing: {
					request: { method: 'GET', url: `=/${ENTITY_TYPE_PATH}`, qs: { maxSize: 200 } },
					send: { paginate: true },
					output: { postReceive: [{ type: 'rootProperty', properties: { property: 'list' } }] },
				},
			},
			{
				name: 'Update',
				value: 'update',
				action: 'Update a record',
				description: 'Change the given fields of a record; the others stay as they are',
				routing: {
					request: { method: 'PUT', url: `=/${ENTITY_TYPE_PATH}/${RECORD_ID_PATH}` },
					send: { paginate: true },
				},
			},
		],
		default: 'create',
	},
	...entityTypeFields(showOnlyForRecords),
	...createFields,
	...upsertFields,
	...getFields,
	...getManyFields,
	...updateFields,
	...deleteFields,
];
