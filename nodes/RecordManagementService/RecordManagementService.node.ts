import type { INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { recordDescription } from './resources/record';
import { upsert } from './resources/record/upsert';
import { requestSettingsField } from './shared/descriptions';
import { routeRequest } from './shared/transport';

export class RecordManagementService implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Record Management Service',
		name: 'recordManagementService',
		icon: { light: 'file:recordManagementService.svg', dark: 'file:recordManagementService.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{ $parameter.operation + ": " + $parameter.resource }}',
		description: 'Create, find, update and link CRM records on EspoCRM and other Record Management Service servers',
		defaults: { name: 'Record Management Service' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'recordManagementServiceApi', required: true }],
		requestDefaults: {
			headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
			json: true,
			// The where list goes out as where[0][type]=…, the bracket form the interface specifies.
			arrayFormat: 'indices',
		},
		// Every operation's routing sets `send.paginate`, so that all requests pass through this one function.
		requestOperations: { pagination: routeRequest },
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [{ name: 'Record', value: 'record' }],
				default: 'record',
			},
			...recordDescription,
			requestSettingsField,
		],
	};

	customOperations = {
		record: { upsert },
	};
}
