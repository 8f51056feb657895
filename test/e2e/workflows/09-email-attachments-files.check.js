'use strict';
/**
 * E-mail attachments in the real n8n (EspoCRM dialect, API key): n8n's Read/Write Files from Disk node reads two
 * files that `before` wrote (a small UTF-8 text and 5 MiB of random bytes) into the binary fields `note` and `blob`;
 * Merge (by position) puts both on one item; Email > Send attaches both (`POST /Attachment` each, as a data URI,
 * then `POST /Email` with `attachmentsIds`); Split Out gives one item per attachment ID; Attachment > Download gets
 * each file back into the binary field `file`; n8n's Crypto node writes the SHA-256 of the downloaded bytes into
 * `sha256`. Checked: the bytes the sandbox stored are the files written, the mail sent carries both attachment IDs,
 * and the bytes n8n downloaded are the originals (SHA-256 and length).
 *
 * The files lie in the folder that n8n may read (`%E2E_FILES%` in the workflow, N8N_RESTRICT_FILE_ACCESS_TO in
 * test/e2e/run.js); n8n keeps binary data on disk (its default mode outside queue mode), so the run data printed by
 * `n8n execute` holds references, not the 5 MiB.
 */
const fs = require('fs');
const path = require('path');
const crypto = require('crypto');

const sha256 = (buffer) => crypto.createHash('sha256').update(buffer).digest('hex');

module.exports = (result, sandbox, assert) => {
	const { note, blob } = sandbox.state;
	for (const r of sandbox.requests)
		assert.equal(r.headers['x-api-key'], 'sandbox-api-key', `${r.method} ${r.path}: X-Api-Key`);

	// n8n read the files
	const [read] = result.rawItems('Both Files');
	assert.deepEqual(
		Object.entries(read.binary).map(([field, b]) => [field, b.fileName, b.mimeType]),
		[
			['note', 'note.txt', 'text/plain'],
			['blob', 'blob.bin', 'application/octet-stream'],
		],
	);

	// one e-mail, sent, with both attachments in the order the option names them
	const mails = sandbox.find('POST', '/Email');
	assert.equal(mails.length, 1);
	assert.equal(mails[0].body.status, 'Sending');
	assert.equal(mails[0].body.from, 'e2e@example.com');
	const ids = mails[0].body.attachmentsIds;
	assert.equal(ids.length, 2, 'POST /Email carries two attachment IDs');
	const [noteId, blobId] = ids;
	const [sent] = result.items('Send With Attachments');
	assert.equal(sent.status, 'Sent');
	const mail = sandbox.outbox.find((m) => m.emailId === sent.id);
	assert.ok(mail, 'the mail is in the outbox');
	assert.deepEqual([...mail.attachmentIds].sort(), [noteId, blobId].sort());
	assert.deepEqual(mail.to, ['files.e2e@example.com']);
	assert.equal(mail.subject, 'E2E two attachments');

	// two uploads before it, as data URIs, stored byte for byte
	const uploads = sandbox.find('POST', '/Attachment');
	assert.deepEqual(
		uploads.map((r) => r.status),
		[200, 200],
	);
	assert.ok(
		uploads.every((r) => r.startedAt < mails[0].startedAt),
		'uploaded before the e-mail was sent',
	);
	assert.deepEqual(
		uploads.map(({ body: { file, ...rest } }) => rest),
		[
			{
				name: 'note.txt',
				type: 'text/plain',
				role: 'Attachment',
				relatedType: 'Email',
				field: 'attachments',
			},
			{
				name: 'blob.bin',
				type: 'application/octet-stream',
				role: 'Attachment',
				relatedType: 'Email',
				field: 'attachments',
			},
		],
	);
	assert.ok(uploads[0].body.file.startsWith('data:text/plain;base64,'));
	assert.ok(uploads[1].body.file.startsWith('data:application/octet-stream;base64,'));
	assert.equal(sandbox.store.get('Attachment', noteId).name, 'note.txt');
	assert.equal(sandbox.store.get('Attachment', blobId).name, 'blob.bin');
	assert.ok(sandbox.store.files.get(noteId).equals(note), 'the sandbox stored the note as written');
	assert.ok(
		sandbox.store.files.get(blobId).equals(blob),
		'the sandbox stored the 5 MiB as written',
	);

	// both downloaded, and the bytes n8n holds are the originals
	const downloads = sandbox.find('GET', /^\/Attachment\/file\//);
	assert.deepEqual(
		downloads.map((r) => `${r.status} ${r.path}`).sort(),
		[`200 /Attachment/file/${noteId}`, `200 /Attachment/file/${blobId}`].sort(),
	);
	const hashed = result.items('Hash Download');
	assert.equal(hashed.length, 2);
	const got = Object.fromEntries(hashed.map((i) => [i.fileName, i]));
	assert.deepEqual(
		{
			fileSize: got['note.txt'].fileSize,
			mimeType: got['note.txt'].mimeType,
			sha256: got['note.txt'].sha256,
		},
		{ fileSize: note.length, mimeType: 'text/plain', sha256: sha256(note) },
	);
	assert.deepEqual(
		{
			fileSize: got['blob.bin'].fileSize,
			mimeType: got['blob.bin'].mimeType,
			sha256: got['blob.bin'].sha256,
		},
		{ fileSize: blob.length, mimeType: 'application/octet-stream', sha256: sha256(blob) },
	);
};

/** The two files, in the folder n8n may read from. */
module.exports.before = (sandbox) => {
	const note = Buffer.from(
		'Attachment test: plain text, UTF-8 (äöü ✓), two lines.\nSecond line.\n',
		'utf8',
	);
	const blob = crypto.randomBytes(5 * 1024 * 1024);
	fs.mkdirSync(sandbox.filesDir, { recursive: true });
	fs.writeFileSync(path.join(sandbox.filesDir, 'note.txt'), note);
	fs.writeFileSync(path.join(sandbox.filesDir, 'blob.bin'), blob);
	Object.assign(sandbox.state, { note, blob });
};
