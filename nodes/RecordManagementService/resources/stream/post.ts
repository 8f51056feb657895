import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { runOf } from '../../shared/http/run';
import { binaryFilesOf, uploadAttachment } from '../../shared/operation/attachments';
import { forEachItem } from '../../shared/operation/forEachItem';
import { dialectOf, requireEspoCrm } from '../../shared/server/dialect';
import { asNodeError } from '../../shared/http/errors';
import { readFailure } from '../../shared/http/failure';
import type { Item } from '../../shared/item/item';
import { pathOf } from '../../shared/item/paths';
import { apiRequest } from '../../shared/http/request';
import { entityTypeOf, recordIdOf } from '../../shared/item/validation';
import { requireStream } from './streamScopes';

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
				description:
					'Names of the binary fields of the input item whose files to attach to the post, separated by commas',
			},
			{
				displayName: 'Internal',
				name: 'isInternal',
				type: 'boolean',
				default: false,
				description:
					'Whether the post is internal: portal users do not see it. EspoCRM offers internal posts for the entity types with internal notes (Case, as installed); on others the flag is stored but changes nothing.',
			},
		],
	},
];

/** Whether the record a post was refused for exists and the API user may read it: 200, 403 or 404 to a read. */
async function parentReadStatus(
	item: Item,
	entityType: string,
	recordId: string,
): Promise<number | undefined> {
	try {
		await apiRequest(item.run, item.index, {
			method: 'GET',
			url: pathOf(item, '/{entityType}/{recordId}', { entityType, recordId }),
			expect: 'record',
		});
		return 200;
	} catch (error) {
		return readFailure(error).status;
	}
}

/**
 * A failed post, explained. EspoCRM 8.1.5 answers 403 "No create access." both to a post to a record that does not
 * exist and to one the API user's role does not allow (Classes/Acl/Note/AccessChecker::checkEntityCreate), where
 * Follow and Get Many of the same record say 404: after a 403 the record is read, to tell which it is.
 */
async function explainedFailure(
	item: Item,
	error: unknown,
	parent: { type: string; id: string },
	attachmentsIds: string[],
) {
	let failure = asNodeError(item.node, error, item.index);
	const explanations: string[] = [];
	if (failure instanceof NodeApiError && failure.httpCode === '403') {
		const status = await parentReadStatus(item, parent.type, parent.id);
		if (status === 404) {
			const reason = String(failure.errorResponse?.reason ?? '');
			const message = `The ${parent.type} record "${parent.id}" does not exist (404)`;
			failure = new NodeApiError(item.node, { message, httpCode: '404' } as JsonObject, {
				message,
				description: `EspoCRM answered the post with 403${reason ? ` "${reason}"` : ''}, as it answers a post to a record that does not exist; reading the record answered 404. Check the record ID and the entity type.`,
				httpCode: '404',
				itemIndex: item.index,
			});
		} else if (status === 200) {
			explanations.push(
				`The API user may read the record, but its role does not allow the stream of ${parent.type} records (Administration > Roles > ${parent.type}: Stream).`,
			);
		} else {
			explanations.push(
				`EspoCRM lets the API user post only to records it may read and whose stream its role allows (Administration > Roles > ${parent.type}: Read and Stream).`,
			);
		}
	}
	if (attachmentsIds.length)
		explanations.push(
			`The files uploaded for the post are left on the server: ${attachmentsIds.join(', ')}.`,
		);
	if (explanations.length)
		failure.description = [failure.description ?? '', ...explanations].join(' ').trim();
	return failure;
}

/**
 * Posts to a record's stream: checks the record, its type (one with a stream) and the files first, uploads the files
 * as attachments of a note's `attachments` field, then POST /Note with type "Post". Outputs the note EspoCRM created.
 */
export async function post(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const run = runOf(this);
	const dialect = await dialectOf(run);
	return await forEachItem(run, async (item) => {
		requireEspoCrm(item, dialect, 'Stream > Post');
		const parentType = entityTypeOf(item);
		const parentId = recordIdOf(item);
		const text = item.parameter<unknown>('post', '');
		const options = item.parameter<IDataObject>('postOptions', {});
		const files = binaryFilesOf(run, item, options.attachments, 'Files');
		if ((typeof text !== 'string' || text.trim() === '') && files.length === 0) {
			throw item.refuse(
				'Text',
				'is empty',
				'Write the text of the post, or attach files (option Files).',
			);
		}
		await requireStream(item, parentType, 'post');

		const attachmentsIds: string[] = [];
		for (const file of files) {
			attachmentsIds.push(
				await uploadAttachment(run, item, file, { relatedType: 'Note', field: 'attachments' }),
			);
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
			return await apiRequest(run, item.index, {
				method: 'POST',
				url: '/Note',
				body: note,
				expect: 'record',
			});
		} catch (error) {
			throw await explainedFailure(item, error, { type: parentType, id: parentId }, attachmentsIds);
		}
	});
}
