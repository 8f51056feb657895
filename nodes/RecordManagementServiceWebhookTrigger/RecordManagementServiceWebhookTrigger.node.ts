import type {
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { testCredentials } from '../RecordManagementService/shared/server/credentialTest';
import { entityTypeFields } from '../RecordManagementService/shared/fields/target';
import { getEntityTypes, getFields } from '../RecordManagementService/shared/server/formLists';
import { lifecycle, receive } from './webhooks';

export class RecordManagementServiceWebhookTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Record Management Service Webhook Trigger',
		name: 'recordManagementServiceWebhookTrigger',
		icon: {
			light: 'file:../RecordManagementService/recordManagementService.svg',
			dark: 'file:../RecordManagementService/recordManagementService.dark.svg',
		},
		group: ['trigger'],
		version: 1,
		// "Created, Updated: Contact", as the events and the entity type are named in the form.
		subtitle:
			'={{ [].concat($parameter.events).map((event) => ({ create: "Created", update: "Updated", delete: "Deleted", fieldUpdate: "Field Updated" })[event] ?? event).join(", ") + ": " + ($parameter.entityType === "custom" ? $parameter.customEntityType : $parameter.entityType) }}',
		description: 'Starts the workflow when EspoCRM reports a change through its webhooks',
		defaults: { name: 'Record Management Service Webhook Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{ name: 'recordManagementServiceApi', required: true, testedBy: 'testCredentials' },
		],
		webhooks: [
			{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' },
		],
		properties: [
			{
				displayName:
					'EspoCRM sends webhooks from its scheduled job "Process Webhook Queue", every 5 minutes by default: changes arrive in batches, not at once. API users (API Key or HMAC) whose role allows the scope "Webhooks", and administrators, can register them.',
				name: 'deliveryNotice',
				type: 'notice',
				default: '',
			},
			...entityTypeFields(),
			{
				displayName: 'Events',
				name: 'events',
				type: 'multiOptions',
				options: [
					{ name: 'Record Created', value: 'create' },
					{ name: 'Record Deleted', value: 'delete' },
					{
						name: 'Record Field Updated',
						value: 'fieldUpdate',
						description: 'A change of one field, chosen below',
					},
					{ name: 'Record Updated', value: 'update' },
				],
				default: ['create'],
				required: true,
			},
			{
				displayName: 'Field Name or ID',
				name: 'field',
				type: 'options',
				typeOptions: {
					loadOptionsMethod: 'getFields',
					loadOptionsDependsOn: ['entityType', 'customEntityType'],
				},
				default: '',
				description:
					'The field whose changes start the workflow. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
				displayOptions: { show: { events: ['fieldUpdate'] } },
			},
			{
				displayName: 'Include Full Record',
				name: 'includeFullRecord',
				type: 'boolean',
				default: true,
				description:
					'Whether to read each updated record, so that the workflow gets all its fields as on create (one request per record); otherwise only the changed fields and the ID',
				displayOptions: { show: { events: ['update', 'fieldUpdate'] } },
			},
		],
	};

	methods = {
		loadOptions: { getEntityTypes, getFields },
		credentialTest: { testCredentials },
	};

	webhookMethods = { default: lifecycle };

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await receive.call(this);
	}
}
