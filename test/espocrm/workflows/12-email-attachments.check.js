'use strict';
/**
 * E-mail attachments and Attachment > Download on the real EspoCRM (API key): a Code node makes two files (a
 * UTF-8 text and 5 MiB from a fixed sequence, so that this check can make the same bytes); Email > Send uploads
 * each (`POST /Attachment`, a data URI) and sends the e-mail with both; Attachment > Download gets each back; n8n's
 * Crypto node hashes the downloaded bytes. Checked: EspoCRM stores the bytes sent (its own file download, byte for
 * byte: EspoCRM stores a `file` that is not a data URI EMPTY, with 200), the e-mail is Sent with both attachments and
 * arrives with them, and the bytes n8n downloaded are the originals.
 */
const crypto = require('crypto');

const sha256 = (buffer) => crypto.createHash('sha256').update(buffer).digest('hex');

/** The bytes of the Code node "Make Files". */
function files() {
	const note = Buffer.from('Attachment test on EspoCRM: plain text, UTF-8 (äöü ✓), two lines.\nSecond line.\n', 'utf8');
	const blob = Buffer.alloc(5 * 1024 * 1024);
	let x = 12345;
	for (let i = 0; i < blob.length; i++) {
		x = (Math.imul(x, 1103515245) + 12345) >>> 0;
		blob[i] = x >>> 24;
	}
	return { 'note.txt': { bytes: note, type: 'text/plain' }, 'blob.bin': { bytes: blob, type: 'application/octet-stream' } };
}

/** The attachments of a MIME message as EspoCRM sends them: {file name: bytes} (names as RFC 2047 words, base64 bodies). */
function attachmentsOf(raw) {
	const found = {};
	const lines = raw.split(/\r?\n/);
	for (let i = 0; i < lines.length; i++) {
		const disposition = /^Content-Disposition: attachment; filename="(.*)"$/i.exec(lines[i]);
		if (!disposition) continue;
		const name = disposition[1].replace(/=\?utf-8\?B\?([^?]*)\?=/gi, (_w, b64) => Buffer.from(b64, 'base64').toString('utf8'));
		while (i < lines.length && lines[i] !== '') i++;
		const body = [];
		for (i++; i < lines.length && !lines[i].startsWith('--'); i++) body.push(lines[i]);
		found[name] = Buffer.from(body.join(''), 'base64');
	}
	return found;
}

module.exports = async (result, espo, assert) => {
	const made = files();

	// the e-mail: sent, with both attachments (EspoCRM lists them in an order of its own)
	const [sent] = result.items('Send With Attachments');
	assert.equal(sent.attachmentsIds.length, 2, 'the sent e-mail names two attachments');
	const email = await espo.api.ok('GET', `/Email/${sent.id}`);
	assert.equal(email.status, 'Sent');
	assert.deepEqual([...email.attachmentsIds].sort(), [...sent.attachmentsIds].sort());
	assert.deepEqual(sent.attachmentsIds.map((id) => email.attachmentsNames[id]).sort(), ['blob.bin', 'note.txt']);

	// EspoCRM holds the bytes sent, byte for byte
	for (const id of sent.attachmentsIds) {
		const attachment = await espo.api.ok('GET', `/Attachment/${id}`);
		const original = made[attachment.name];
		assert.ok(original, `attachment ${id} is named ${attachment.name}`);
		assert.equal(attachment.type, original.type);
		assert.equal(attachment.size, original.bytes.length, `${attachment.name}: the size EspoCRM reports`);
		const stored = await espo.api.get(`/Attachment/file/${id}`);
		assert.equal(stored.status, 200);
		assert.ok(stored.raw.equals(original.bytes), `${attachment.name}: EspoCRM's file is the bytes sent (${stored.raw.length} bytes)`);
	}

	// the mail arrived with both files
	assert.equal(espo.mail.length, 1, `the SMTP sink received ${espo.mail.length} message(s)`);
	const [mail] = espo.mail;
	assert.deepEqual(mail.to, ['files@espocrm.test']);
	assert.equal(mail.subject, 'Two files from n8n');
	const attached = attachmentsOf(mail.raw);
	assert.deepEqual(Object.keys(attached).sort(), ['blob.bin', 'note.txt'], 'the mail carries both files');
	for (const [name, bytes] of Object.entries(attached)) assert.ok(bytes.equals(made[name].bytes), `${name}: the bytes in the mail are the originals`);

	// downloaded through the node: the same bytes, names and types
	const downloads = espo.find('GET', /^\/Attachment\/file\//);
	// (what EspoCRM served during the execution: this check's own reads come after)
	assert.deepEqual(downloads.map((r) => `${r.status} ${r.path}`).sort(), sent.attachmentsIds.map((id) => `200 /Attachment/file/${id}`).sort());
	const downloaded = result.rawItems('Download Attachment');
	assert.deepEqual(
		downloaded.map(({ binary }) => [binary.file.fileName, binary.file.mimeType, binary.file.bytes]).sort(),
		Object.entries(made).map(([name, { bytes, type }]) => [name, type, bytes.length]).sort(),
		'the binary field "file" of each download: the file name, MIME type and size of an original',
	);
	const hashed = result.items('Hash Download');
	assert.equal(hashed.length, 2);
	for (const { fileName, mimeType, fileSize, sha256: hash } of hashed) {
		const original = made[fileName];
		assert.ok(original, `downloaded ${fileName}`);
		assert.deepEqual({ mimeType, fileSize, hash }, { mimeType: original.type, fileSize: original.bytes.length, hash: sha256(original.bytes) }, `${fileName}: the bytes n8n downloaded are the originals`);
	}
};
