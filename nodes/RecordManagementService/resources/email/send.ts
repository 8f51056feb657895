import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { Run } from '../../shared/http/run';
import { runOf } from '../../shared/http/run';
import { binaryFilesOf, uploadAttachment } from '../../shared/operation/attachments';
import type { BinaryFile } from '../../shared/operation/attachments';
import { forEachItem } from '../../shared/operation/forEachItem';
import { dialectOf } from '../../shared/server/dialect';
import { asNodeError } from '../../shared/http/errors';
import type { Dialect } from '../../shared/server/dialect';
import type { Item } from '../../shared/item/item';
import { apiRequest } from '../../shared/http/request';

const show = { operation: ['send'] };

export const sendFields: INodeProperties[] = [
	{
		displayName: 'To',
		name: 'to',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'ada@example.com; grace@example.com',
		description:
			'Recipient addresses, separated by semicolons or commas (an expression may also return a list). An address with a display name, such as Grace Hopper &lt;grace@example.com&gt;, is sent as the address.',
		displayOptions: { show },
	},
	{
		displayName: 'Subject',
		name: 'subject',
		type: 'string',
		default: '',
		required: true,
		displayOptions: { show },
	},
	{
		displayName: 'Body',
		name: 'body',
		type: 'string',
		typeOptions: { rows: 6 },
		default: '',
		displayOptions: { show },
	},
	{
		displayName: 'Body Is HTML',
		name: 'isHtml',
		type: 'boolean',
		default: false,
		description:
			'Whether the body is HTML rather than plain text. EspoCRM 9 joins the lines of a plain-text e-mail when it sends it: use HTML for text on several lines there.',
		displayOptions: { show },
	},
	{
		displayName: 'From',
		name: 'from',
		type: 'string',
		default: '',
		placeholder: 'sales@example.com',
		description: 'Sender address. EspoCRM requires it.',
		displayOptions: { show },
	},
];

export const emailOptions: INodeProperties = {
	displayName: 'Options',
	name: 'emailOptions',
	type: 'collection',
	placeholder: 'Add Option',
	default: {},
	displayOptions: { show },
	options: [
		{
			displayName: 'Attachments (EspoCRM)',
			name: 'attachments',
			type: 'string',
			default: 'data',
			placeholder: 'data, invoice',
			hint: 'The names of binary fields of the input item, such as data, not file names or URLs. Needs "EspoCRM 7 or Later" as Server in the credential.',
			description:
				'Names of the binary fields of the input item whose files to attach, separated by commas. EspoCRM only: the interface as specified has no attachments.',
		},
		{
			displayName: 'BCC',
			name: 'bcc',
			type: 'string',
			default: '',
		},
		{
			displayName: 'CC',
			name: 'cc',
			type: 'string',
			default: '',
		},
		{
			displayName: 'Linked Record ID',
			name: 'parentId',
			type: 'string',
			default: '',
			description: 'ID of the record the e-mail belongs to',
		},
		{
			displayName: 'Linked Record Type',
			name: 'parentType',
			type: 'string',
			default: '',
			placeholder: 'Contact',
			description: 'Entity type of the record the e-mail belongs to',
		},
	],
};

/** A plain address: one @, a local part without spaces or separators, a domain of dot-separated labels. */
const ADDRESS =
	/^(?!\.)(?!.*\.\.)[^\s@;,<>()"]+(?<!\.)@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/;

/**
 * An address with a display name, as RFC 5322 writes it and mail programs copy it: `Ann <ann@example.org>` or
 * `"Doe, Ann" <ann@example.org>`. The name may not hold a line break, a control character, `<`, `>` or (unquoted) `"`:
 * nothing that could end a header or start another address.
 */
const NAMED_ADDRESS =
	/^(?:"((?:[^"\\\x00-\x1f\x7f]|\\[^\x00-\x1f\x7f])*)"|([^"<>\x00-\x1f\x7f]*?))\s*<([^<>\s]*)>$/;

/** One address as written, and what is sent: the plain address, and the name given with it (if any). */
interface Mailbox {
	address: string;
	name?: string;
	written: string;
}

/** Splits at `;` and `,`, except inside a quoted display name or inside `<…>`. */
function splitAddresses(text: string): string[] {
	const parts: string[] = [];
	let current = '';
	let quoted = false;
	let angle = false;
	for (let index = 0; index < text.length; index++) {
		const char = text[index];
		if (quoted && char === '\\') {
			current += char + (text[++index] ?? '');
			continue;
		}
		if (char === '"' && !angle) quoted = !quoted;
		else if (char === '<' && !quoted) angle = true;
		else if (char === '>' && !quoted) angle = false;
		if ((char === ';' || char === ',') && !quoted && !angle) {
			parts.push(current);
			current = '';
		} else current += char;
	}
	parts.push(current);
	return parts.map((part) => part.trim()).filter((part) => part !== '');
}

function mailboxOf(written: string): Mailbox | undefined {
	if (ADDRESS.test(written)) return { address: written, written };
	const named = NAMED_ADDRESS.exec(written);
	if (!named || !ADDRESS.test(named[3])) return undefined;
	const name = (named[1] !== undefined ? named[1].replace(/\\(.)/g, '$1') : named[2]).trim();
	return { address: named[3], ...(name ? { name } : {}), written };
}

/**
 * Addresses given separated by `;` or `,`, or as a list from an expression; each must be one, plain
 * (`ann@example.org`) or with a display name (`Ann <ann@example.org>`). EspoCRM takes only plain addresses in To, CC,
 * BCC and From (it names recipients after its own records): the address is what is sent.
 */
function mailboxesOf(item: Item, value: unknown, parameter: string): Mailbox[] {
	const written = ([] as unknown[])
		.concat(value ?? [])
		.flatMap((entry) => splitAddresses(String(entry)));
	const mailboxes: Mailbox[] = [];
	for (const entry of written) {
		const mailbox = mailboxOf(entry);
		if (!mailbox) {
			throw item.refuse(
				parameter,
				`has "${entry.replace(/[\r\n]+/g, ' ')}", which is not an e-mail address`,
				'Write addresses such as ada@example.com or Ada Lovelace <ada@example.com>, separated by semicolons.',
			);
		}
		mailboxes.push(mailbox);
	}
	return mailboxes;
}

function addressesOf(item: Item, value: unknown, parameter: string): string[] {
	return mailboxesOf(item, value, parameter).map((mailbox) => mailbox.address);
}

/** The binary fields named by the Attachments option; each must exist on the item. */
function attachmentsOf(
	run: Run<IExecuteFunctions>,
	item: Item,
	names: unknown,
	dialect: Dialect,
): BinaryFile[] {
	const files = binaryFilesOf(run, item, names, 'Attachments');
	if (files.length && dialect !== 'espocrm') {
		throw item.refuse(
			'Attachments',
			'needs the EspoCRM server: the interface as specified has no attachments',
			'Remove the Attachments option, or, if the server is EspoCRM, choose "EspoCRM 7 or Later" as Server in the credential.',
		);
	}
	return files;
}

/**
 * Checks every address and attachment first, uploads the attachments (EspoCRM), then POST /Email. EspoCRM sends only
 * an e-mail whose status is "Sending", needs a sender, and keeps the subject in the field `name`.
 */
export async function send(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const run = runOf(this);
	const dialect = await dialectOf(run);
	return await forEachItem(run, async (item) => {
		const options = item.parameter<IDataObject>('emailOptions', {});
		const to = addressesOf(item, item.parameter('to'), 'To');
		if (to.length === 0)
			throw item.refuse(
				'To',
				'has no address',
				'Give at least one recipient, such as ada@example.com.',
			);
		const [sender, ...more] = mailboxesOf(item, item.parameter('from', ''), 'From');
		if (more.length)
			throw item.refuse('From', 'has more than one address', 'An e-mail has one sender.');
		const from = sender?.address;
		if (dialect === 'espocrm' && !from)
			throw item.refuse('From', 'is empty', 'EspoCRM needs the sender address to send an e-mail.');
		const cc = addressesOf(item, options.cc, 'CC');
		const bcc = addressesOf(item, options.bcc, 'BCC');
		const attachments = attachmentsOf(run, item, options.attachments, dialect);
		const subject = item.parameter<string>('subject', '');

		const attachmentsIds: string[] = [];
		for (const attachment of attachments) {
			attachmentsIds.push(
				await uploadAttachment(run, item, attachment, {
					relatedType: 'Email',
					field: 'attachments',
				}),
			);
		}
		const email: IDataObject = {
			to: to.join(';'),
			subject,
			body: item.parameter('body', ''),
			isHtml: item.parameter('isHtml', false),
			...(from ? { from } : {}),
			// EspoCRM keeps the sender's name in fromString, shown with the e-mail (the name it sends is the user's or the
			// system's); a Standard server has no such field.
			...(sender?.name && dialect === 'espocrm'
				? { fromString: `${JSON.stringify(sender.name)} <${sender.address}>` }
				: {}),
			...(cc.length ? { cc: cc.join(';') } : {}),
			...(bcc.length ? { bcc: bcc.join(';') } : {}),
			...(options.parentType ? { parentType: options.parentType } : {}),
			...(options.parentId ? { parentId: options.parentId } : {}),
			...(dialect === 'espocrm' ? { name: subject, status: 'Sending' } : {}),
			...(attachmentsIds.length ? { attachmentsIds } : {}),
		};
		let sent: IDataObject;
		try {
			sent = await apiRequest(run, item.index, {
				method: 'POST',
				url: '/Email',
				body: email,
				expect: 'record',
			});
		} catch (error) {
			const nodeError = asNodeError(item.node, error, item.index);
			if (attachmentsIds.length) {
				nodeError.description =
					`${nodeError.description ?? ''} The attachments uploaded for it are left on the server: ${attachmentsIds.join(', ')}.`.trim();
			}
			throw nodeError;
		}
		return requireSent(item, sent);
	});
}

/** Says so when the server kept the e-mail without sending it, rather than reporting success. */
function requireSent(item: Item, email: IDataObject): IDataObject {
	if (typeof email.status === 'string' && email.status !== 'Sent' && email.status !== 'Sending') {
		throw new NodeOperationError(
			item.node,
			`The server stored the e-mail but did not send it (status "${email.status}", item ${item.index})`,
			{
				itemIndex: item.index,
				description: `The e-mail record ${email.id ?? ''} is kept on the server. Check the server's outgoing mail settings and the "Server" setting of the credential.`,
			},
		);
	}
	return email;
}
