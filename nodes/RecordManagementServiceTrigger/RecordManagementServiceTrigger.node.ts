import type {
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { withRemedyInMessage } from '../RecordManagementService/shared/operation/activation';
import { testCredentials } from '../RecordManagementService/shared/server/credentialTest';
import { entityTypeFields, recordLocator } from '../RecordManagementService/shared/fields/target';
import { filterFields } from '../RecordManagementService/shared/list/listFields';
import {
	getEntityTypes,
	getFields,
	getFilterAttributes,
} from '../RecordManagementService/shared/server/formLists';
import { searchRecords } from '../RecordManagementService/shared/list/recordSearch';
import {
	getBoolFilters,
	getPrimaryFilters,
	searchFields,
} from '../RecordManagementService/shared/list/search';
import { NOTE_TYPES, streamOfField } from '../RecordManagementService/shared/list/notes';
import { pollChanges } from './poll';

/** The list parameters of the record events; a stream has its own (Stream Of, Record, Note Types). */
const recordEvents = { event: ['created', 'createdOrUpdated'] };
const streamEvent = { event: ['streamNote'] };
/** The API user's own stream has no entity type or record. */
const userStream = { streamOf: ['user'] };

export class RecordManagementServiceTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Record Management Service Trigger',
		name: 'recordManagementServiceTrigger',
		icon: {
			light: 'file:../RecordManagementService/recordManagementService.svg',
			dark: 'file:../RecordManagementService/recordManagementService.dark.svg',
		},
		group: ['trigger'],
		version: 1,
		subtitle:
			'={{ $parameter.event === "streamNote" ? "New Stream Note" : ($parameter.event === "created" ? "Created: " : "Created or Updated: ") + ($parameter.entityType === "custom" ? $parameter.customEntityType : $parameter.entityType) }}',
		// n8n's nodes panel shows the action node and this trigger as one entry, "Record Management Service", with the
		// actions and the trigger's events, and takes this description for it (n8n 2.41, the node creator's
		// generateMergedNodesAndActions): it says what the entry holds, not only what the trigger does.
		description:
			'Create, find, update and link CRM records, and start workflows when records are created or changed (polling), on EspoCRM and other Record Management Service servers',
		defaults: { name: 'Record Management Service Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{ name: 'recordManagementServiceApi', required: true, testedBy: 'testCredentials' },
		],
		properties: [
			...entityTypeFields({}, userStream),
			{
				displayName: 'Event',
				name: 'event',
				type: 'options',
				noDataExpression: true,
				// `action`: the event as n8n's nodes panel lists it (without it, "On " and the name in lower case, which makes
				// "(EspoCRM)" "espo crm").
				options: [
					{
						name: 'Record Created',
						value: 'created',
						description: 'Each new record, once',
						action: 'On record created',
					},
					{
						name: 'Record Created or Updated',
						value: 'createdOrUpdated',
						description: 'Each new or changed record, once per poll in which it changed',
						action: 'On record created or updated',
					},
					{
						name: 'New Stream Note (EspoCRM)',
						action: 'On new stream note (EspoCRM)',
						value: 'streamNote',
						description:
							"Each new note in a record's stream or the API user's, once (EspoCRM servers only)",
					},
				],
				default: 'created',
			},
			streamOfField(streamEvent),
			recordLocator('recordId', 'Record', streamEvent, userStream),
			{
				displayName: 'Note Types',
				name: 'noteTypes',
				type: 'multiOptions',
				options: NOTE_TYPES,
				default: ['Post'],
				description: 'Only notes of these types (all when none is chosen)',
				displayOptions: { show: streamEvent },
			},
			...filterFields(recordEvents),
			...searchFields(recordEvents),
			{
				displayName: 'Fields to Return Names or IDs',
				name: 'select',
				type: 'multiOptions',
				typeOptions: {
					loadOptionsMethod: 'getFields',
					loadOptionsDependsOn: ['entityType', 'customEntityType'],
				},
				default: [],
				description:
					'The fields to return; none returns every field. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
				displayOptions: { show: recordEvents },
			},
		],
	};

	methods = {
		loadOptions: {
			getEntityTypes,
			getFields,
			getFilterAttributes,
			getPrimaryFilters,
			getBoolFilters,
		},
		listSearch: { searchRecords },
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
