import type { INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { bulkDescription } from './resources/bulk';
import { massDelete } from './resources/bulk/massDelete';
import { massUpdate } from './resources/bulk/massUpdate';
import { emailDescription } from './resources/email';
import { leadDescription } from './resources/lead';
import { convert } from './resources/lead/convert';
import { recordDescription } from './resources/record';
import { upsert } from './resources/record/upsert';
import { relationshipDescription } from './resources/relationship';
import { requestSettingsField } from './shared/descriptions';
import { getEntityTypes, getFields, getFilterAttributes, getLinks, getMappingFields } from './shared/metadata';
import { searchRecords } from './shared/recordSearch';
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
				options: [
					{ name: 'Bulk', value: 'bulk', description: 'Change or delete many records in a few requests' },
					{ name: 'Email', value: 'email' },
					{ name: 'Lead', value: 'lead' },
					{ name: 'Record', value: 'record' },
					{ name: 'Relationship', value: 'relationship', description: 'Records linked to a record' },
				],
				default: 'record',
			},
			...recordDescription,
			...relationshipDescription,
			...bulkDescription,
			...leadDescription,
			...emailDescription,
			requestSettingsField,
		],
	};

	/** The form's lists: from EspoCRM's metadata (or the interface's own lists for a Standard server), and records to pick. */
	methods = {
		loadOptions: { getEntityTypes, getFields, getFilterAttributes, getLinks },
		listSearch: { searchRecords },
		resourceMapping: { getMappingFields },
	};

	/** Operations that span items or look before they write; the others are declarative (`routing` above). */
	customOperations = {
		record: { upsert },
		bulk: { massUpdate, massDelete },
		lead: { convert },
	};
}
