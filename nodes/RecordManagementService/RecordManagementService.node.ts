import type { INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { attachmentOperationFields, attachmentOperations } from './resources/attachment';
import { bulkOperationFields, bulkOperations } from './resources/bulk';
import { massDelete } from './resources/bulk/massDelete';
import { massUpdate } from './resources/bulk/massUpdate';
import { emailOperationFields, emailOperations, emailOptionFields } from './resources/email';
import { send } from './resources/email/send';
import { leadOperationFields, leadOperations } from './resources/lead';
import { convert } from './resources/lead/convert';
import { recordOperationFields, recordOperations, recordOptionFields } from './resources/record';
import { create } from './resources/record/create';
import { getMany } from './resources/record/getMany';
import { update } from './resources/record/update';
import { upsert } from './resources/record/upsert';
import { relationshipOperationFields, relationshipOperations } from './resources/relationship';
import { getManyRelated } from './resources/relationship/getManyRelated';
import { link, unlink } from './resources/relationship/link';
import { streamOperationFields, streamOperations } from './resources/stream';
import { getStream } from './resources/stream/getStream';
import { post } from './resources/stream/post';
import { testCredentials } from './shared/server/credentialTest';
import { requestSettingsField, targetFields } from './shared/fields/target';
import { listFields } from './shared/list/listFields';
import {
	getEntityTypes,
	getFields,
	getFilterAttributes,
	getLinks,
	getMappingFields,
	getSortableFields,
} from './shared/server/formLists';
import { recordBodyFields } from './shared/fields/recordBody';
import { searchRecords } from './shared/list/recordSearch';
import { getBoolFilters, getPrimaryFilters, searchFields } from './shared/list/search';
import { simplifyFields, withSimplify } from './shared/operation/simplify';
import { toolDescriptionFields } from './shared/tool/description';
import { routeRequest } from './shared/http/routing';

/** The operation selector of each resource, in the order the form shows them. */
const operationSelectors = [
	recordOperations,
	relationshipOperations,
	bulkOperations,
	leadOperations,
	emailOperations,
	attachmentOperations,
	streamOperations,
];

export class RecordManagementService implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Record Management Service',
		name: 'recordManagementService',
		icon: {
			light: 'file:recordManagementService.svg',
			dark: 'file:recordManagementService.dark.svg',
		},
		group: ['transform'],
		// 1.1: Return All from EspoCRM in the list's own order (version 1: by ID when no sort order is set).
		// 1.2: as a tool, Simplify on by default and the Tool Description set automatically or in the author's words.
		version: [1, 1.1, 1.2],
		defaultVersion: 1.2,
		// "Get Many: Contact", as the operation and the entity type are named in the form.
		subtitle:
			'={{ ({ create: "Create", upsert: "Create or Update", delete: "Delete", get: "Get", getMany: "Get Many", update: "Update", getManyRelated: "Get Many Related", link: "Link", unlink: "Unlink", massUpdate: "Mass Update", massDelete: "Mass Delete", convert: "Convert", send: "Send", download: "Download", post: "Post", getStream: "Get Many", follow: "Follow", unfollow: "Unfollow" })[$parameter.operation] + ": " + (({ lead: "Lead", email: "Email", attachment: "Attachment", stream: "Stream" })[$parameter.resource] ?? ($parameter.entityType === "custom" ? $parameter.customEntityType : $parameter.entityType)) }}',
		description:
			'Create, find, update and link CRM records on EspoCRM and other Record Management Service servers',
		defaults: { name: 'Record Management Service' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{ name: 'recordManagementServiceApi', required: true, testedBy: 'testCredentials' },
		],
		requestDefaults: {
			headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
			json: true,
			// The where list goes out as where[0][type]=…, the bracket form the interface specifies.
			arrayFormat: 'indices',
		},
		// Every routed operation sets `send.paginate`, so that all its requests pass through this one function.
		requestOperations: { pagination: routeRequest },
		// In the order the form shows them. Each parameter is declared once, for all the operations that show it:
		// n8n resolves every declared copy of a parameter for every item.
		properties: [
			...toolDescriptionFields(operationSelectors),
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{
						name: 'Attachment (EspoCRM)',
						value: 'attachment',
						description: 'Files of EspoCRM records and e-mails',
					},
					{
						name: 'Bulk',
						value: 'bulk',
						description: 'Change or delete many records in a few requests',
					},
					{ name: 'Email', value: 'email' },
					{ name: 'Lead', value: 'lead' },
					{ name: 'Record', value: 'record' },
					{
						name: 'Relationship',
						value: 'relationship',
						description: 'Records linked to a record',
					},
					{
						name: 'Stream (EspoCRM)',
						value: 'stream',
						description: "Posts and updates on a record (EspoCRM's stream), following records",
					},
				],
				default: 'record',
			},
			...operationSelectors,
			...targetFields,
			...recordOperationFields,
			...relationshipOperationFields,
			...bulkOperationFields,
			...leadOperationFields,
			...emailOperationFields,
			...attachmentOperationFields,
			...streamOperationFields,
			...recordBodyFields,
			...listFields({ operation: ['getMany', 'getManyRelated'] }, ['getStream']),
			...searchFields({ operation: ['getMany', 'getManyRelated'] }),
			...recordOptionFields,
			...emailOptionFields,
			...simplifyFields,
			requestSettingsField,
		],
	};

	methods = {
		loadOptions: {
			getEntityTypes,
			getFields,
			getSortableFields,
			getFilterAttributes,
			getLinks,
			getPrimaryFilters,
			getBoolFilters,
		},
		listSearch: { searchRecords },
		resourceMapping: { getMappingFields },
		credentialTest: { testCredentials },
	};

	/**
	 * Operations that run as code (each file holds its requests): those that read many parameters per item, span
	 * items, send several requests per item or look before they write. Get, Delete and Download are routed
	 * (`routing` in resources/).
	 */
	customOperations = {
		// withSimplify: the output of the operations that offer Simplify (shared/operation/simplify.ts), compacted where asked
		record: {
			create: withSimplify(create),
			getMany: withSimplify(getMany, { list: true }),
			update: withSimplify(update),
			upsert: withSimplify(upsert),
		},
		relationship: { getManyRelated: withSimplify(getManyRelated, { list: true }), link, unlink },
		bulk: { massUpdate, massDelete },
		lead: { convert },
		email: { send },
		stream: { post: withSimplify(post), getStream },
	};
}
