/**
 * The polling trigger's "New Stream Note" (EspoCRM): a record's stream or the API user's, through n8n-core's poll
 * context against the sandbox, which answers `after=<createdAt>` as EspoCRM 8.1.5 does (the notes created strictly after).
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { RecordManagementServiceTrigger } from '../nodes/RecordManagementServiceTrigger/RecordManagementServiceTrigger.node';

import { useSandbox } from './harness/sandboxRun';
import { pollingTrigger } from './harness/triggers';
import { SANDBOX_CREDENTIALS, SANDBOX_USERS } from './sandbox';

const bed = useSandbox();

/** The server's form of a date-time: UTC, to the second. */
const serverForm = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
const ids = (notes: IDataObject[] | null) => (notes ?? []).map((note) => note.id);
const byId = (value: string) => ({ __rl: true, mode: 'id', value });

let clock: number;
let account: { id: string };
/** A note in the account's stream, `at` seconds apart as EspoCRM writes them. */
const note = (fields: IDataObject = {}, at = (clock += 1000)) =>
	bed.sandbox.streams.add({
		parentType: 'Account',
		parentId: account.id,
		post: `Note ${at}`,
		createdAt: serverForm(at),
		...fields,
	});
const accountStream = () => ({
	event: 'streamNote',
	entityType: 'Account',
	recordId: byId(account.id),
});

beforeEach(() => {
	bed.sandbox.setDialect('espocrm');
	bed.use('apiKey', 'espocrm');
	clock = Math.floor(Date.now() / 1000) * 1000 - 86_400_000;
	account = bed.sandbox.store.create('Account', { name: 'Acme' });
});

test('the first poll emits nothing; later polls emit each new post once, oldest first, asking only for notes since the last poll', async () => {
	note();
	const last = note();
	const trigger = pollingTrigger(bed.store, accountStream());
	expect(await trigger.poll()).toBeNull();
	const later = [note(), note()];
	expect(ids(await trigger.poll())).toEqual(ids(later));
	expect(await trigger.poll()).toBeNull();

	const requests = bed.received('GET');
	expect(requests.every((request) => request.path === `/Account/${account.id}/stream`)).toBe(true);
	expect(requests[0].query.after).toBeUndefined();
	// From the start of the newest second seen: strictly after the second before it.
	expect(requests[1].query).toMatchObject({
		after: serverForm(Date.parse(`${last.createdAt}Z`) - 1000),
		where: [{ type: 'in', attribute: 'type', value: ['Post'] }],
	});
	expect(requests[2].query.after).toBe(serverForm(Date.parse(`${later[1].createdAt}Z`) - 1000));
});

test('the sandbox answers `after` as EspoCRM 8.1.5 does on both lists: the notes created strictly after it', async () => {
	const [, at, later] = [note(), note(), note()];
	note({ parentType: null, parentId: null, createdById: SANDBOX_USERS.apiKey.id }, clock);
	const list = async (path: string) => {
		const reply = await fetch(
			`${bed.sandbox.origin}/api/v1${path}?after=${encodeURIComponent(String(at.createdAt))}`,
			{
				headers: { 'X-Api-Key': SANDBOX_CREDENTIALS.apiKey },
			},
		);
		return ((await reply.json()) as { list: IDataObject[] }).list.map((listed) => listed.id);
	};
	expect(await list(`/Account/${account.id}/stream`)).toEqual([later.id]);
	expect(await list('/Stream')).toEqual([bed.sandbox.streams.notes.at(-1)?.id]);
});

test('a post made through the node comes with the next poll', async () => {
	const trigger = pollingTrigger(bed.store, accountStream());
	expect(await trigger.poll()).toBeNull();
	const posted = await bed.run({
		resource: 'stream',
		operation: 'post',
		entityType: 'Account',
		recordId: byId(account.id),
		post: 'Invoice #123 paid',
	});
	expect(posted.error).toBeUndefined();
	const emitted = await trigger.poll();
	expect(emitted).toEqual([
		expect.objectContaining({
			id: posted.json[0].id,
			type: 'Post',
			post: 'Invoice #123 paid',
			parentId: account.id,
		}),
	]);
	expect(await trigger.poll()).toBeNull();
});

test('notes that share a second: each once, also when more come in that second after a poll', async () => {
	note();
	const trigger = pollingTrigger(bed.store, accountStream());
	await trigger.poll();
	const second = (clock += 1000);
	const first = [note({}, second), note({}, second)];
	expect(ids(await trigger.poll())).toEqual(ids(first));
	const late = note({}, second);
	expect(ids(await trigger.poll())).toEqual([late.id]);
	expect(await trigger.poll()).toBeNull();
});

test('450 notes between two polls: all of them, each once, oldest first, in overlapping pages', async () => {
	note();
	const trigger = pollingTrigger(bed.store, accountStream());
	await trigger.poll();
	bed.sandbox.clearRequests();
	const created = Array.from({ length: 450 }, () => note());
	expect(ids(await trigger.poll())).toEqual(ids(created));
	expect(bed.received('GET').map((request) => request.query.offset)).toEqual(['0', '190', '380']);
	expect(await trigger.poll()).toBeNull();
});

test("the API user's own stream: notes of the records it follows and its own posts", async () => {
	expect(
		(
			await bed.run({
				resource: 'stream',
				operation: 'follow',
				entityType: 'Account',
				recordId: byId(account.id),
			})
		).error,
	).toBeUndefined();
	bed.sandbox.clearRequests();
	const other = bed.sandbox.store.create('Account', { name: 'Not followed' });
	note();
	const trigger = pollingTrigger(bed.store, { event: 'streamNote', streamOf: 'user' });
	expect(await trigger.poll()).toBeNull();
	const followed = note();
	note({ parentId: other.id });
	const own = note({ parentType: null, parentId: null, createdById: SANDBOX_USERS.apiKey.id });
	expect(ids(await trigger.poll())).toEqual([followed.id, own.id]);
	expect(bed.received('GET').map((request) => request.path)).toEqual(['/Stream', '/Stream']);
});

test('Note Types: only the types chosen (Post by default; none chosen: every type)', async () => {
	const trigger = pollingTrigger(bed.store, {
		...accountStream(),
		noteTypes: ['Status', 'Update'],
	});
	const everything = pollingTrigger(bed.store, { ...accountStream(), noteTypes: [] });
	const posts = pollingTrigger(bed.store, accountStream());
	for (const each of [trigger, everything, posts]) await each.poll();
	const [post, status, update] = [
		note(),
		note({ type: 'Status', post: null }),
		note({ type: 'Update', post: null }),
	];
	expect(ids(await trigger.poll())).toEqual([status.id, update.id]);
	expect(ids(await everything.poll())).toEqual([post.id, status.id, update.id]);
	expect(ids(await posts.poll())).toEqual([post.id]);
});

test('a Standard server is refused, at activation and in "Fetch Test Event", before any request', async () => {
	bed.use('apiKey', 'standard');
	bed.sandbox.setDialect('standard');
	const trigger = pollingTrigger(bed.store, accountStream());
	// One message that says what to do, without "(item 0)" (a trigger has no input items) and without a description
	// repeating it (n8n shows both in Fetch Test Event, only the message on activation).
	const message =
		'The event "New Stream Note (EspoCRM)" needs the EspoCRM server. The interface as specified has no such operation. If the server is EspoCRM, choose "EspoCRM 7 or Later" as Server in the credential.';
	for (const mode of ['trigger', 'manual'] as const) {
		const error = await trigger.poll(mode).then(
			() => undefined,
			(e: Error & { description?: string | null }) => e,
		);
		expect(error?.message).toBe(message);
		expect(error?.description ?? '').toBe('');
	}
	expect(bed.received()).toEqual([]);
});

test('"Fetch Test Event" on a stream without a note says why and what to do, as n8n\'s own polling triggers do', async () => {
	const quiet = bed.sandbox.store.create('Account', { name: 'Quiet Ltd' });
	const error = await pollingTrigger(bed.store, { ...accountStream(), recordId: byId(quiet.id) })
		.poll('manual')
		.then(
			() => undefined,
			(e: Error & { description?: string | null }) => e,
		);
	expect(error?.message).toBe(
		"The stream of this Account has no note of the types chosen (Post) yet. Fetch Test Event shows the newest one. Post a note on the record (in EspoCRM, or with this node's Stream > Post), or choose a record whose stream has notes, or other Note Types, then fetch again.",
	);
	expect(error?.description ?? '').toBe('');
	const ofUser = await pollingTrigger(bed.store, {
		event: 'streamNote',
		streamOf: 'user',
		noteTypes: [],
	})
		.poll('manual')
		.then(
			() => undefined,
			(e: Error) => e,
		);
	expect(ofUser?.message).toMatch(
		/^The API user's stream has no note yet\. Fetch Test Event shows the newest one\. Post to a record the API user follows/,
	);
});

test('"Fetch Test Event" returns the newest note and changes nothing', async () => {
	note();
	const newest = note();
	note({ type: 'Update', post: null });
	const trigger = pollingTrigger(bed.store, accountStream());
	expect(ids(await trigger.poll('manual'))).toEqual([newest.id]);
	expect(trigger.staticData).toEqual({});
	expect(bed.received('GET')[0].query).toMatchObject({
		maxSize: '1',
		where: [{ type: 'in', attribute: 'type', value: ['Post'] }],
	});
	expect(bed.received('GET')[0].query.orderBy).toBeUndefined();
});

test('the form: a saved record trigger shows what it showed; the stream event its own parameters', () => {
	const { description } = new RecordManagementServiceTrigger();
	const shown = (parameters: IDataObject) =>
		Object.keys(
			NodeHelpers.getNodeParameters(
				description.properties,
				parameters as INodeParameters,
				true,
				false,
				null,
				description,
			) ?? {},
		);
	const records = shown({ entityType: 'Contact' });
	expect(records).toEqual(
		expect.arrayContaining(['entityType', 'event', 'filterMode', 'searchText', 'select']),
	);
	expect(records).not.toContain('streamOf');
	expect(records).not.toContain('recordId');
	const stream = shown({ event: 'streamNote' });
	expect(stream).toEqual(
		expect.arrayContaining(['entityType', 'streamOf', 'recordId', 'noteTypes']),
	);
	expect(stream).not.toContain('filterMode');
	expect(stream).not.toContain('select');
	const userStream = shown({ event: 'streamNote', streamOf: 'user' });
	expect(userStream).not.toContain('entityType');
	expect(userStream).not.toContain('recordId');
});
