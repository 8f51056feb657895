'use strict';
/**
 * Stream on the real EspoCRM (API key). Before the execution, admin writes 205 posts in the stream of a Contact
 * (EspoCRM adds its own "Create" note: 206 notes). The workflow: a Code node makes two files (a UTF-8 text with a
 * non-ASCII name, 5 MiB from a fixed sequence); Stream > Post uploads both (`POST /Attachment`, relatedType Note,
 * field attachments) and posts them with a text; Follow, twice; Get Many of the record's stream (Return All: past 200),
 * of its posts only (Limit 250), of its Create notes, and of the API user's own stream; admin creates a Document
 * Folder, which the API user's role may not read, and the API user posts to it (Continue on fail). The last node
 * outputs ids and counts only, no file.
 * Checked against EspoCRM's database (`note`, `attachment`, `subscription`), its stored files and its API.
 */
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const { pool } = require('../lib/helpers');

const ADMIN_POSTS = 205;

/** The bytes of the Code node "Make Files". */
function files() {
	const note = Buffer.from(
		'Überweisung erhalten: 1.500,00 € (März), two lines.\nSecond line ✓\n',
		'utf8',
	);
	const blob = Buffer.alloc(5 * 1024 * 1024);
	let x = 4242;
	for (let i = 0; i < blob.length; i++) {
		x = (Math.imul(x, 1103515245) + 12345) >>> 0;
		blob[i] = x >>> 24;
	}
	return {
		'Überweisung März №42.txt': { bytes: note, type: 'text/plain' },
		'blob.bin': { bytes: blob, type: 'application/octet-stream' },
	};
}

const sha256 = (buffer) => crypto.createHash('sha256').update(buffer).digest('hex');
const quote = (value) => `'${String(value).replace(/[^0-9a-zA-Z_-]/g, '')}'`;

module.exports = async (result, espo, assert) => {
	const made = files();
	const contactId = espo.state.contactId;
	const apiUserId = espo.keys.apiKey.id;
	const [summary] = result.items('Summary');

	// the post: the note EspoCRM created, as the node output it
	const [note] = result.items('Post With Files');
	assert.equal(note.type, 'Post');
	assert.equal(note.parentType, 'Contact');
	assert.equal(note.parentId, contactId);
	assert.equal(note.post, 'Invoice #123 **paid**: see the two files.');
	assert.equal(note.attachmentsIds.length, 2, 'the note names two attachments');
	assert.deepEqual(
		Object.values(note.attachmentsNames).sort(),
		Object.keys(made).sort(),
		'the file names, the non-ASCII one intact',
	);
	assert.deepEqual(summary.attachmentsIds, note.attachmentsIds);

	// in the database: the note in the contact's stream, written by the API user, with both files
	const [row] = await espo.query(
		`SELECT id, type, parent_type, parent_id, post, created_by_id, deleted FROM note WHERE id = ${quote(note.id)}`,
	);
	assert.deepEqual(row, {
		id: note.id,
		type: 'Post',
		parent_type: 'Contact',
		parent_id: contactId,
		post: 'Invoice #123 **paid**: see the two files.',
		created_by_id: apiUserId,
		deleted: '0',
	});
	const attachments = await espo.query(
		`SELECT id, name, type, size, role, field, parent_type, parent_id FROM attachment WHERE parent_id = ${quote(note.id)} AND deleted = 0`,
	);
	assert.equal(
		attachments.length,
		2,
		`the note's attachments in the database:\n${JSON.stringify(attachments)}`,
	);
	for (const attachment of attachments) {
		const original = made[attachment.name];
		assert.ok(original, `attachment ${attachment.id} is named ${attachment.name}`);
		assert.deepEqual(
			{
				type: attachment.type,
				size: Number(attachment.size),
				role: attachment.role,
				field: attachment.field,
				parent_type: attachment.parent_type,
			},
			{
				type: original.type,
				size: original.bytes.length,
				role: 'Attachment',
				field: 'attachments',
				parent_type: 'Note',
			},
		);
		const stored = fs.readFileSync(path.join(espo.tree, 'data', 'upload', attachment.id));
		assert.equal(
			sha256(stored),
			sha256(original.bytes),
			`${attachment.name}: the file EspoCRM stored is the bytes sent (${stored.length} bytes)`,
		);
	}
	const uploads = espo.find('POST', '/Attachment');
	assert.deepEqual(
		uploads.map((r) => r.status),
		[200, 200],
		'two uploads',
	);

	// Get Many: the whole stream, past 200, newest first, the post with its type and files
	const [{ count }] = await espo.query(
		`SELECT COUNT(*) AS count FROM note WHERE parent_type = 'Contact' AND parent_id = ${quote(contactId)} AND deleted = 0`,
	);
	assert.equal(
		Number(count),
		ADMIN_POSTS + 2,
		'the database: 205 posts of admin, ours, and the Create note',
	);
	const stream = result.items('Get Stream');
	assert.equal(stream.length, Number(count), `Return All gave ${stream.length} notes`);
	assert.equal(new Set(stream.map((n) => n.id)).size, stream.length, 'no note twice');
	assert.equal(stream[0].id, note.id, 'newest first: our post');
	assert.equal(stream[0].type, 'Post');
	assert.deepEqual([...stream[0].attachmentsIds].sort(), [...note.attachmentsIds].sort());
	assert.equal(stream[stream.length - 1].type, 'Create', "oldest: EspoCRM's Create note");
	const streamPages = espo.find('GET', `/Contact/${contactId}/stream`);
	const query = (r) => decodeURIComponent(r.rawQuery);
	const wholePages = streamPages.filter((r) => !/where/.test(query(r)));
	assert.deepEqual(
		wholePages.map((r) => r.status),
		[200, 200],
		`Return All: two pages:\n${wholePages.map((r) => query(r)).join('\n')}`,
	);
	assert.deepEqual(wholePages.map((r) => /offset=(\d+)/.exec(query(r))[1]).sort(), ['0', '200']);
	assert.ok(wholePages.every((r) => /maxSize=200/.test(query(r))));

	// only posts, Limit 250: two pages (200 + 50), every item a post
	const posts = result.items('Get Posts');
	assert.equal(posts.length, ADMIN_POSTS + 1);
	assert.ok(posts.every((n) => n.type === 'Post'));
	const postPages = streamPages.filter((r) => /where\[0\]\[value\]\[0\]=Post/.test(query(r)));
	assert.deepEqual(
		postPages.map((r) => [/offset=(\d+)/.exec(query(r))[1], /maxSize=(\d+)/.exec(query(r))[1]]),
		[
			['0', '200'],
			['200', '50'],
		],
	);
	const created = result.items('Get Create Notes');
	assert.deepEqual(
		created.map((n) => n.type),
		['Create'],
	);

	// Follow, twice: one row in `subscription`; the contact is in the API user's Followed list; its stream is the user's
	assert.deepEqual(
		espo.find('PUT', `/Contact/${contactId}/subscription`).map((r) => r.status),
		[200, 200],
	);
	assert.deepEqual(result.items('Follow'), [{ followed: true }]);
	assert.deepEqual(result.items('Follow Again'), [{ followed: true }]);
	// (admin, who created the contact and posted to it, follows it too: EspoCRM's preferences)
	const subscriptions = await espo.query(
		`SELECT id FROM ${espo.tables.subscription} WHERE entity_type = 'Contact' AND entity_id = ${quote(contactId)} AND user_id = ${quote(apiUserId)}`,
	);
	assert.equal(
		subscriptions.length,
		1,
		"one subscription row of the API user's, after two Follows",
	);
	const followed = await espo
		.client('apiKey')
		.ok('GET', '/Contact', { boolFilterList: ['followed'], select: 'id', maxSize: 200 });
	assert.ok(
		followed.list.some((c) => c.id === contactId),
		'the contact is in the list of the Followed filter (boolFilterList[]=followed)',
	);
	assert.equal(
		summary.userStreamFirst,
		note.id,
		"the API user's own stream starts with the post on the followed contact",
	);
	assert.match(espo.find('GET', '/Stream')[0].rawQuery, /maxSize=3/);

	// a post to a record the API user may not read: EspoCRM's 403, explained
	const [hidden] = result.rawItems('Post To Hidden Folder');
	const refusal = espo.find('POST', '/Note').filter((r) => r.status !== 200);
	assert.deepEqual(
		refusal.map((r) => [r.status, r.reason]),
		[[403, 'No create access.']],
	);
	assert.match(String(hidden.json.error), /denied access \(403\).*No create access/);
	assert.match(
		String(hidden.error && hidden.error.description),
		/Administration > Roles > DocumentFolder: Read and Stream/,
	);
	assert.equal(
		result.error('Post To Hidden Folder'),
		undefined,
		'Continue on fail: the node itself did not fail',
	);
};

module.exports.before = async (espo) => {
	const contact = await espo.api.ok('POST', '/Contact', {
		firstName: 'Stream',
		lastName: 'EspoStream',
	});
	espo.state.contactId = contact.id;
	await pool(
		Array.from({ length: ADMIN_POSTS }, (_, i) => i),
		4,
		(i) =>
			espo.api.ok('POST', '/Note', {
				type: 'Post',
				parentType: 'Contact',
				parentId: contact.id,
				post: `Admin post ${i}`,
			}),
	);
};
