import type {
	IExecuteSingleFunctions,
	IN8nHttpFullResponse,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import { megabytes } from '../../shared/http/answers';
import type { ReadLimit } from '../../shared/http/request';
import { routedItemOf } from '../../shared/item/item';

const show = { operation: ['download'] };

/** The most a download may be, read before it becomes binary data. */
const MAX_FILE_BYTES = 256 * 1024 * 1024;

export const FILE_LIMIT: ReadLimit = {
	bytes: MAX_FILE_BYTES,
	what: `Downloads are read up to ${megabytes(MAX_FILE_BYTES)}, far above what EspoCRM accepts as an upload by default.`,
};

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
		description:
			"ID of the attachment, for example one of a record's attachmentsIds, or the ID of a file field (…ID)",
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

/**
 * A header value as Node hands it over: one character per byte (latin1). EspoCRM writes the file name's UTF-8 bytes
 * into `filename="…"` as they are, so a name that reads as valid UTF-8 is meant as UTF-8; anything else stays as read.
 */
function utf8Meant(latin1: string): string {
	if (!/[\u0080-\u00ff]/.test(latin1) || /[^\u0000-\u00ff]/.test(latin1)) return latin1;
	const bytes = Buffer.from(latin1, 'latin1');
	const decoded = bytes.toString('utf8');
	return Buffer.from(decoded, 'utf8').equals(bytes) ? decoded : latin1;
}

/**
 * The file name of `Content-Disposition: attachment; filename="…"`, or of its RFC 5987 form
 * `filename*=UTF-8''…` when the server sends one (it is the exact name).
 */
function fileNameOf(disposition: unknown): string | undefined {
	const text = String(disposition ?? '');
	const encoded = /filename\*\s*=\s*([\w-]+)'[^']*'([^;]+)/i.exec(text);
	if (encoded) {
		const value = encoded[2].trim();
		// A name declared ISO-8859-1 has one byte per character; otherwise the bytes are UTF-8.
		if (/^iso-8859-1$/i.test(encoded[1]))
			return value.replace(/%([0-9a-f]{2})/gi, (_, hex: string) =>
				String.fromCharCode(parseInt(hex, 16)),
			);
		try {
			return decodeURIComponent(value);
		} catch {
			// Not valid percent-encoding: fall back to the plain form.
		}
	}
	const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]+))/i.exec(text);
	const name = (plain?.[1]?.replace(/\\(.)/g, '$1') ?? plain?.[2])?.trim();
	return name ? utf8Meant(name) : undefined;
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
	const mimeType = String(response.headers['content-type'] ?? 'application/octet-stream')
		.split(';')[0]
		.trim();
	const fileName = fileNameOf(response.headers['content-disposition']);
	const binary = await this.helpers.prepareBinaryData(bytes, fileName, mimeType);
	return [
		{
			json: { fileName: binary.fileName, mimeType: binary.mimeType, fileSize: bytes.length },
			binary: { [property]: binary },
		},
	];
}
