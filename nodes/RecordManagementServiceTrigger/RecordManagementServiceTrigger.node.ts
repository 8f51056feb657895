import type { INodeExecutionData, INodeType, INodeTypeDescription, IPollFunctions } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { withRemedyInMessage } from '../RecordManagementService/shared/activation';
import { testCredentials } from '../RecordManagementService/shared/credentialTest';
import { entityTypeFields } from '../RecordManagementService/shared/descriptions';
import { filterFields } from '../RecordManagementService/shared/filters';
import { getEntityTypes, getFields, getFilterAttributes } from '../RecordManagementService/shared/metadata';
import { getBoolFilters, getPrimaryFilters, searchFields } from '../RecordManagementService/shared/search';
import { pollChanges } from './poll';

export class RecordManagementServiceTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Record Management Service Trigger',
		name: 'recordManagementServiceTrigger',
		icon: { light: 'file:../RecordManagementService/recordManagementService.svg', dark: 'file:../RecordManagementService/recordManagementService.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle:
			'={{ ($parameter.event === "created" ? "Created: " : "Created or Updated: ") + ($parameter.entityType === "custom" ? $parameter.customEntityType : $parameter.entityType) }}',
		description: 'Starts the workflow when records are created or changed, on any Record Management Service server (by polling)',
		defaults: { name: 'Record Management Service Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'recordManagementServiceApi', required: true, testedBy: 'testCredentials' }],
		properties: [
			...entityTypeFields(),
			{
				displayName: 'Event',
				name: 'event',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Record Created', value: 'created', description: 'Each new record, once' },
					{
						name: 'Record Created or Updated',
						value: 'createdOrUpdated',
						description: 'Each new or changed record, once per poll in which it changed',
					},
				],
				default: 'created',
			},
			...filterFields({}),
			...searchFields({}),
			{
				displayName: 'Fields to Return Names or IDs',
				name: 'select',
				type: 'multiOptions',
				typeOptions: { loadOptionsMethod: 'getFields', loadOptionsDependsOn: ['entityType', 'customEntityType'] },
				default: [],
				description:
					'The fields to return; none returns every field. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			},
		],
	};

	methods = {
		loadOptions: { getEntityTypes, getFields, getFilterAttributes, getPrimaryFilters, getBoolFilters },
		credentialTest: { testCredentials },
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		try {
			return await pollChanges(this);
		} catch (error) {
			// n8n polls once when the workflow is published, and then shows only the error's message.
			throw withRemedyInMessage(error);
		}
	}
}
