/**
 * E-mail attachments from n8n binary data, and attachments downloaded as binary data (EspoCRM's), through n8n's
 * engine: the bytes that reach the sandbox are the bytes that went in, and Download returns them.
 */
import { randomBytes } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IBinaryData, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { RecordManagementService } from '../nodes/RecordManagementService/RecordManagementService.node';

import { useSandbox } from './harness/sandboxRun';

const bed = useSandbox();

const text = Buffer.from('Invoice 2026-0042\nTotal: 1,500.00 EUR\n', 'utf8');
const fiveMegabytes = randomBytes(5 * 1024 * 1024);

const files = {
	invoice: { base64: text.toString('base64'), fileName: 'invoice.txt', mimeType: 'text/plain' },
	scan: {
		base64: fiveMegabytes.toString('base64'),
		fileName: 'scan.bin',
		mimeType: 'application/octet-stream',
	},
};

const sendWith = (attachments: string) => ({
	resource: 'email',
	operation: 'send',
	to: 'ada@example.com',
	from: 'sales@example.com',
	subject: 'Your invoice',
	body: 'Attached.',
	emailOptions: { attachments },
});

beforeEach(() => {
	bed.sandbox.setDialect('espocrm');
	bed.use('apiKey', 'espocrm');
});

test('two files are uploaded as data URIs, then sent with the e-mail; the server holds every byte', async () => {
	const result = await bed.run(sendWith('invoice, scan'), [{ $binary: files }]);
	expect(result.error).toBeUndefined();
	const requests = bed.received('POST');
	expect(requests.map((request) => request.path)).toEqual(['/Attachment', '/Attachment', '/Email']);
	expect(requests[0].body).toMatchObject({
		name: 'invoice.txt',
		type: 'text/plain',
		role: 'Attachment',
		relatedType: 'Email',
		field: 'attachments',
		file: `data:text/plain;base64,${files.invoice.base64}`,
	});
	const email = requests[2].body;
	expect(email.attachmentsIds).toHaveLength(2);
	const [invoiceId, scanId] = email.attachmentsIds as string[];
	expect(bed.sandbox.store.files.get(invoiceId)?.equals(text)).toBe(true);
	expect(bed.sandbox.store.files.get(scanId)?.equals(fiveMegabytes)).toBe(true);
	expect(bed.sandbox.outbox[0].attachmentIds.sort()).toEqual([invoiceId, scanId].sort());
	expect(result.json[0]).toMatchObject({
		status: 'Sent',
		attachmentsIds: [invoiceId, scanId],
		hasAttachment: true,
	});
});

test('Download returns the same bytes as n8n binary data, with the file name and MIME type', async () => {
	const sent = await bed.run(sendWith('invoice, scan'), [{ $binary: files }]);
	const ids = sent.json[0].attachmentsIds as string[];
	const result = await bed.run(
		{
			resource: 'attachment',
			operation: 'download',
			attachmentId: '={{ $json.id }}',
			binaryPropertyName: 'file',
		},
		ids.map((id) => ({ id })),
	);
	expect(result.error).toBeUndefined();
	const binaries = result.items.map((item) => item.binary?.file as IBinaryData);
	expect(binaries.map((binary) => [binary.fileName, binary.mimeType])).toEqual([
		['invoice.txt', 'text/plain'],
		['scan.bin', 'application/octet-stream'],
	]);
	expect(Buffer.from(binaries[0].data, 'base64').equals(text)).toBe(true);
	expect(Buffer.from(binaries[1].data, 'base64').equals(fiveMegabytes)).toBe(true);
	expect(result.json[1]).toEqual({
		fileName: 'scan.bin',
		mimeType: 'application/octet-stream',
		fileSize: fiveMegabytes.length,
	});
	expect(bed.received('GET').map((request) => request.path)).toEqual(
		ids.map((id) => `/Attachment/file/${id}`),
	);
});

test('Download reads a non-ASCII file name as EspoCRM means it: its UTF-8 bytes, as they are, in filename="…"', async () => {
	const fileName = 'Grüße-Überblick 日本語 ✓.txt';
	const sent = await bed.run(sendWith('note'), [
		{ $binary: { note: { ...files.invoice, fileName } } },
	]);
	expect(sent.error).toBeUndefined();
	const [id] = sent.json[0].attachmentsIds as string[];
	expect(bed.sandbox.store.get('Attachment', id)?.name).toBe(fileName);
	const result = await bed.run({ resource: 'attachment', operation: 'download', attachmentId: id });
	expect(result.error).toBeUndefined();
	expect(result.json).toEqual([{ fileName, mimeType: 'text/plain', fileSize: text.length }]);
	expect(result.items[0].binary?.data).toMatchObject({
		fileName,
		mimeType: 'text/plain',
		fileExtension: 'txt',
	});
	expect(
		Buffer.from((result.items[0].binary?.data as IBinaryData).data, 'base64').equals(text),
	).toBe(true);
});

test.each([
	[
		'filename*= (RFC 5987) before the plain form',
		`attachment; filename="fallback.txt"; filename*=UTF-8''Gr%C3%BC%C3%9Fe%20%E2%9C%93.txt`,
		'Grüße ✓.txt',
	],
	[
		'a latin1 name that is not UTF-8 stays as sent',
		Buffer.from('attachment; filename="café.txt"', 'latin1'),
		'café.txt',
	],
	['an ASCII name', 'attachment; filename="plain.txt"', 'plain.txt'],
])('Download file names from other servers: %s', async (_, disposition, fileName) => {
	const server = http.createServer((request, response) => {
		request.resume();
		const header = typeof disposition === 'string' ? disposition : disposition.toString('latin1');
		response.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Disposition': header });
		response.end('x');
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	try {
		bed.use('apiKey', 'espocrm', {
			baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		});
		const result = await bed.run({
			resource: 'attachment',
			operation: 'download',
			attachmentId: 'att0000000000001',
		});
		expect(result.error).toBeUndefined();
		expect(result.json[0]).toMatchObject({ fileName });
	} finally {
		await new Promise((resolve) => server.close(resolve));
	}
});

test('a binary field the item does not have is named, with the item, before any request', async () => {
	const result = await bed.run(sendWith('invoice, contract'), [
		{ $binary: { invoice: files.invoice } },
	]);
	expect(result.error?.name).toBe('NodeOperationError');
	expect(result.error?.message).toBe(
		'The parameter "Attachments" names the binary field "contract", which the input item does not have (item 0)',
	);
	expect(result.error?.description).toContain('invoice');
	expect(bed.received()).toEqual([]);
});

test('with the Standard server the option says that the interface has no attachments, before any request', async () => {
	bed.sandbox.setDialect('standard');
	bed.use('apiKey', 'standard');
	const result = await bed.run(sendWith('invoice'), [{ $binary: { invoice: files.invoice } }]);
	expect(result.error?.message).toBe(
		'The parameter "Attachments" needs the EspoCRM server: the interface as specified has no attachments (item 0)',
	);
	expect(bed.received()).toEqual([]);
});

test('when the e-mail fails after the uploads, the error names the attachments left on the server', async () => {
	bed.sandbox.faults.emailSendingFails = true;
	const result = await bed.run(sendWith('invoice'), [{ $binary: { invoice: files.invoice } }]);
	const [upload] = bed.received('POST');
	expect(result.error?.name).toBe('NodeApiError');
	expect(result.error?.message).toContain('The e-mail was not sent');
	const [{ id: attachmentId }] = bed.sandbox.store.list('Attachment');
	expect(upload.path).toBe('/Attachment');
	expect(result.error?.description).toContain(
		`The attachments uploaded for it are left on the server: ${attachmentId}.`,
	);
});

test('a server that stores fewer bytes than were sent (as EspoCRM does with a file that is not a data URI) is an error', async () => {
	// A server of its own: it answers every upload with size 0, as EspoCRM does when it could not read the file.
	const server = http.createServer((request, response) => {
		request.resume();
		request.on('end', () => {
			response.writeHead(200, { 'Content-Type': 'application/json' });
			response.end(JSON.stringify({ id: 'att0000000000001', name: 'invoice.txt', size: 0 }));
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	try {
		bed.use('apiKey', 'espocrm', {
			baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		});
		const result = await bed.run(sendWith('invoice'), [{ $binary: { invoice: files.invoice } }]);
		expect(result.error?.message).toBe(
			`The server stored 0 bytes of the ${text.length} of "invoice.txt" (item 0)`,
		);
		expect(result.error?.description).toContain('att0000000000001');
	} finally {
		await new Promise((resolve) => server.close(resolve));
	}
});

test('the form says where the user looks that attachments need EspoCRM and take binary field names', () => {
	const { properties } = new RecordManagementService().description;
	const resource = properties.find((property) => property.name === 'resource');
	const attachmentResource = (resource?.options as INodePropertyOptions[]).find(
		(option) => option.value === 'attachment',
	);
	expect(attachmentResource?.name).toContain('EspoCRM');
	const notice = properties.find(
		(property) =>
			property.type === 'notice' &&
			property.name !== 'toolDescriptionNotice_attachment_download' &&
			property.displayOptions?.show?.operation?.includes('download'),
	);
	expect(notice?.displayName).toContain('EspoCRM 7 or Later');
	const emailOptions = properties.find((property) => property.name === 'emailOptions');
	const attachments = (emailOptions?.options as INodeProperties[]).find(
		(option) => option.name === 'attachments',
	);
	expect(attachments?.displayName).toBe('Attachments (EspoCRM)');
	expect(attachments?.hint).toMatch(/names of binary fields/);
	expect(attachments?.hint).toContain('binary fields');
});
