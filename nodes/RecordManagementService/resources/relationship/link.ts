import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { linkFields, recordIdField } from '../../shared/descriptions';
import { idsFrom, requireId } from '../../shared/validation';

const linkShow = { resource: ['relationship'], operation: ['link'] };
const unlinkShow = { resource: ['relationship'], operation: ['unlink'] };

export const linkOperationFields: INodeProperties[] = [
	recordIdField(linkShow),
	...linkFields(linkShow),
	{
		displayName: 'Related Record IDs',
		name: 'relatedIds',
		type: 'string',
		default: '',
		required: true,
		placeholder: '6b02e09eadb4139af, 6b02e09eadb4139b0',
		description: 'ID of the record to link, or several separated by commas (an expression may also return a list)',
		displayOptions: { show: linkShow },
		routing: { send: { preSend: [setLinkBody] } },
	},
];

export const unlinkOperationFields: INodeProperties[] = [
	recordIdField(unlinkShow),
	...linkFields(unlinkShow),
	{
		displayName: 'Related Record ID',
		name: 'relatedId',
		type: 'string',
		default: '',
		required: true,
		description: 'ID of the record to unlink',
		displayOptions: { show: unlinkShow },
		routing: { send: { preSend: [setUnlinkId] } },
	},
];

function relatedIdsOf(context: IExecuteSingleFunctions): string[] {
	const itemIndex = context.getItemIndex();
	const ids = idsFrom(context, context.getNodeParameter('relatedIds'), 'Related Record IDs', itemIndex);
	if (ids.length === 0) requireId(context, '', 'Related Record IDs', itemIndex);
	return ids;
}

async function setLinkBody(this: IExecuteSingleFunctions, request: IHttpRequestOptions) {
	const ids = relatedIdsOf(this);
	return { ...request, body: ids.length === 1 ? { id: ids[0] } : { ids } };
}

/** The interface reads the ID from the query, EspoCRM from the body: sending both unlinks on either. */
async function setUnlinkId(this: IExecuteSingleFunctions, request: IHttpRequestOptions) {
	const id = requireId(this, this.getNodeParameter('relatedId'), 'Related Record ID', this.getItemIndex());
	return { ...request, qs: { ...request.qs, id }, body: { id } };
}

/** One item per input item saying what changed, instead of the server's bare `true`. */
export async function describeLinkChange(
	this: IExecuteSingleFunctions,
	_items: INodeExecutionData[],
	response: IN8nHttpFullResponse,
): Promise<INodeExecutionData[]> {
	const operation = this.getNodeParameter('operation') as string;
	const link = this.getNodeParameter('link') as string;
	const summary: IDataObject = {
		id: String(this.getNodeParameter('recordId', undefined, { extractValue: true })).trim(),
		relationship: link === 'custom' ? String(this.getNodeParameter('customLink')).trim() : link,
	};
	if (response.body === false) {
		throw new NodeOperationError(this.getNode(), `The server answered that nothing was ${operation}ed (item ${this.getItemIndex()})`, {
			itemIndex: this.getItemIndex(),
			description: 'Check the relationship name and the related record ID.',
		});
	}
	if (operation === 'link') return [{ json: { ...summary, linked: relatedIdsOf(this) } }];
	return [{ json: { ...summary, unlinked: [String(this.getNodeParameter('relatedId')).trim()] } }];
}
