/**
 * The triggers, through n8n-core's polling, hook and webhook contexts, against the sandbox.
 */
import { createHmac } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import { useSandbox } from './harness/sandboxRun';
import { pollingTrigger, webhookTrigger } from './harness/triggers';

const bed = useSandbox();

/** The server's form of a date-time: UTC, to the second. */
const serverForm = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
const ids = (records: IDataObject[] | null) => (records ?? []).map((record) => record.id);

describe('Record Management Service Trigger (polling)', () => {
	const contactsCreated = { entityType: 'Contact', event: 'created' };
	let clock: number;
	/** A contact created `at` the trigger's notion of time (seconds apart, as a real server writes them). */
	const contact = (fields: IDataObject = {}, at = (clock += 1000)) =>
		bed.sandbox.store.create('Contact', {
			firstName: 'P',
			lastName: `N${at}`,
			createdAt: serverForm(at),
			modifiedAt: serverForm(at),
			...fields,
		});

	beforeEach(() => {
		clock = Math.floor(Date.now() / 1000) * 1000 - 86_400_000;
	});

	test('the first poll only notes where the list stands; later polls emit each new record once, oldest first', async () => {
		contact();
		contact();
		const trigger = pollingTrigger(bed.store, contactsCreated);
		expect(await trigger.poll()).toBeNull();
		const later = [contact(), contact()];
		expect(ids(await trigger.poll())).toEqual(later.map((record) => record.id));
		expect(await trigger.poll()).toBeNull();
		for (const request of bed.received('GET'))
			expect(request.query).toMatchObject({ orderBy: 'createdAt', order: 'desc' });
	});

	test('"Fetch Test Event" with no record to show says why and what to do (n8n would show "No trigger output" alone)', async () => {
		const failure = async (parameters: IDataObject) =>
			await pollingTrigger(bed.store, parameters)
				.poll('manual')
				.then(
					() => undefined,
					(e: Error & { description?: string | null }) => e,
				);
		const none = await failure({ entityType: 'Opportunity', event: 'created' });
		expect(none?.message).toBe(
			'No Opportunity record was found. Fetch Test Event shows the newest one. Create one in the CRM, or choose another entity type, then fetch again.',
		);
		expect(none?.description ?? '').toBe('');
		contact({ firstName: 'Ada' });
		const narrowed = await failure({
			...contactsCreated,
			filterMode: 'conditions',
			conditions: { condition: [{ attribute: 'firstName', operator: 'equals', value: 'Nobody' }] },
		});
		expect(narrowed?.message).toBe(
			'No Contact record matches the conditions and search of the trigger. Fetch Test Event shows the newest one. Create one in the CRM, or change the conditions, or choose another entity type, then fetch again.',
		);
	});

	test('a poll refused by the server does not stop the next: n8n keeps one context for all polls of an activation', async () => {
		contact();
		const trigger = pollingTrigger(bed.store, contactsCreated);
		expect(await trigger.poll()).toBeNull();
		const later = contact();
		// A password changed on the server and back: n8n itself sends a refused request once more.
		bed.sandbox.faults.failNext({ count: 2, status: 401, method: 'GET' });
		await expect(trigger.poll()).rejects.toThrow('401');
		expect(ids(await trigger.poll())).toEqual([later.id]);
		expect(bed.received('GET').map((request) => request.status)).toEqual([200, 401, 401, 200]);
	});

	test('a poll that fails says what to do in its message: n8n polls once on publishing and shows only the message', async () => {
		const trigger = pollingTrigger(bed.store, { ...contactsCreated, entityType: 'NoSuchType' });
		await expect(trigger.poll()).rejects.toThrow(
			/\(404\).*\. The entity type does not exist on this server: check its name/,
		);
	});

	test('450 records created between two polls: all of them, each once, paging until older than the last poll', async () => {
		contact();
		const trigger = pollingTrigger(bed.store, contactsCreated);
		await trigger.poll();
		bed.sandbox.clearRequests();
		const created = Array.from({ length: 450 }, () => contact());
		const emitted = await trigger.poll();
		expect(ids(emitted)).toEqual(created.map((record) => record.id));
		// Pages of 200 that overlap by 10, newest first, until a record older than the last poll.
		expect(bed.received('GET').map((request) => request.query.offset)).toEqual(['0', '190', '380']);
		expect(await trigger.poll()).toBeNull();
	});

	test('a server that ignores offset: the poll reads the first page twice and stops, instead of paging forever', async () => {
		contact();
		const trigger = pollingTrigger(bed.store, contactsCreated);
		await trigger.poll();
		bed.sandbox.clearRequests();
		const created = Array.from({ length: 450 }, () => contact());
		bed.sandbox.faults.ignoresOffset = true;
		const emitted = await trigger.poll();
		// Only the newest page can be read from such a server.
		expect(ids(emitted)).toEqual(created.slice(-200).map((record) => record.id));
		expect(bed.received('GET').map((request) => request.query.offset)).toEqual(['0', '190']);
	});

	test('Created or Updated: a record updated twice between polls comes once, as it is now', async () => {
		const record = contact();
		const trigger = pollingTrigger(bed.store, { entityType: 'Contact', event: 'createdOrUpdated' });
		await trigger.poll();
		bed.sandbox.store.update('Contact', record.id, {
			description: 'First',
			modifiedAt: serverForm((clock += 1000)),
		});
		bed.sandbox.store.update('Contact', record.id, {
			description: 'Second',
			modifiedAt: serverForm((clock += 1000)),
		});
		const emitted = await trigger.poll();
		expect(emitted).toHaveLength(1);
		expect(emitted?.[0]).toMatchObject({ id: record.id, description: 'Second' });
		expect(bed.received('GET').every((request) => request.query.orderBy === 'modifiedAt')).toBe(
			true,
		);
		expect(await trigger.poll()).toBeNull();
	});

	test('records that share a second: each once, also when more come in that second after a poll', async () => {
		contact();
		const trigger = pollingTrigger(bed.store, contactsCreated);
		await trigger.poll();
		const second = (clock += 1000);
		const first = [contact({}, second), contact({}, second)];
		expect(ids(await trigger.poll()).sort()).toEqual(ids(first).sort());
		const late = contact({}, second);
		expect(ids(await trigger.poll())).toEqual([late.id]);
		expect(await trigger.poll()).toBeNull();
	});

	test('a record created while a poll pages through the list comes with the next poll', async () => {
		contact();
		const trigger = pollingTrigger(bed.store, contactsCreated);
		await trigger.poll();
		const before = Array.from({ length: 300 }, () => contact());
		bed.sandbox.clearRequests();
		bed.sandbox.faults.latencyMs = 30;
		const polling = trigger.poll();
		// Once the first page has been answered, a record is created (now: newer than everything).
		while (!bed.sandbox.requests.some((request) => request.status !== null))
			await new Promise((resolve) => setTimeout(resolve, 2));
		const during = bed.sandbox.store.create('Contact', {
			firstName: 'D',
			lastName: 'During',
			createdAt: serverForm(clock + 500),
			modifiedAt: serverForm(clock + 500),
		});
		const first = await polling;
		bed.sandbox.faults.latencyMs = 0;
		const second = await trigger.poll();
		const all = [...ids(first), ...ids(second)];
		expect(all.sort()).toEqual([...ids(before), during.id].sort());
	});

	test('a poll that starts while the last one still runs is skipped: no record comes twice', async () => {
		contact();
		const trigger = pollingTrigger(bed.store, contactsCreated);
		await trigger.poll();
		const created = Array.from({ length: 5 }, () => contact());
		bed.sandbox.faults.latencyMs = 100;
		const [first, overlapping] = await Promise.all([trigger.poll(), trigger.poll()]);
		expect(ids(first)).toEqual(ids(created));
		expect(overlapping).toBeNull();
		bed.sandbox.faults.latencyMs = 0;
		expect(await trigger.poll()).toBeNull();
	});

	test('conditions filter the records, and the workflow time zone changes nothing', async () => {
		contact();
		const trigger = pollingTrigger(
			bed.store,
			{
				...contactsCreated,
				filterMode: 'conditions',
				conditions: { condition: [{ attribute: 'description', operator: 'equals', value: 'VIP' }] },
			},
			'Pacific/Kiritimati',
		);
		await trigger.poll();
		const vip = contact({ description: 'VIP' });
		contact({ description: 'Other' });
		expect(ids(await trigger.poll())).toEqual([vip.id]);
		expect(bed.received('GET').at(-1)?.query.where).toEqual([
			{ type: 'equals', attribute: 'description', value: 'VIP' },
		]);
	});

	test('"Fetch Test Event" returns the newest record and changes nothing', async () => {
		contact();
		const newest = contact();
		const trigger = pollingTrigger(bed.store, { ...contactsCreated, select: ['firstName'] });
		expect(ids(await trigger.poll('manual'))).toEqual([newest.id]);
		expect(trigger.staticData).toEqual({});
		expect(bed.received('GET')[0].query).toMatchObject({
			maxSize: '1',
			select: 'firstName,createdAt',
		});
	});
});

describe('Record Management Service Webhook Trigger (EspoCRM)', () => {
	beforeEach(() => {
		bed.sandbox.setDialect('espocrm');
		bed.use('apiKey', 'espocrm');
	});

	test('activation registers one webhook per event with the production URL; deactivation deletes them', async () => {
		const trigger = await webhookTrigger(bed.store, {
			entityType: 'Contact',
			events: ['create', 'update', 'delete'],
		});
		try {
			await trigger.activate();
			const registered = bed.sandbox.webhooks.list();
			expect(registered.map((webhook) => webhook.event).sort()).toEqual([
				'Contact.create',
				'Contact.delete',
				'Contact.update',
			]);
			expect(registered.every((webhook) => webhook.url === trigger.url)).toBe(true);
			expect(await trigger.checkExists()).toBe(true);
			await trigger.deactivate();
			expect(bed.sandbox.webhooks.list()).toEqual([]);
			expect(await trigger.checkExists()).toBe(false);
		} finally {
			await trigger.close();
		}
	});

	test('signed deliveries start the workflow, one item per record; updates come as full records, deletes as {id, deleted}', async () => {
		const trigger = await webhookTrigger(bed.store, {
			entityType: 'Contact',
			events: ['create', 'update', 'delete'],
		});
		try {
			await trigger.activate();
			const created = bed.sandbox.store.create('Contact', {
				firstName: 'Web',
				lastName: 'Hook',
				description: 'Before',
			});
			await bed.sandbox.webhooks.deliver();
			await trigger.idle();
			bed.sandbox.store.update('Contact', created.id, { description: 'After' });
			await bed.sandbox.webhooks.deliver();
			await trigger.idle();
			bed.sandbox.store.delete('Contact', created.id);
			await bed.sandbox.webhooks.deliver();
			await trigger.idle();
			expect(trigger.answers).toEqual([200, 200, 200]);
			expect(trigger.started[0]).toEqual([
				expect.objectContaining({ id: created.id, lastName: 'Hook', description: 'Before' }),
			]);
			expect(trigger.started[1]).toEqual([
				expect.objectContaining({ id: created.id, lastName: 'Hook', description: 'After' }),
			]);
			expect(trigger.started[2]).toEqual([{ id: created.id, deleted: true }]);
		} finally {
			await trigger.close();
		}
	});

	test('the delivery is answered before the records are read: a slow server cannot make EspoCRM deliver twice', async () => {
		const trigger = await webhookTrigger(bed.store, { entityType: 'Contact', events: ['update'] });
		try {
			await trigger.activate();
			const contacts = Array.from({ length: 10 }, (_, n) =>
				bed.sandbox.store.create('Contact', { firstName: 'S', lastName: `N${n}` }),
			);
			for (const contact of contacts)
				bed.sandbox.store.update('Contact', contact.id, { description: 'Changed' });
			// Each read takes 1.5 s (the first alone, then 5 at a time): over 4 s for the batch; EspoCRM waits 1 s here.
			bed.sandbox.faults.latencyMs = 1500;
			bed.sandbox.webhooks.config.timeoutMs = 1000;
			const report = await bed.sandbox.webhooks.deliver();
			expect(report.statuses).toEqual([200]);
			expect(bed.sandbox.webhooks.deliveries).toHaveLength(1);
			await trigger.idle();
			expect(trigger.started).toHaveLength(1);
			expect(trigger.started[0].map((record) => record.description)).toEqual(
				contacts.map(() => 'Changed'),
			);
		} finally {
			bed.sandbox.webhooks.config.timeoutMs = 10_000;
			await trigger.close();
		}
	});

	test('a batch of 120 changes arrives in requests of 50, each record once', async () => {
		const trigger = await webhookTrigger(bed.store, { entityType: 'Contact', events: ['create'] });
		try {
			await trigger.activate();
			const created = Array.from({ length: 120 }, (_, n) =>
				bed.sandbox.store.create('Contact', { firstName: 'B', lastName: `N${n}` }),
			);
			await bed.sandbox.webhooks.deliver();
			await trigger.idle();
			expect(trigger.started.map((items) => items.length)).toEqual([50, 50, 20]);
			expect(
				trigger.started
					.flat()
					.map((record) => record.id)
					.sort(),
			).toEqual(ids(created).sort());
		} finally {
			await trigger.close();
		}
	});

	test('a wrong or missing signature gets 401 and starts nothing; a webhook the trigger no longer has gets 410', async () => {
		const trigger = await webhookTrigger(bed.store, { entityType: 'Contact', events: ['create'] });
		try {
			await trigger.activate();
			const [registered] = bed.sandbox.webhooks.list();
			const post = async (headers: Record<string, string>) =>
				(
					await fetch(trigger.url, {
						method: 'POST',
						headers: { 'Content-Type': 'application/json', ...headers },
						body: '[{"id":"x"}]',
					})
				).status;
			expect(await post({})).toBe(401);
			expect(
				await post({
					'X-Signature': Buffer.from(`${registered.id}:not-the-signature`).toString('base64'),
				}),
			).toBe(401);
			expect(
				await post({ 'X-Signature': Buffer.from('someOtherWebhook:whatever').toString('base64') }),
			).toBe(410);
			expect(trigger.started).toEqual([]);
		} finally {
			await trigger.close();
		}
	});

	test('newer EspoCRM versions sign in "Signature" (the HMAC in hex): accepted alone; an empty batch starts nothing', async () => {
		const trigger = await webhookTrigger(bed.store, {
			entityType: 'Contact',
			events: ['create'],
			includeFullRecord: false,
		});
		try {
			await trigger.activate();
			const [registered] = bed.sandbox.webhooks.list();
			const signed = async (body: string, secretKey = registered.secretKey) => {
				const hex = createHmac('sha256', secretKey).update(body).digest('hex');
				const headers = {
					'Content-Type': 'application/json',
					Signature: Buffer.from(`${registered.id}:${hex}`).toString('base64'),
				};
				return (await fetch(trigger.url, { method: 'POST', headers, body })).status;
			};
			expect(await signed('[{"id":"c1","name":"New"}]')).toBe(200);
			expect(await signed('[{"id":"c2"}]', 'not-the-secret')).toBe(401);
			expect(await signed('[]')).toBe(200);
			await trigger.idle();
			expect(trigger.started).toEqual([[{ id: 'c1', name: 'New' }]]);
		} finally {
			await trigger.close();
		}
	});

	test('a webhook registered without a secret key is removed again: its deliveries could not be verified', async () => {
		bed.sandbox.faults.failNext({
			status: 201,
			method: 'POST',
			pathPrefix: '/Webhook',
			body: { id: 'w1', event: 'Contact.create' },
		});
		const trigger = await webhookTrigger(bed.store, { entityType: 'Contact', events: ['create'] });
		try {
			await expect(trigger.activate()).rejects.toThrow(
				/^EspoCRM registered the webhook for Contact\.create without a secret key.*: check the EspoCRM version/,
			);
			expect(bed.received('DELETE').map((request) => request.path)).toEqual(['/Webhook/w1']);
		} finally {
			await trigger.close();
		}
	});

	test.each<[string, { dialect?: string; fault?: number }, Record<string, unknown>, RegExp]>([
		[
			'a Standard server',
			{ dialect: 'standard' },
			{},
			/^Webhooks need the EspoCRM server: choose "EspoCRM 7 or Later" as Server in the credential/,
		],
		[
			'credentials the server refuses',
			{ fault: 401 },
			{},
			/\(401\).*\. Check the authentication settings of the credential/,
		],
		[
			'no event chosen',
			{},
			{ events: [] },
			/^The parameter "Events" is empty\. Choose at least one event\./,
		],
	])(
		'every error on activation says what to do in its message (n8n shows only that): %s',
		async (_, setup, parameters, message) => {
			if (setup.dialect === 'standard') {
				bed.sandbox.setDialect('standard');
				bed.use('apiKey', 'standard');
			}
			if (setup.fault) bed.sandbox.faults.failEvery({ every: 1, status: setup.fault });
			const trigger = await webhookTrigger(bed.store, {
				entityType: 'Contact',
				events: ['create'],
				...parameters,
			});
			try {
				await expect(trigger.activate()).rejects.toThrow(message);
			} finally {
				bed.sandbox.faults.clear();
				await trigger.close();
			}
		},
	);

	test('registering without the Webhooks scope says what to enable', async () => {
		bed.sandbox.setRestrictedScopes(['Webhook']);
		const trigger = await webhookTrigger(bed.store, { entityType: 'Contact', events: ['create'] });
		try {
			// n8n 2.41 shows only the message when publishing fails: what to do is in it.
			await expect(trigger.activate()).rejects.toMatchObject({
				httpCode: '403',
				message: expect.stringMatching(
					/^EspoCRM refused to register the webhook for Contact\.create \(403\): .*scope "Webhooks".*Administration > Roles/,
				),
			});
		} finally {
			await trigger.close();
		}
	});
});
