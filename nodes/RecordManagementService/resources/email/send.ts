import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { dialectOf } from '../../shared/dialect';

const show = { resource: ['email'], operation: ['send'] };

/** Several addresses travel as one `;`-separated string; users may type commas, or an expression may give a list. */
const addressList = '={{ [].concat($value).join(";").split(/[;,]/).map(a => a.trim()).filter(a => a).join(";") || undefined }}';

export const sendFields: INodeProperties[] = [
	{
		displayName: 'To',
		name: 'to',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'ada@example.com; grace@example.com',
		description: 'Recipient addresses, separated by semicolons or commas',
		displayOptions: { show },
		routing: { send: { type: 'body', property: 'to', value: addressList } },
	},
	{
		displayName: 'Subject',
		name: 'subject',
		type: 'string',
		default: '',
		required: true,
		displayOptions: { show },
		routing: { send: { type: 'body', property: 'subject' } },
	},
	{
		displayName: 'Body',
		name: 'body',
		type: 'string',
		typeOptions: { rows: 6 },
		default: '',
		displayOptions: { show },
		routing: { send: { type: 'body', property: 'body' } },
	},
	{
		displayName: 'Body Is HTML',
		name: 'isHtml',
		type: 'boolean',
		default: false,
		description: 'Whether the body is HTML rather than plain text',
		displayOptions: { show },
		routing: { send: { type: 'body', property: 'isHtml' } },
	},
	{
		displayName: 'From',
		name: 'from',
		type: 'string',
		default: '',
		placeholder: 'sales@example.com',
		description: 'Sender address. EspoCRM requires it.',
		displayOptions: { show },
		routing: { send: { type: 'body', property: 'from', value: '={{ $value.trim() || undefined }}' } },
	},
	{
		displayName: 'Options',
		name: 'emailOptions',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show },
		options: [
			{
				displayName: 'CC',
				name: 'cc',
				type: 'string',
				default: '',
				routing: { send: { type: 'body', property: 'cc', value: addressList } },
			},
			{
				displayName: 'BCC',
				name: 'bcc',
				type: 'string',
				default: '',
				routing: { send: { type: 'body', property: 'bcc', value: addressList } },
			},
			{
				displayName: 'Linked Record Type',
				name: 'parentType',
				type: 'string',
				default: '',
				placeholder: 'Contact',
				description: 'Entity type of the record the e-mail belongs to',
				routing: { send: { type: 'body', property: 'parentType' } },
			},
			{
				displayName: 'Linked Record ID',
				name: 'parentId',
				type: 'string',
				default: '',
				description: 'ID of the record the e-mail belongs to',
				routing: { send: { type: 'body', property: 'parentId' } },
			},
		],
	},
];

/**
 * EspoCRM stores an e-mail without sending it unless its status is "Sending", needs a sender, and keeps the
 * subject in the field `name`.
 */
export async function applyEmailDialect(this: IExecuteSingleFunctions, request: IHttpRequestOptions) {
	if ((await dialectOf(this)) !== 'espocrm') return request;
	const body = request.body as IDataObject;
	if (!body.from) {
		throw new NodeOperationError(this.getNode(), `The parameter "From" is empty (item ${this.getItemIndex()})`, {
			itemIndex: this.getItemIndex(),
			description: 'EspoCRM needs the sender address to send an e-mail.',
		});
	}
	return { ...request, body: { ...body, name: body.subject, status: 'Sending' } };
}

/** Says so when the server kept the e-mail without sending it, rather than reporting success. */
export async function requireSent(
	this: IExecuteSingleFunctions,
	items: INodeExecutionData[],
	response: IN8nHttpFullResponse,
): Promise<INodeExecutionData[]> {
	const email = (response.body ?? {}) as IDataObject;
	if (typeof email.status === 'string' && email.status !== 'Sent' && email.status !== 'Sending') {
		throw new NodeOperationError(
			this.getNode(),
			`The server stored the e-mail but did not send it (status "${email.status}", item ${this.getItemIndex()})`,
			{
				itemIndex: this.getItemIndex(),
				description: `The e-mail record ${email.id ?? ''} is kept on the server. Check the server's outgoing mail settings and the "Server" setting of the credential.`,
			},
		);
	}
	return items;
}
