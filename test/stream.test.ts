/**
 * Stream (EspoCRM): posts with files, a record's stream and the API user's own, following and unfollowing records,
 * through n8n's engine against the sandbox in the EspoCRM dialect; the Standard server is refused before any request.
 */
import { randomBytes } from 'node:crypto';
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { RecordManagementService } from '../nodes/RecordManagementService/RecordManagementService.node';

import type { RunResult } from './harness/engine';
import { useSandbox } from './harness/sandboxRun';
import { SANDBOX_USERS } from './sandbox';

const bed = useSandbox();

const byId = (value: string) => ({ __rl: true, mode: 'id', value });
const byUrl = (value: string) => ({ __rl: true, mode: 'url', value });
const paths = (requests: Array<{ method: string; path: string }>) =>
	requests.map((request) => `${request.method} ${request.path}`);

const receipt = Buffer.from('Receipt №123 — paid\n', 'utf8');
const scan = randomBytes(300 * 1024);
const files = {
	receipt: {
		base64: receipt.toString('base64'),
		fileName: 'Quittung-Müller.txt',
		mimeType: 'text/plain',
	},
	scan: { base64: scan.toString('base64'), fileName: 'scan.pdf', mimeType: 'application/pdf' },
};

const contact = () =>
	bed.sandbox.store.create('Contact', { firstName: 'Ada', lastName: 'Lovelace' });

beforeEach(() => {
	bed.sandbox.setDialect('espocrm');
	bed.use('apiKey', 'espocrm');
});

describe('Post', () => {
	test('two binary files are uploaded as attachments of a note, then posted with the text; the note comes out', async () => {
		const { id } = contact();
		const result = await bed.run(
			{
				resource: 'stream',
				operation: 'post',
				entityType: 'Contact',
				recordId: byUrl(`https://crm.example.com/#Contact/view/${id}`),
				post: 'Invoice #123 **paid**',
				postOptions: { attachments: 'receipt, scan' },
			},
			[{ $binary: files }],
		);
		expect(result.error).toBeUndefined();

		const requests = bed.received();
		expect(paths(requests)).toEqual(['POST /Attachment', 'POST /Attachment', 'POST /Note']);
		expect(requests[0].body).toMatchObject({
			name: 'Quittung-Müller.txt',
			type: 'text/plain',
			role: 'Attachment',
			relatedType: 'Note',
			field: 'attachments',
			file: `data:text/plain;base64,${files.receipt.base64}`,
		});
		const note = requests[2].body as IDataObject;
		const attachmentsIds = note.attachmentsIds as string[];
		expect(note).toEqual({
			type: 'Post',
			parentType: 'Contact',
			parentId: id,
			post: 'Invoice #123 **paid**',
			attachmentsIds,
		});
		expect(attachmentsIds).toHaveLength(2);
		expect(bed.sandbox.store.files.get(attachmentsIds[0])?.equals(receipt)).toBe(true);
		expect(bed.sandbox.store.files.get(attachmentsIds[1])?.equals(scan)).toBe(true);

		expect(result.json).toHaveLength(1);
		expect(result.json[0]).toMatchObject({
			type: 'Post',
			parentType: 'Contact',
			parentId: id,
			post: 'Invoice #123 **paid**',
			attachmentsIds,
			attachmentsNames: {
				[attachmentsIds[0]]: 'Quittung-Müller.txt',
				[attachmentsIds[1]]: 'scan.pdf',
			},
			createdById: SANDBOX_USERS.apiKey.id,
		});
		expect(result.items[0].pairedItem).toEqual({ item: 0 });
		expect(bed.sandbox.streams.notes.map((stored) => stored.id)).toEqual([result.json[0].id]);
	});

	test('Internal is sent only when on; a post without files sends no attachments', async () => {
		const { id } = contact();
		const result = await bed.run(
			{
				resource: 'stream',
				operation: 'post',
				entityType: 'Contact',
				recordId: byId(id),
				post: 'For the team only',
				postOptions: { isInternal: true },
			},
			[{}],
		);
		expect(result.error).toBeUndefined();
		// The Files option is not added: no binary field is read.
		expect(bed.received().map((request) => [request.path, request.body])).toEqual([
			[
				'/Note',
				{
					type: 'Post',
					parentType: 'Contact',
					parentId: id,
					post: 'For the team only',
					isInternal: true,
				},
			],
		]);
		expect(result.json[0]).toMatchObject({ isInternal: true });
	});

	test('a binary field the item does not have, or an empty text, is refused before any request', async () => {
		const { id } = contact();
		const base = {
			resource: 'stream',
			operation: 'post',
			entityType: 'Contact',
			recordId: byId(id),
		};
		const missing = await bed.run(
			{ ...base, post: 'x', postOptions: { attachments: 'contract' } },
			[{ $binary: { receipt: files.receipt } }],
		);
		expect(missing.error?.message).toBe(
			'The parameter "Files" names the binary field "contract", which the input item does not have (item 0)',
		);
		const empty = await bed.run({ ...base, post: '  ' });
		expect(empty.error?.message).toBe('The parameter "Text" is empty (item 0)');
		expect(bed.received()).toEqual([]);
	});

	test("a record the API user may not read: EspoCRM's 403, explained after reading the record (403 too)", async () => {
		bed.sandbox.setRestrictedScopes(['Account']);
		const account = bed.sandbox.store.create('Account', { name: 'Hidden' });
		const result = await bed.run({
			resource: 'stream',
			operation: 'post',
			entityType: 'Account',
			recordId: byId(account.id),
			post: 'x',
		});
		expect(result.error?.name).toBe('NodeApiError');
		expect(result.error?.message).toContain('(403)');
		expect(result.error?.description).toContain(
			'Administration > Roles > Account: Read and Stream',
		);
		expect(paths(bed.received())).toEqual(['POST /Note', `GET /Account/${account.id}`]);
	});

	test("a record the API user may read, whose stream its role does not allow: EspoCRM's 403, explained as the role's Stream", async () => {
		const { id } = contact();
		bed.sandbox.setNoStreamScopes(['Contact']);
		const result = await bed.run({
			resource: 'stream',
			operation: 'post',
			entityType: 'Contact',
			recordId: byId(id),
			post: 'x',
		});
		expect(result.error?.message).toBe('The server denied access (403): No create access.');
		expect(result.error?.description).toContain(
			'The API user may read the record, but its role does not allow the stream of Contact records (Administration > Roles > Contact: Stream).',
		);
		expect(
			bed.received().map((request) => [`${request.method} ${request.path}`, request.status]),
		).toEqual([
			['POST /Note', 403],
			[`GET /Contact/${id}`, 200],
		]);
	});

	test('a record that does not exist: EspoCRM\'s 403 "No create access." told apart by reading it (404), naming its ID', async () => {
		const result = await bed.run({
			resource: 'stream',
			operation: 'post',
			entityType: 'Contact',
			recordId: byId('6b0000000000dead1'),
			post: 'x',
		});
		expect(result.error?.name).toBe('NodeApiError');
		expect(result.error?.message).toBe(
			'The Contact record "6b0000000000dead1" does not exist (404)',
		);
		expect(result.error?.httpCode).toBe('404');
		expect(result.error?.description).toBe(
			'EspoCRM answered the post with 403 "No create access.", as it answers a post to a record that does not exist; reading the record answered 404. Check the record ID and the entity type.',
		);
		expect(
			bed.received().map((request) => [`${request.method} ${request.path}`, request.status]),
		).toEqual([
			['POST /Note', 403],
			['GET /Contact/6b0000000000dead1', 404],
		]);
		expect(bed.sandbox.streams.notes).toEqual([]);
	});

	test('an entity type without a stream (Call) is refused before any request of its item; the metadata is read once for the run', async () => {
		const { id } = contact();
		const call = bed.sandbox.store.create('Call', {
			name: 'Kick-off',
			dateStart: '2026-11-28 10:00:00',
			dateEnd: '2026-11-28 10:30:00',
		});
		const result = await bed.run(
			{
				resource: 'stream',
				operation: 'post',
				entityType: '={{ $json.type }}',
				recordId: byId('={{ $json.id }}'),
				post: 'Agreed',
			},
			[
				{ type: 'Contact', id },
				{ type: 'Call', id: call.id },
				{ type: 'Contact', id },
				{ type: 'Call', id: call.id },
			],
			{ onError: 'continueRegularOutput', typeVersion: 1.1 },
		);
		expect(result.json[0]).toMatchObject({ parentType: 'Contact', parentId: id });
		const refusal = result.items[1].error as RunResult['error'];
		expect(refusal?.message).toBe(
			'The parameter "Entity Type" is Call, whose records have no stream in EspoCRM (item 1)',
		);
		expect((result.items[3].error as RunResult['error'])?.message).toBe(
			'The parameter "Entity Type" is Call, whose records have no stream in EspoCRM (item 3)',
		);
		expect(refusal?.description).toBe(
			"EspoCRM would store the post, but shows it nowhere: the records of this type have no Stream panel. The entity types with a stream on this server: Account, CProject, Contact, Lead, Meeting, Opportunity, Task. An administrator can turn a type's stream on in Administration > Entity Manager > Call > Edit > Stream.",
		);
		expect(result.json[2]).toMatchObject({ parentType: 'Contact', parentId: id });
		expect(paths(bed.received()).sort()).toEqual(['GET /Metadata', 'POST /Note', 'POST /Note']);
		expect(bed.sandbox.streams.notes.map((note) => note.parentType)).toEqual([
			'Contact',
			'Contact',
		]);
	});

	test('version 1 (saved workflows) posts to and follows a type without a stream as it did, without reading the metadata', async () => {
		const call = bed.sandbox.store.create('Call', {
			name: 'Kick-off',
			dateStart: '2026-11-28 10:00:00',
			dateEnd: '2026-11-28 10:30:00',
		});
		const posted = await bed.run({
			resource: 'stream',
			operation: 'post',
			entityType: 'Call',
			recordId: byId(call.id),
			post: 'x',
		});
		expect(posted.error).toBeUndefined();
		expect(posted.json[0]).toMatchObject({ parentType: 'Call', parentId: call.id });
		const followed = await bed.run({
			resource: 'stream',
			operation: 'follow',
			entityType: 'Call',
			recordId: byId(call.id),
		});
		expect(followed.json).toEqual([{ followed: true }]);
		expect(paths(bed.received())).toEqual(['POST /Note', `PUT /Call/${call.id}/subscription`]);
	});

	test('metadata that cannot be read leaves the check to the server: the post is sent', async () => {
		const call = bed.sandbox.store.create('Call', {
			name: 'Kick-off',
			dateStart: '2026-11-28 10:00:00',
			dateEnd: '2026-11-28 10:30:00',
		});
		bed.sandbox.faults.failNext({ status: 500, pathPrefix: '/Metadata' });
		const result = await bed.run(
			{
				resource: 'stream',
				operation: 'post',
				entityType: 'Call',
				recordId: byId(call.id),
				post: 'x',
			},
			[{}],
			{ typeVersion: 1.1 },
		);
		expect(result.error).toBeUndefined();
		expect(
			bed.received().map((request) => [`${request.method} ${request.path}`, request.status]),
		).toEqual([
			['GET /Metadata', 500],
			['POST /Note', 200],
		]);
	});

	test('the types with a stream in EspoCRM as installed (Contact…) are not checked: their posts cost one request', async () => {
		const { id } = contact();
		const lead = bed.sandbox.store.create('Lead', { lastName: 'Lead' });
		const result = await bed.run(
			{
				resource: 'stream',
				operation: 'post',
				entityType: '={{ $json.type }}',
				recordId: byId('={{ $json.id }}'),
				post: 'x',
			},
			[
				{ type: 'Contact', id },
				{ type: 'Lead', id: lead.id },
			],
		);
		expect(result.error).toBeUndefined();
		expect(paths(bed.received())).toEqual(['POST /Note', 'POST /Note']);
	});
});

describe('Get Many', () => {
	function streamOf(id: string, count: number, type = 'Post') {
		return Array.from({ length: count }, (_, i) =>
			bed.sandbox.streams.add({ type, parentType: 'Contact', parentId: id, post: `Note ${i}` }),
		);
	}

	test("Return All pages a record's stream past 200 notes, newest first, each note once", async () => {
		const { id } = contact();
		const notes = streamOf(id, 450);
		const result = await bed.run({
			resource: 'stream',
			operation: 'getStream',
			entityType: 'Contact',
			recordId: byId(id),
			returnAll: true,
		});
		expect(result.error).toBeUndefined();
		expect(result.json.map((note) => note.id)).toEqual(notes.map((note) => note.id).reverse());
		const requests = bed.received();
		expect(paths(requests)).toEqual(Array.from({ length: 3 }, () => `GET /Contact/${id}/stream`));
		expect(requests.map((request) => [request.query.offset, request.query.maxSize]).sort()).toEqual(
			[
				['0', '200'],
				['200', '200'],
				['400', '200'],
			],
		);
		expect(
			result.items.every(
				(item, index) => (item.pairedItem as { item: number }).item === 0 && index >= 0,
			),
		).toBe(true);
	});

	test('a Limit of 250 is two requests', async () => {
		const { id } = contact();
		streamOf(id, 300);
		const result = await bed.run({
			resource: 'stream',
			operation: 'getStream',
			entityType: 'Contact',
			recordId: byId(id),
			limit: 250,
		});
		expect(result.json).toHaveLength(250);
		expect(bed.received().map((request) => [request.query.offset, request.query.maxSize])).toEqual([
			['0', '200'],
			['200', '50'],
		]);
	});

	test('Note Types filters with a where on type', async () => {
		const { id } = contact();
		bed.sandbox.streams.add({ type: 'Create', parentType: 'Contact', parentId: id });
		const [post] = streamOf(id, 1);
		bed.sandbox.streams.add({
			type: 'Status',
			parentType: 'Contact',
			parentId: id,
			data: { value: 'Assigned' },
		});
		bed.sandbox.streams.add({ type: 'Update', parentType: 'Contact', parentId: id });
		const result = await bed.run({
			resource: 'stream',
			operation: 'getStream',
			entityType: 'Contact',
			recordId: byId(id),
			returnAll: true,
			streamOptions: { noteTypes: ['Post', 'Status'] },
		});
		expect(result.json.map((note) => note.type)).toEqual(['Status', 'Post']);
		expect(result.json[1].id).toBe(post.id);
		const [request] = bed.received();
		expect(request.query.where).toEqual([
			{ type: 'in', attribute: 'type', value: ['Post', 'Status'] },
		]);
	});

	test("the API user's own stream (GET /Stream, no total) is read page after page", async () => {
		const followed = contact();
		const other = bed.sandbox.store.create('Contact', { firstName: 'Not', lastName: 'Followed' });
		await bed.run({
			resource: 'stream',
			operation: 'follow',
			entityType: 'Contact',
			recordId: byId(followed.id),
		});
		const notes = streamOf(followed.id, 210);
		streamOf(other.id, 5);
		bed.sandbox.clearRequests();
		const result = await bed.run({
			resource: 'stream',
			operation: 'getStream',
			streamOf: 'user',
			returnAll: true,
		});
		expect(result.error).toBeUndefined();
		expect(result.json.map((note) => note.id)).toEqual(notes.map((note) => note.id).reverse());
		expect(
			bed.received().map((request) => [request.path, request.query.offset, request.query.maxSize]),
		).toEqual([
			['/Stream', '0', '200'],
			['/Stream', '200', '200'],
		]);
	});
});

describe('Follow and Unfollow', () => {
	test('Follow of a record whose type has no stream (Call) is refused, which EspoCRM answers true and records nothing; Unfollow is sent', async () => {
		const call = bed.sandbox.store.create('Call', {
			name: 'Kick-off',
			dateStart: '2026-11-28 10:00:00',
			dateEnd: '2026-11-28 10:30:00',
		});
		const { id } = contact();
		const follow = {
			resource: 'stream',
			operation: 'follow',
			entityType: '={{ $json.type }}',
			recordId: byId('={{ $json.id }}'),
		};
		const items = [
			{ type: 'Call', id: call.id },
			{ type: 'Contact', id },
			{ type: 'Call', id: call.id },
		];
		const followed = await bed.run(follow, items, {
			onError: 'continueRegularOutput',
			typeVersion: 1.1,
		});
		for (const index of [0, 2]) {
			const error = followed.items[index].error as RunResult['error'];
			expect(error?.message).toBe(
				`The parameter "Entity Type" is Call, whose records have no stream in EspoCRM (item ${index})`,
			);
			expect(error?.description).toMatch(
				/^EspoCRM would answer that the record is followed, and record nothing\. The entity types with a stream on this server: Account, /,
			);
		}
		expect(followed.json[1]).toEqual({ followed: true });
		expect(paths(bed.received()).sort()).toEqual([
			'GET /Metadata',
			`PUT /Contact/${id}/subscription`,
		]);

		bed.sandbox.clearRequests();
		const unfollowed = await bed.run({ ...follow, operation: 'unfollow' }, items.slice(0, 1));
		expect(unfollowed.json).toEqual([{ followed: false }]);
		expect(paths(bed.received())).toEqual([`DELETE /Call/${call.id}/subscription`]);
	});

	test('following twice is not an error; the record is followed once; unfollowing twice neither', async () => {
		const { id } = contact();
		const follow = {
			resource: 'stream',
			operation: 'follow',
			entityType: 'Contact',
			recordId: byId(id),
		};
		const followed = await bed.run(follow, [{}, {}]);
		expect(followed.error).toBeUndefined();
		expect(followed.json).toEqual([{ followed: true }, { followed: true }]);
		expect(paths(bed.received())).toEqual([
			`PUT /Contact/${id}/subscription`,
			`PUT /Contact/${id}/subscription`,
		]);
		expect(bed.sandbox.store.get('Contact', id)).toMatchObject({
			isFollowed: false,
			followersIds: [SANDBOX_USERS.apiKey.id],
		});

		bed.sandbox.clearRequests();
		const unfollowed = await bed.run({ ...follow, operation: 'unfollow' }, [{}, {}]);
		expect(unfollowed.json).toEqual([{ followed: false }, { followed: false }]);
		expect(paths(bed.received())).toEqual([
			`DELETE /Contact/${id}/subscription`,
			`DELETE /Contact/${id}/subscription`,
		]);
		expect(bed.sandbox.store.get('Contact', id)?.followersIds).toEqual([]);
	});
});

describe('on a Standard server', () => {
	beforeEach(() => {
		bed.sandbox.setDialect('standard');
		bed.use('apiKey', 'standard');
	});

	test.each([
		['Post', { operation: 'post', post: 'x' }, 'Stream > Post needs the EspoCRM server (item 0)'],
		['Get Many', { operation: 'getStream' }, 'Stream > Get Many needs the EspoCRM server (item 0)'],
		['Follow', { operation: 'follow' }, 'Stream needs the EspoCRM server (item 0)'],
		['Unfollow', { operation: 'unfollow' }, 'Stream needs the EspoCRM server (item 0)'],
	])(
		'%s is refused before any request, saying it needs EspoCRM',
		async (_name, parameters, message) => {
			const { id } = contact();
			const result = await bed.run({
				resource: 'stream',
				entityType: 'Contact',
				recordId: byId(id),
				...parameters,
			});
			expect(result.error?.message).toBe(message);
			expect(result.error?.description).toContain('EspoCRM 7 or Later');
			expect(bed.received()).toEqual([]);
		},
	);
});

test('with Continue on fail, an item whose post fails carries its error and the others are posted', async () => {
	const { id } = contact();
	const result = await bed.run(
		{
			resource: 'stream',
			operation: 'post',
			entityType: 'Contact',
			recordId: byId('={{ $json.id }}'),
			post: '={{ $json.text }}',
		},
		[
			{ id, text: 'first' },
			{ id: 'no-such-record', text: 'second' },
			{ id, text: '' },
			{ id, text: 'fourth' },
		],
		{ onError: 'continueRegularOutput' },
	);
	expect(result.items).toHaveLength(4);
	expect(result.json[0]).toMatchObject({ post: 'first', parentId: id });
	expect((result.items[1].error as RunResult['error'])?.message).toBe(
		'The Contact record "no-such-record" does not exist (404)',
	);
	expect((result.items[2].error as RunResult['error'])?.message).toBe(
		'The parameter "Text" is empty (item 2)',
	);
	expect(result.json[3]).toMatchObject({ post: 'fourth', parentId: id });
	expect(result.items.map((item) => item.pairedItem)).toEqual(
		[0, 1, 2, 3].map((item) => ({ item })),
	);
	expect(paths(bed.received()).sort()).toEqual([
		'GET /Contact/no-such-record',
		'POST /Note',
		'POST /Note',
		'POST /Note',
	]);
});

test("the form: the user's own stream has no entity type or record; a record's stream and the other operations have them", () => {
	const { description } = new RecordManagementService();
	const shown = (parameters: IDataObject) => {
		const values = NodeHelpers.getNodeParameters(
			description.properties,
			parameters as INodeParameters,
			true,
			false,
			null,
			description,
		);
		return Object.keys(values ?? {});
	};
	expect(shown({ resource: 'stream', operation: 'getStream', streamOf: 'user' })).not.toContain(
		'entityType',
	);
	expect(shown({ resource: 'stream', operation: 'getStream', streamOf: 'user' })).not.toContain(
		'recordId',
	);
	for (const operation of ['post', 'getStream', 'follow', 'unfollow']) {
		expect(shown({ resource: 'stream', operation })).toEqual(
			expect.arrayContaining(['entityType', 'recordId']),
		);
	}
	// Record > Get Many shows neither the record nor the stream's parameters.
	const getMany = shown({ resource: 'record', operation: 'getMany' });
	expect(getMany).toContain('entityType');
	expect(getMany).not.toContain('recordId');
	expect(getMany).not.toContain('streamOf');
});
