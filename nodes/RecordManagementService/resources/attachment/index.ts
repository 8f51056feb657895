import type { INodeProperties } from 'n8n-workflow';

import { resolvePath } from '../../shared/item/paths';
import { reading } from '../../shared/http/routing';
import { FILE_LIMIT, downloadFields, fileToBinary } from './download';

/** Attachments are EspoCRM's: the interface as specified has none. */
export const attachmentOperations: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { resource: ['attachment'] } },
	options: [
		{
			name: 'Download',
			value: 'download',
			action: 'Download an attachment',
			description: 'Get the file of an attachment (EspoCRM) as binary data',
			routing: {
				request: {
					method: 'GET',
					url: '/Attachment/file/{attachmentId}',
					encoding: 'arraybuffer',
					json: false,
					headers: { Accept: '*/*' },
				},
				send: { preSend: [resolvePath], paginate: true },
				output: { postReceive: [reading({ as: 'bytes', limit: FILE_LIMIT }, fileToBinary)] },
			},
		},
	],
	default: 'download',
};

export const attachmentOperationFields: INodeProperties[] = downloadFields;
