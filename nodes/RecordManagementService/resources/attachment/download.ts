import type { IExecuteSingleFunctions, IN8nHttpFullResponse, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { routedItemOf } from '../../shared/item';

const show = { operation: ['download'] };

export const downloadFields: INodeProperties[] = [
	{
		displayName:
			'Attachments exist on EspoCRM only: choose "EspoCRM 7 or Later" as Server in the credential. The file comes out as binary data, in the field named below.',
		name: 'attachmentNotice',
		type: 'notice',
		default: '',
		displayOptions: { show },
	},
	{
		displayName: 'Attachment ID',
		name: 'attachmentId',
		type: 'string',
		default: '',
		required: true,
		placeholder: '6b02e09eadb4139af',
		description: 'ID of the attachment, for example one of a record\'s attachmentsIds, or the ID of a file field (…ID)',
		displayOptions: { show },
	},
	{
		displayName: 'Put Output File in Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		hint: 'The name of the output binary field to put the file in',
		displayOptions: { show },
	},
];

/** The file name of `Content-Disposition: attachment; filename="…"` (or its UTF-8 form `filename*=UTF-8''…`). */
function fileNameOf(disposition: unknown): string | undefined {
	const text = String(disposition ?? '');
	const encoded = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(text);
	if (encoded) {
		try {
			return decodeURIComponent(encoded[1].trim());
		} catch {
			// Not valid percent-encoding: fall back to the plain form.
		}
	}
	return /filename\s*=\s*"?([^";]+)"?/i.exec(text)?.[1]?.trim();
}

/** postReceive of Download: the bytes as n8n binary data, with the server's file name and MIME type. */
export async function fileToBinary(
	this: IExecuteSingleFunctions,
	_items: INodeExecutionData[],
	response: IN8nHttpFullResponse,
): Promise<INodeExecutionData[]> {
	const item = routedItemOf(this);
	const property = item.parameter<string>('binaryPropertyName', 'data').trim() || 'data';
	const bytes = Buffer.from(response.body as ArrayBuffer);
	const mimeType = String(response.headers['content-type'] ?? 'application/octet-stream').split(';')[0].trim();
	const fileName = fileNameOf(response.headers['content-disposition']);
	const binary = await this.helpers.prepareBinaryData(bytes, fileName, mimeType);
	return [{ json: { fileName: binary.fileName, mimeType: binary.mimeType, fileSize: bytes.length }, binary: { [property]: binary } }];
}
