import type { INodeProperties } from 'n8n-workflow';

import { emailOptions, sendFields } from './send';

/**
 * Send checks every address and file first, uploads attachments, and speaks each server's dialect, so it runs as a
 * custom operation (`customOperations` in the node): send.ts holds its requests.
 */
export const emailOperations: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { resource: ['email'] } },
	options: [
		{
			name: 'Send',
			value: 'send',
			action: 'Send an email',
			description: 'Send an e-mail, optionally linked to a record and with files attached',
		},
	],
	default: 'send',
};

export const emailOperationFields: INodeProperties[] = sendFields;

export const emailOptionFields: INodeProperties[] = [emailOptions];
