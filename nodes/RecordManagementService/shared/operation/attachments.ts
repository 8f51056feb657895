import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { apiRequest } from '../http/request';
import type { Run } from '../http/run';
import type { Item } from '../item/item';

/** A file of the input item: the binary field it is in, and n8n's data about it. */
export interface BinaryFile {
	property: string;
	binary: IBinaryData;
}

/**
 * The item's binary fields named in `names` (separated by commas), each of which must exist on the item; `parameter`
 * is the parameter that names them, for the error.
 */
export function binaryFilesOf(
	run: Run<IExecuteFunctions>,
	item: Item,
	names: unknown,
	parameter: string,
): BinaryFile[] {
	const properties = String(names ?? '')
		.split(',')
		.map((name) => name.trim())
		.filter((name) => name !== '');
	if (properties.length === 0) return [];
	const binaries = run.context.getInputData()[item.index].binary ?? {};
	return properties.map((property) => {
		const binary = binaries[property];
		if (!binary) {
			const present = Object.keys(binaries);
			throw item.refuse(
				parameter,
				`names the binary field "${property}", which the input item does not have`,
				present.length
					? `The item's binary fields: ${present.join(', ')}.`
					: 'The item has no binary data: read or download the file in an earlier node.',
			);
		}
		return { property, binary };
	});
}

/** Where an uploaded file belongs in EspoCRM: the entity type and the attachment-multiple field whose file it is. */
export interface AttachmentTarget {
	relatedType: string;
	field: string;
}

/**
 * Uploads one file to EspoCRM (POST /Attachment with a data URI: EspoCRM stores anything else as an empty file,
 * answering 200) as an attachment of `target`, and checks that the server kept every byte. Returns its ID, which the
 * record then names in its `<field>Ids`.
 */
export async function uploadAttachment(
	run: Run<IExecuteFunctions>,
	item: Item,
	{ property, binary }: BinaryFile,
	{ relatedType, field }: AttachmentTarget,
): Promise<string> {
	const bytes = await run.context.helpers.getBinaryDataBuffer(item.index, property);
	const type = binary.mimeType || 'application/octet-stream';
	const name = binary.fileName || property;
	const attachment = await apiRequest(run, item.index, {
		method: 'POST',
		url: '/Attachment',
		expect: 'record',
		body: {
			name,
			type,
			role: 'Attachment',
			relatedType,
			field,
			file: `data:${type};base64,${bytes.toString('base64')}`,
		},
	});
	if (Number(attachment.size) !== bytes.length) {
		throw new NodeOperationError(
			item.node,
			`The server stored ${attachment.size ?? 'no'} bytes of the ${bytes.length} of "${name}" (item ${item.index})`,
			{
				itemIndex: item.index,
				description: `Nothing was sent. The incomplete attachment ${attachment.id} is left on the server.`,
			},
		);
	}
	return String(attachment.id);
}
