'use strict';
/**
 * E-mail attachments and Attachment > Download on the real EspoCRM (API key): a Code node makes three files (a
 * UTF-8 text, 5 MiB from a fixed sequence, so that this check can make the same bytes, and a text whose file name is
 * not ASCII: EspoCRM sends it as raw UTF-8 bytes in `filename="…"`); Email > Send uploads each (`POST /Attachment`,
 * a data URI) and sends the e-mail with them; Attachment > Download gets each back, names included; n8n's
 * Crypto node hashes the downloaded bytes. Checked: EspoCRM stores the bytes sent (its own file download, byte for
 * byte: EspoCRM stores a `file` that is not a data URI EMPTY, with 200), the e-mail is Sent with both attachments and
 * arrives with them, and the bytes n8n downloaded are the originals.
 */
const crypto = require('crypto');

const sha256 = (buffer) => crypto.createHash('sha256').update(buffer).digest('hex');

const GREETING = 'Grüße-Überblick 日本語 ✓.txt';

/** The bytes of the Code node "Make Files". */
function files() {
	const note = Buffer.from(
		'Attachment test on EspoCRM: plain text, UTF-8 (äöü ✓), two lines.\nSecond line.\n',
		'utf8',
	);
	const blob = Buffer.alloc(5 * 1024 * 1024);
	let x = 12345;
	for (let i = 0; i < blob.length; i++) {
		x = (Math.imul(x, 1103515245) + 12345) >>> 0;
		blob[i] = x >>> 24;
	}
	return {
		'note.txt': { bytes: note, type: 'text/plain' },
		'blob.bin': { bytes: blob, type: 'application/octet-stream' },
		[GREETING]: { bytes: Buffer.from('Grüße\n', 'utf8'), type: 'text/plain' },
	};
}

/**
 * The attachments of a MIME message as EspoCRM 8.1.5 and 9.1.7 send them: {file name: bytes} (names as RFC 2047 words, base64
 * bodies). A name in another form (RFC 2231, folded) is listed as "?<n>", its bytes still compared.
 */
function attachmentsOf(raw) {
	const found = {};
	const lines = raw.split(/\r?\n/);
	let unnamed = 0;
	for (let i = 0; i < lines.length; i++) {
		if (!/^Content-Disposition: attachment/i.test(lines[i])) continue;
		// 8.1.5: `attachment; filename="…"`; 9.1.7: `attachment; name=…; filename=…` (a token when it needs no quotes)
		const disposition =
			/^Content-Disposition: attachment;.*\bfilename=(?:"(.*)"|([^";\s]+))$/i.exec(lines[i]);
		const name = disposition
			? (disposition[1] ?? disposition[2]).replace(/=\?utf-8\?B\?([^?]*)\?=/gi, (_w, b64) =>
					Buffer.from(b64, 'base64').toString('utf8'),
				)
			: `?${unnamed++}`;
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
	assert.equal(sent.attachmentsIds.length, 3, 'the sent e-mail names three attachments');
	const email = await espo.api.ok('GET', `/Email/${sent.id}`);
	assert.equal(email.status, 'Sent');
	assert.deepEqual([...email.attachmentsIds].sort(), [...sent.attachmentsIds].sort());
	assert.deepEqual(
		sent.attachmentsIds.map((id) => email.attachmentsNames[id]).sort(),
		Object.keys(made).sort(),
	);

	// EspoCRM holds the bytes sent, byte for byte
	for (const id of sent.attachmentsIds) {
		const attachment = await espo.api.ok('GET', `/Attachment/${id}`);
		const original = made[attachment.name];
		assert.ok(original, `attachment ${id} is named ${attachment.name}`);
		assert.equal(attachment.type, original.type);
		assert.equal(
			attachment.size,
			original.bytes.length,
			`${attachment.name}: the size EspoCRM reports`,
		);
		const stored = await espo.api.get(`/Attachment/file/${id}`);
		assert.equal(stored.status, 200);
		assert.ok(
			stored.raw.equals(original.bytes),
			`${attachment.name}: EspoCRM's file is the bytes sent (${stored.raw.length} bytes)`,
		);
	}

	// the mail arrived with both files
	assert.equal(espo.mail.length, 1, `the SMTP sink received ${espo.mail.length} message(s)`);
	const [mail] = espo.mail;
	assert.deepEqual(mail.to, ['files@espocrm.test']);
	assert.equal(mail.subject, 'Three files from n8n');
	const attached = attachmentsOf(mail.raw);
	assert.equal(
		Object.keys(attached).length,
		3,
		`the mail carries three files (${Object.keys(attached).join(', ')})`,
	);
	for (const name of ['blob.bin', 'note.txt'])
		assert.ok(attached[name], `the mail carries ${name}`);
	for (const [name, bytes] of Object.entries(attached)) {
		const original = made[name] || (name.startsWith('?') ? made[GREETING] : undefined);
		assert.ok(
			original && bytes.equals(original.bytes),
			`${name}: the bytes in the mail are the originals`,
		);
	}

	// downloaded through the node: the same bytes, names and types
	const downloads = espo.find('GET', /^\/Attachment\/file\//);
	// (what EspoCRM served during the execution: this check's own reads come after)
	assert.deepEqual(
		downloads.map((r) => `${r.status} ${r.path}`).sort(),
		sent.attachmentsIds.map((id) => `200 /Attachment/file/${id}`).sort(),
	);
	const downloaded = result.rawItems('Download Attachment');
	assert.deepEqual(
		downloaded
			.map(({ binary }) => [binary.file.fileName, binary.file.mimeType, binary.file.bytes])
			.sort(),
		Object.entries(made)
			.map(([name, { bytes, type }]) => [name, type, bytes.length])
			.sort(),
		'the binary field "file" of each download: the file name, MIME type and size of an original',
	);
	const hashed = result.items('Hash Download');
	assert.equal(hashed.length, 3);
	for (const { fileName, mimeType, fileSize, sha256: hash } of hashed) {
		const original = made[fileName];
		assert.ok(original, `downloaded ${fileName}`);
		assert.deepEqual(
			{ mimeType, fileSize, hash },
			{ mimeType: original.type, fileSize: original.bytes.length, hash: sha256(original.bytes) },
			`${fileName}: the bytes n8n downloaded are the originals`,
		);
	}
};
