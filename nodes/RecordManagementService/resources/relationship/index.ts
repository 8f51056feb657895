import type { INodeProperties } from 'n8n-workflow';

import { relatedIdFields } from './link';

/**
 * The operations run as custom operations (`customOperations` in the node): getManyRelated.ts and link.ts hold their
 * requests. n8n's routing would resolve the filter's conditions five times per item, and Link and Unlink say what
 * changed, which routing could only tell by resolving their parameters once more.
 */
export const relationshipOperations: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { resource: ['relationship'] } },
	options: [
		{
			name: 'Get Many Related',
			value: 'getManyRelated',
			action: 'Get many records linked to a record',
			description: 'List the records linked to a record through a relationship',
		},
		{
			name: 'Link',
			value: 'link',
			action: 'Link records to a record',
			description: 'Link one or several records to a record',
		},
		{
			name: 'Unlink',
			value: 'unlink',
			action: 'Unlink a record from a record',
			description: 'Remove the link between two records; neither record is deleted',
		},
	],
	default: 'getManyRelated',
};

export const relationshipOperationFields: INodeProperties[] = relatedIdFields;
