import type { INodeProperties } from 'n8n-workflow';

import { ENTITY_TYPE_PATH, LINK_PATH, RECORD_ID_PATH, entityTypeFields } from '../../shared/descriptions';
import { getManyRelatedFields } from './getMany';
import { describeLinkChange, linkOperationFields, unlinkOperationFields } from './link';

const showOnlyForRelationships = { resource: ['relationship'] };
const RELATIONSHIP_PATH = `=/${ENTITY_TYPE_PATH}/${RECORD_ID_PATH}/${LINK_PATH}`;

export const relationshipDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: showOnlyForRelationships },
		options: [
			{
				name: 'Get Many Related',
				value: 'getMany',
				action: 'Get many related records',
				description: 'List the records linked to a record through a relationship',
				routing: {
					request: { method: 'GET', url: RELATIONSHIP_PATH, qs: { maxSize: 200 } },
					send: { paginate: true },
					output: { postReceive: [{ type: 'rootProperty', properties: { property: 'list' } }] },
				},
			},
			{
				name: 'Link',
				value: 'link',
				action: 'Link records',
				description: 'Link one or several records to a record',
				routing: {
					request: { method: 'POST', url: RELATIONSHIP_PATH },
					send: { paginate: true },
					output: { postReceive: [describeLinkChange] },
				},
			},
			{
				name: 'Unlink',
				value: 'unlink',
				action: 'Unlink a record',
				description: 'Remove the link between two records; neither record is deleted',
				routing: {
					request: { method: 'DELETE', url: RELATIONSHIP_PATH },
					send: { paginate: true },
					output: { postReceive: [describeLinkChange] },
				},
			},
		],
		default: 'getMany',
	},
	...entityTypeFields(showOnlyForRelationships),
	...getManyRelatedFields,
	...linkOperationFields,
	...unlinkOperationFields,
];
