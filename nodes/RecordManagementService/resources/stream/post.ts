import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { binaryFilesOf, uploadAttachment } from '../../shared/attachments';
import { forEachItem } from '../../shared/customOperations';
import { dialectOf, requireEspoCrm } from '../../shared/dialect';
import { asNodeError } from '../../shared/errors';
import { apiRequest } from '../../shared/transport';
import { entityTypeOf, recordIdOf } from '../../shared/validation';

const show = { resource: ['stream'], operation: ['post'] };

export const postFields: INodeProperties[] = [
	{
		displayName: 'Text',
		name: 'post',
		type: 'string',
		typeOptions: { rows: 4 },
		default: '',
		required: true,
		placeholder: 'Invoice #123 paid: **1,500.00 EUR**',
		description: "The text of the post, in the record's stream",
		hint: 'EspoCRM shows Markdown: **bold**, *italic*, ~~struck~~, `code`, [text](https://…), lists (- or 1.), > quotes, # headings. Each line break is kept; HTML shows as text. An address of a record of this CRM becomes a link to it.',
		displayOptions: { show },
	},
	{
		displayName: 'Options',
		name: 'postOptions',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show },
		options: [
			{
				displayName: 'Files',
				name: 'attachments',
				type: 'string',
				default: 'data',
				placeholder: 'data, invoice',
				description: 'Names of the binary fields of the input item whose files to attach to the post, separated by commas',
			},
			{
				displayName: 'Internal',
				name: 'isInternal',
				type: 'boolean',
				default: false,
				description:
					"Whether the post is internal: portal users do not see it. EspoCRM offers internal posts for the entity types with internal notes (Case, as installed); on others the flag is stored but changes nothing.",
			},
		],
	},
];

/**
 * Posts to a record's stream: checks the record and the files first, uploads the files as attachments of a note's
 * `attachments` field, then POST /Note with type "Post". Outputs the note EspoCRM created.
 */
export async function post(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const dialect = await dialectOf(this);
	return await forEachItem(this, async (item) => {
		requireEspoCrm(item, dialect, 'Stream > Post');
		const parentType = entityTypeOf(item);
		const parentId = recordIdOf(item);
		const text = item.parameter<unknown>('post', '');
		const options = item.parameter<IDataObject>('postOptions', {});
		const files = binaryFilesOf(this, item, options.attachments, 'Files');
		if ((typeof text !== 'string' || text.trim() === '') && files.length === 0) {
			throw item.refuse('Text', 'is empty', 'Write the text of the post, or attach files (option Files).');
		}

		const attachmentsIds: string[] = [];
		for (const file of files) {
			attachmentsIds.push(await uploadAttachment(this, item, file, { relatedType: 'Note', field: 'attachments' }));
		}
		const note: IDataObject = {
			type: 'Post',
			parentType,
			parentId,
			post: typeof text === 'string' ? text : String(text),
			...(attachmentsIds.length ? { attachmentsIds } : {}),
			...(options.isInternal === true ? { isInternal: true } : {}),
		};
		try {
			return await apiRequest(this, item.index, { method: 'POST', url: '/Note', body: note, expect: 'record' });
		} catch (error) {
			const nodeError = asNodeError(item.node, error, item.index);
			const status = nodeError instanceof NodeApiError ? Number(nodeError.httpCode) : undefined;
			const explanations = [
				status === 403
					? `EspoCRM lets the API user post only to records it may read and whose stream its role allows (Administration > Roles > ${parentType}: Read and Stream).`
					: '',
				attachmentsIds.length ? `The files uploaded for the post are left on the server: ${attachmentsIds.join(', ')}.` : '',
			].filter(Boolean);
			if (explanations.length) nodeError.description = [nodeError.description ?? '', ...explanations].join(' ').trim();
			throw nodeError;
		}
	});
}
