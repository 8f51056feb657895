/**
 * What EspoCRM versions answer differently where the node must react (issue 46), through n8n's engine against the
 * sandbox switched to that version (`setServerVersion`, test/sandbox/versions.js): 7.5's updates of an e-mail address
 * or phone number, 9.x's From check, 9.2's stage changes as Update notes, 9.3's allow-lists, 9.3.8's "#" in a where
 * attribute, 10.0's locked records and pipelines. (7.5's phone numbers stored as written: upsert.test.ts.)
 */
import type { IDataObject } from 'n8n-workflow';

import type { RunResult } from './harness/engine';
import { useSandbox } from './harness/sandboxRun';
import { pollingTrigger, webhookTrigger } from './harness/triggers';
import { statusChangeNote } from './sandbox';
import type { RecordedRequest } from './sandbox';

const bed = useSandbox();

const byId = (value: string) => ({ __rl: true, mode: 'id', value });
const paths = (requests: RecordedRequest[]) =>
	requests.map((request) => `${request.method} ${request.path}`);
const store = () => bed.sandbox.store;

function expectNoOutputError(result: RunResult) {
	expect(result.error).toBeUndefined();
	for (const item of result.items) expect(item.error).toBeUndefined();
}

beforeEach(() => {
	bed.sandbox.setDialect('espocrm');
	bed.use('apiKey', 'espocrm');
});

describe('EspoCRM 7.5 keeps the old e-mail address or phone number of an update that does not send its list', () => {
	const updateContact = (id: string, fields: IDataObject) => ({
		resource: 'record',
		operation: 'update',
		entityType: 'Contact',
		recordId: byId(id),
		bodyMode: 'json',
		jsonBody: JSON.stringify(fields),
	});

	test('on 7.5.6 the node writes them again with their lists: the new ones primary, the others kept', async () => {
		bed.sandbox.setServerVersion('7.5.6');
		const eve = store().create('Contact', {
			lastName: 'Eve',
			phoneNumberData: [
				{ phoneNumber: '+1 555 0100', primary: true, type: 'Mobile' },
				{ phoneNumber: '+1 555 0111', primary: false, type: 'Office' },
			],
			emailAddress: 'eve@old.example',
		});
		const result = await bed.run(
			updateContact(eve.id, {
				phoneNumber: '+1 555 0199',
				emailAddress: 'eve@new.example',
				description: 'moved',
			}),
		);
		expectNoOutputError(result);

		expect(paths(bed.received())).toEqual([`PUT /Contact/${eve.id}`, `PUT /Contact/${eve.id}`]);
		expect(bed.received('PUT')[1].body).toEqual({
			phoneNumber: '+1 555 0199',
			phoneNumberData: [
				expect.objectContaining({ phoneNumber: '+1 555 0199', primary: true, type: 'Mobile' }),
				expect.objectContaining({ phoneNumber: '+1 555 0111', primary: false, type: 'Office' }),
			],
			emailAddress: 'eve@new.example',
			emailAddressData: [
				expect.objectContaining({ emailAddress: 'eve@new.example', primary: true }),
			],
		});
		expect(store().get('Contact', eve.id)).toMatchObject({
			phoneNumber: '+1 555 0199',
			emailAddress: 'eve@new.example',
			description: 'moved',
		});
		expect(result.json[0]).toMatchObject({
			phoneNumber: '+1 555 0199',
			emailAddress: 'eve@new.example',
		});
	});

	test('Create or Update on 7.5.6: the record it updates gets the new number too', async () => {
		bed.sandbox.setServerVersion('7.5.6');
		const eve = store().create('Contact', { lastName: 'Eve', phoneNumber: '+1 555 0100' });
		const result = await bed.run({
			resource: 'record',
			operation: 'upsert',
			entityType: 'Contact',
			matchField: 'lastName',
			matchValue: 'Eve',
			bodyMode: 'json',
			jsonBody: '{"phoneNumber": "+1 555 0199"}',
		});
		expectNoOutputError(result);
		expect(paths(bed.received())).toEqual([
			'GET /Contact',
			`PUT /Contact/${eve.id}`,
			`PUT /Contact/${eve.id}`,
		]);
		expect(store().get('Contact', eve.id)).toMatchObject({ phoneNumber: '+1 555 0199' });
	});

	test('on 8.1.5 the first answer lists them already: one request', async () => {
		const eve = store().create('Contact', {
			lastName: 'Eve',
			phoneNumber: '+1 555 0100',
			emailAddress: 'eve@old.example',
		});
		const result = await bed.run(
			updateContact(eve.id, { phoneNumber: '+1 555 0199', emailAddress: 'EVE@new.example' }),
		);
		expectNoOutputError(result);
		expect(paths(bed.received())).toEqual([`PUT /Contact/${eve.id}`]);
		expect(store().get('Contact', eve.id)).toMatchObject({
			phoneNumber: '+15550199',
			emailAddress: 'EVE@new.example',
		});
	});
});

describe('EspoCRM 9.2 and later: a stage change is an Update note; Note Types "Status Changed (Any Version)" finds it on every version', () => {
	let opportunity: { id: string };
	let clock: number;
	const serverForm = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
	const note = (fields: IDataObject) =>
		bed.sandbox.streams.add({
			parentType: 'Opportunity',
			parentId: opportunity.id,
			post: null,
			createdAt: serverForm((clock += 1000)),
			...fields,
		});
	/** Notes as each version writes them: the stage changes, and what else an opportunity's stream holds. */
	const stream = (version: string) => {
		note({ type: 'Create', data: { statusValue: 'Prospecting', statusField: 'stage' } });
		const changes = ['Qualification', 'Proposal'].map((stage) =>
			note(statusChangeNote(version, 'stage', stage)),
		);
		note({
			type: 'Update',
			data: { fields: ['amount'], attributes: { was: { amount: 10 }, became: { amount: 20 } } },
		});
		note({ type: 'Post', post: 'A post' });
		return changes;
	};

	beforeEach(() => {
		clock = Date.now() - 86_400_000;
		opportunity = store().create('Opportunity', {
			name: 'Deal',
			stage: 'Prospecting',
			amount: 10,
			closeDate: '2026-12-31',
		});
	});

	test.each(['7.5.6', '9.1.7', '9.3.4'])(
		'Stream > Get Many on %s: the stage changes only, newest first',
		async (version) => {
			bed.sandbox.setServerVersion(version);
			const changes = stream(version);
			const result = await bed.run({
				resource: 'stream',
				operation: 'getStream',
				entityType: 'Opportunity',
				recordId: byId(opportunity.id),
				returnAll: true,
				streamOptions: { noteTypes: ['statusChange'] },
			});
			expectNoOutputError(result);
			expect(result.json.map((json) => json.id)).toEqual(
				changes.map((change) => change.id).reverse(),
			);
			expect(result.json.map((json) => (json.data as IDataObject).value)).toEqual([
				'Proposal',
				'Qualification',
			]);
			expect((bed.received('GET')[0].query as IDataObject).where).toEqual([
				{
					type: 'or',
					value: [
						{ type: 'in', attribute: 'type', value: ['Status'] },
						{
							type: 'and',
							value: [
								{ type: 'equals', attribute: 'type', value: 'Update' },
								{ type: 'like', attribute: 'data', value: '%"value":%' },
							],
						},
					],
				},
			]);
		},
	);

	test('"Status Changed" (Status notes) still selects what it did: nothing on 9.3, which writes none', async () => {
		bed.sandbox.setServerVersion('9.3.4');
		stream('9.3.4');
		const result = await bed.run({
			resource: 'stream',
			operation: 'getStream',
			entityType: 'Opportunity',
			recordId: byId(opportunity.id),
			returnAll: true,
			streamOptions: { noteTypes: ['Status'] },
		});
		expect(result.json).toEqual([]);
		expect((bed.received('GET')[0].query as IDataObject).where).toEqual([
			{ type: 'in', attribute: 'type', value: ['Status'] },
		]);
	});

	test('with posts chosen too: both kinds, in one request', async () => {
		bed.sandbox.setServerVersion('9.3.4');
		const changes = stream('9.3.4');
		const result = await bed.run({
			resource: 'stream',
			operation: 'getStream',
			entityType: 'Opportunity',
			recordId: byId(opportunity.id),
			returnAll: true,
			streamOptions: { noteTypes: ['Post', 'statusChange'] },
		});
		expect(result.json.map((json) => json.type)).toEqual(['Post', 'Update', 'Update']);
		expect(result.json.slice(1).map((json) => json.id)).toEqual(
			changes.map((change) => change.id).reverse(),
		);
		expect(bed.received('GET')).toHaveLength(1);
	});

	test.each(['9.1.7', '9.3.4'])(
		"the trigger's New Stream Note on %s: each stage change once, oldest first",
		async (version) => {
			bed.sandbox.setServerVersion(version);
			const trigger = pollingTrigger(bed.store, {
				event: 'streamNote',
				entityType: 'Opportunity',
				recordId: byId(opportunity.id),
				noteTypes: ['statusChange'],
			});
			stream(version);
			expect(await trigger.poll()).toBeNull();
			const changes = stream(version);
			expect((await trigger.poll())?.map((json) => json.id)).toEqual(
				changes.map((change) => change.id),
			);
			expect(await trigger.poll()).toBeNull();
		},
	);
});

describe('EspoCRM 9.3: the allow-lists of internal addresses', () => {
	beforeEach(() => bed.sandbox.setServerVersion('9.3.4'));

	test('the webhook trigger on an internal address: activation fails with the setting, the host:port to add and where', async () => {
		const trigger = await webhookTrigger(bed.store, { entityType: 'Contact', events: ['create'] });
		const entry = new URL(trigger.url).host;
		try {
			// n8n 2.41 shows only the message when publishing fails: it says it all.
			await expect(trigger.activate()).rejects.toMatchObject({
				httpCode: '400',
				message: `EspoCRM refused to register the webhook for Contact.create (400): n8n's webhook URL ${trigger.url} is on an internal address, which EspoCRM 9.3.2 and later call only when it is listed. In EspoCRM's data/config.php (Administration has no field for it) add ${entry} to webhookAllowedAddressList: 'webhookAllowedAddressList' => ['${entry}'], then publish the workflow again`,
			});
			expect(
				bed.received().map((request) => [request.method, request.path, request.status]),
			).toEqual([['POST', '/Webhook', 400]]);
			expect(bed.sandbox.webhooks.list()).toEqual([]);

			// Listed, as the message says: registered.
			bed.sandbox.version.webhookAllowedAddressList = [entry];
			await trigger.activate();
			expect(bed.sandbox.webhooks.list().map((webhook) => [webhook.event, webhook.url])).toEqual([
				['Contact.create', trigger.url],
			]);
		} finally {
			await trigger.close();
		}
	});

	test('e-mail from an address the API user may not send from: the From refusal names emailServerAllowedAddressList', async () => {
		const result = await bed.run({
			resource: 'email',
			operation: 'send',
			to: 'ada@example.com',
			subject: 'Hello',
			body: 'Hi',
			from: 'crm@example.com',
		});
		expect(result.error?.message).toBe(
			'The server refused the sender address in "From" (403): Not allowed \'from\' address.',
		);
		expect(result.error?.description).toContain('Group Email Accounts');
		expect(result.error?.description).toContain(
			"EspoCRM 9.3 and later save a group e-mail account whose SMTP server is on an internal address (localhost, a Docker network, a LAN) only when that server's host:port is listed in emailServerAllowedAddressList, in EspoCRM's data/config.php (Administration has no field for it): for an SMTP server mail on port 25, 'emailServerAllowedAddressList' => ['mail:25'],",
		);
		expect(bed.sandbox.outbox).toEqual([]);
	});
});

describe('EspoCRM 9.3.8 and later refuse "#" in a where attribute', () => {
	beforeEach(() => bed.sandbox.setServerVersion('9.3.8'));
	const getMany = { resource: 'record', operation: 'getMany', entityType: 'Contact', limit: 5 };

	test.each<[string, IDataObject, RegExp]>([
		[
			'a condition',
			{
				filterMode: 'conditions',
				conditions: { condition: [{ attribute: 'name#x', operator: 'equals', value: 'a' }] },
			},
			/^The parameter "Conditions": condition 1 names the field "name#x": a field name cannot hold "#"/,
		],
		[
			'Where (JSON), nested',
			{
				filterMode: 'json',
				whereJson: JSON.stringify([
					{ type: 'or', value: [{ type: 'equals', attribute: '#alias', value: 'a' }] },
				]),
			},
			/^The parameter "Where \(JSON\)": where\[0\]\.value\[0\] has the attribute "#alias": a field name cannot hold "#"/,
		],
	])(
		'%s with "#" is refused before anything is sent, naming the parameter and the item',
		async (_, parameters, message) => {
			const result = await bed.run({ ...getMany, ...parameters });
			expect(result.error?.name).toBe('NodeOperationError');
			expect(result.error?.message).toMatch(message);
			expect(result.error?.message).toContain('(item 0)');
			expect(bed.received()).toEqual([]);
		},
	);

	test("the server's own refusal (403 Not allowed character in attribute.) is explained as a filter's field name, not as the role", async () => {
		bed.sandbox.faults.failNext({
			status: 403,
			reason: 'Not allowed character in attribute.',
			method: 'GET',
			pathPrefix: '/Contact',
		});
		const result = await bed.run(getMany);
		expect(result.error?.message).toBe(
			'The server refused a field name of the filter (403): Not allowed character in attribute.',
		);
		expect(result.error?.description).toContain('"#"');
		expect(result.error?.description).not.toContain('role');
	});
});

describe('EspoCRM 10: a locked record is explained as locked', () => {
	let deal: { id: string };
	beforeEach(() => {
		bed.sandbox.setServerVersion('10.0.0');
		deal = store().create('Opportunity', {
			name: 'Locked deal',
			stage: 'Prospecting',
			amount: 10,
			closeDate: '2026-12-31',
		});
		bed.sandbox.version.lock('Opportunity', deal.id);
	});

	test('Update: who can unlock it, and that running the node again does not help; never "changed by someone else"', async () => {
		const result = await bed.run({
			resource: 'record',
			operation: 'update',
			entityType: 'Opportunity',
			recordId: byId(deal.id),
			bodyMode: 'json',
			jsonBody: '{"amount": 20}',
		});
		expect(result.error?.name).toBe('NodeApiError');
		expect(result.error?.httpCode).toBe('409');
		expect(result.error?.message).toBe(
			'The record is locked: EspoCRM does not let anyone change its field "Amount" (409 cannotModifyLockedRecord)',
		);
		expect(result.error?.description).toMatch(
			/Only a user whose role has the Lock permission can unlock it.*Running the node again does not help while it is locked; nothing was changed\./,
		);
		expect(`${result.error?.message} ${result.error?.description}`).not.toMatch(
			/someone else|meanwhile|retry/i,
		);
		expect(store().get('Opportunity', deal.id)).toMatchObject({ amount: 10 });
	});

	test('Delete: locked, and not deleted', async () => {
		const result = await bed.run({
			resource: 'record',
			operation: 'delete',
			entityType: 'Opportunity',
			recordId: byId(deal.id),
		});
		expect(result.error?.httpCode).toBe('409');
		expect(result.error?.message).toBe(
			'The record is locked: EspoCRM does not let anyone delete it (409 cannotRemoveLockedRecord)',
		);
		expect(result.error?.description).toContain('Lock permission');
		expect(store().get('Opportunity', deal.id)).toBeDefined();
	});

	test('Create or Update of the locked record fails that item only (Continue on fail); the other item is written', async () => {
		const other = store().create('Opportunity', {
			name: 'Open deal',
			stage: 'Prospecting',
			amount: 10,
			closeDate: '2026-12-31',
		});
		const result = await bed.run(
			{
				resource: 'record',
				operation: 'upsert',
				entityType: 'Opportunity',
				matchField: 'name',
				matchValue: '={{ $json.name }}',
				fields: { amount: '={{ $json.amount }}' },
			},
			[
				{ name: 'Locked deal', amount: 30 },
				{ name: 'Open deal', amount: 30 },
			],
			{ onError: 'continueRegularOutput' },
		);
		expect(result.items[0].json.error).toBe(
			'The record is locked: EspoCRM does not let anyone change its field "Amount" (409 cannotModifyLockedRecord)',
		);
		expect(result.items[1].json).toMatchObject({ id: other.id, amount: 30 });
	});

	test("as an AI agent's tool: the model is told not to call it again and to say the record is locked", async () => {
		const result = await bed.run(
			{
				resource: 'record',
				operation: 'update',
				entityType: 'Opportunity',
				recordId: byId(deal.id),
				bodyMode: 'json',
				jsonBody: '{"amount": 20}',
			},
			undefined,
			{ asTool: true },
		);
		expect(result.error?.message).toContain(
			'the record is locked in the CRM, and calling the tool again fails the same way',
		);
	});
});

describe("EspoCRM 10 pipelines: a status written is set through the record's pipeline stage", () => {
	const sales = {
		id: 'pipe00000000sales',
		name: 'Sales',
		stages: [
			{ id: 'stage000000000new', name: 'New', mappedStatus: 'Prospecting' },
			{ id: 'stage00000000talk', name: 'Talking', mappedStatus: 'Qualification' },
			{ id: 'stage0000000offer', name: 'Offer', mappedStatus: 'Proposal' },
			{ id: 'stage00000000won1', name: 'Won (signed)', mappedStatus: 'Closed Won' },
			{ id: 'stage00000000won2', name: 'Won (paid)', mappedStatus: 'Closed Won' },
		],
	};
	const partners = {
		id: 'pipe0000partners1',
		name: 'Partners',
		stages: [
			{ id: 'stage0000partner1', name: 'Intro', mappedStatus: 'Prospecting' },
			{ id: 'stage0000partner2', name: 'Deal', mappedStatus: 'Proposal' },
		],
	};
	const create = (fields: IDataObject) => ({
		resource: 'record',
		operation: 'create',
		entityType: 'Opportunity',
		bodyMode: 'json',
		jsonBody: JSON.stringify(fields),
	});
	const update = (id: string, fields: IDataObject) => ({
		resource: 'record',
		operation: 'update',
		entityType: 'Opportunity',
		recordId: byId(id),
		bodyMode: 'json',
		jsonBody: JSON.stringify(fields),
	});
	const deal = { name: 'Big deal', amount: 100, closeDate: '2026-12-31' };

	beforeEach(() => {
		bed.sandbox.setServerVersion('10.0.0');
		bed.sandbox.version.setPipelines('Opportunity', [sales, partners]);
	});

	test('Create: EspoCRM 10 drops the stage written (the first stage instead); the node sets the stage mapped to it', async () => {
		const result = await bed.run(create({ ...deal, stage: 'Proposal' }));
		expectNoOutputError(result);
		const [created] = result.json;
		expect(created).toMatchObject({
			stage: 'Proposal',
			pipelineId: sales.id,
			pipelineStageId: 'stage0000000offer',
		});
		expect(paths(bed.received())).toEqual([
			'POST /Opportunity',
			'GET /App/user',
			`PUT /Opportunity/${String(created.id)}`,
		]);
		expect(bed.received('PUT')[0].body).toEqual({ pipelineStageId: 'stage0000000offer' });
		expect(store().get('Opportunity', String(created.id))).toMatchObject({ stage: 'Proposal' });
	});

	test("Update: the stage of the record's own pipeline; the pipelines are read once per run", async () => {
		const first = await bed.run(create({ ...deal, name: 'Partner deal', pipelineId: partners.id }));
		const second = await bed.run(create({ ...deal, name: 'Sales deal' }));
		const [partnerDeal, salesDeal] = [first.json[0], second.json[0]];
		bed.sandbox.clearRequests();

		const result = await bed.run(
			{
				resource: 'record',
				operation: 'update',
				entityType: 'Opportunity',
				recordId: byId('={{ $json.id }}'),
				bodyMode: 'json',
				jsonBody: '={{ JSON.stringify({ stage: "Proposal", amount: 200 }) }}',
			},
			[{ id: partnerDeal.id }, { id: salesDeal.id }],
		);
		expectNoOutputError(result);
		expect(result.json.map((json) => [json.stage, json.pipelineStageId, json.amount])).toEqual([
			['Proposal', 'stage0000partner2', 200],
			['Proposal', 'stage0000000offer', 200],
		]);
		expect(bed.received('GET').map((request) => request.path)).toEqual(['/App/user']);
		expect(bed.received('PUT').map((request) => request.body)).toEqual(
			expect.arrayContaining([
				{ stage: 'Proposal', amount: 200 },
				{ pipelineStageId: 'stage0000partner2' },
				{ pipelineStageId: 'stage0000000offer' },
			]),
		);
	});

	test('a status that several stages map to fails the item, naming them; the other fields are written', async () => {
		const [created] = (await bed.run(create(deal))).json;
		const result = await bed.run(
			update(String(created.id), { stage: 'Closed Won', amount: 300 }),
			undefined,
			{ onError: 'continueRegularOutput' },
		);
		expect(result.items[0].json.error).toBe(
			'stage "Closed Won" was not set: Opportunity records follow pipelines on this server, and several stages of the pipeline "Sales" map to "Closed Won" (item 0)',
		);
		expect(result.items[0].error?.description).toContain(
			'Won (signed) (stage00000000won1: Closed Won), Won (paid) (stage00000000won2: Closed Won)',
		);
		expect(store().get('Opportunity', String(created.id))).toMatchObject({
			amount: 300,
			stage: 'Prospecting',
		});
	});

	test('Create or Update: created and updated records both get the stage written', async () => {
		const result = await bed.run(
			{
				resource: 'record',
				operation: 'upsert',
				entityType: 'Opportunity',
				matchField: 'name',
				matchValue: '={{ $json.name }}',
				bodyMode: 'json',
				jsonBody:
					'={{ JSON.stringify({ stage: $json.stage, amount: 1, closeDate: "2026-12-31" }) }}',
			},
			[
				{ name: 'Upserted', stage: 'Qualification' },
				{ name: 'Upserted', stage: 'Proposal' },
			],
		);
		expectNoOutputError(result);
		expect(result.json.map((json) => [json.stage, json.pipelineStageId])).toEqual([
			['Qualification', 'stage00000000talk'],
			['Proposal', 'stage0000000offer'],
		]);
		expect(paths(bed.received()).filter((path) => path !== 'GET /Opportunity')).toEqual([
			'POST /Opportunity',
			'GET /App/user',
			expect.stringMatching(/^PUT \/Opportunity\//),
			expect.stringMatching(/^PUT \/Opportunity\//),
			expect.stringMatching(/^PUT \/Opportunity\//),
		]);
	});

	test('the pipelines unreadable: the items that waited for the read fail as themselves; the records stay created', async () => {
		// The read is never answered, nor its one resend after a timeout: the items created meanwhile wait for it too.
		bed.sandbox.faults.answerNext({
			kind: 'silent',
			method: 'GET',
			pathPrefix: '/App/user',
			count: 2,
		});
		const result = await bed.run(
			{
				...create({}),
				jsonBody:
					'={{ JSON.stringify({ name: $json.name, stage: "Proposal", amount: 1, closeDate: "2026-12-31" }) }}',
				requestSettings: { maxRetries: 0, timeoutSeconds: 1 },
			},
			[{ name: 'One' }, { name: 'Two' }, { name: 'Three' }],
			{ onError: 'continueRegularOutput' },
		);
		expect(result.items.map((item) => item.error?.context?.itemIndex)).toEqual([0, 1, 2]);
		expect(bed.received('POST')).toHaveLength(3);
		expect(store().count('Opportunity')).toBe(3);
	});

	test('an item that gives pipelineStageId, and a server without pipelines: one request, as before', async () => {
		const result = await bed.run(
			create({ ...deal, pipelineStageId: 'stage00000000won2', pipelineId: sales.id }),
		);
		expect(result.json[0]).toMatchObject({
			stage: 'Closed Won',
			pipelineStageId: 'stage00000000won2',
		});
		bed.sandbox.setServerVersion('9.3.4');
		const older = await bed.run(create({ ...deal, stage: 'Proposal' }));
		expect(older.json[0]).toMatchObject({ stage: 'Proposal' });
		expect(paths(bed.received())).toEqual(['POST /Opportunity', 'POST /Opportunity']);
	});
});
