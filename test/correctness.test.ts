/**
 * What a real EspoCRM showed wrong (issue 16), through n8n's engine against the sandbox, with parameters shaped as
 * n8n's editor saves them.
 */
import type { IDataObject } from 'n8n-workflow';

import { useSandbox } from './harness/sandboxRun';
import { runNode } from './harness/engine';
import type { RecordedRequest } from './sandbox';

const bed = useSandbox();

/** The server's own form of a date-time, as a record carries it: UTC. */
const serverForm = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
const whereOf = (request: RecordedRequest) => request.query.where as IDataObject[];

describe('date-time values in the server form are instants in UTC, whatever the workflow time zone', () => {
	// UTC-11, a zone with daylight saving time, UTC+14.
	const zones = ['Pacific/Pago_Pago', 'America/New_York', 'Pacific/Kiritimati'];
	const base = Math.floor((Date.now() - 3 * 3_600_000) / 1000) * 1000;

	/** Three contacts modified a minute apart; the middle one's modifiedAt is the value a workflow copies. */
	function threeContacts() {
		return [-60_000, 0, 60_000].map((offset, n) =>
			bed.sandbox.store.create('Contact', {
				firstName: 'T',
				lastName: `N${n}`,
				createdAt: serverForm(base + offset),
				modifiedAt: serverForm(base + offset),
			}),
		);
	}

	const listWhere = (where: IDataObject) => ({
		resource: 'record',
		operation: 'getMany',
		entityType: 'Contact',
		returnAll: true,
		filterMode: 'conditions',
		conditions: { condition: [where] },
	});

	test.each(zones)(
		'"modified after" a value copied from a record finds the later record only, in %s',
		async (timezone) => {
			const [, middle, last] = threeContacts();
			const result = await bed.run(
				listWhere({ attribute: 'modifiedAt', operator: 'after', value: '={{ $json.modifiedAt }}' }),
				[{ modifiedAt: middle.modifiedAt }],
				{ timezone },
			);
			expect(result.error).toBeUndefined();
			expect(result.json.map((json) => json.id)).toEqual([last.id]);
			expect(whereOf(bed.received()[0])).toEqual([
				{
					type: 'after',
					attribute: 'modifiedAt',
					value: middle.modifiedAt,
					dateTime: 'true',
					timeZone: 'UTC',
				},
			]);
		},
	);

	test.each(zones)(
		'"before" and "between" in Where JSON read the server form as UTC too, in %s',
		async (timezone) => {
			const [first, middle, last] = threeContacts();
			const before = await bed.run(
				{
					...listWhere({}),
					filterMode: 'json',
					whereJson: `[{"type": "before", "attribute": "createdAt", "value": "${middle.createdAt}"}]`,
				},
				[{}],
				{ timezone },
			);
			expect(before.json.map((json) => json.id)).toEqual([first.id]);
			// EspoCRM's between includes both ends.
			const between = await bed.run(
				listWhere({
					attribute: 'createdAt',
					operator: 'between',
					from: middle.createdAt,
					to: last.createdAt,
				}),
				[{}],
				{ timezone },
			);
			expect(between.json.map((json) => json.id).sort()).toEqual([middle.id, last.id].sort());
			expect(whereOf(bed.received()[1])[0]).toMatchObject({
				value: [middle.createdAt, last.createdAt],
				timeZone: 'UTC',
			});
		},
	);

	test('an ISO value with an offset is that instant; without a zone it is wall-clock time of the workflow', async () => {
		const [, middle, last] = threeContacts();
		const instant = new Date(base);
		// The middle record's time, written in UTC+02:00.
		const withOffset = new Date(base + 2 * 3_600_000).toISOString().slice(0, 19) + '+02:00';
		const offsetRun = await bed.run(
			listWhere({ attribute: 'createdAt', operator: 'after', value: withOffset }),
			[{}],
			{ timezone: 'America/New_York' },
		);
		expect(offsetRun.json.map((json) => json.id)).toEqual([last.id]);
		expect(whereOf(bed.received()[0])[0]).toMatchObject({
			value: middle.createdAt,
			timeZone: 'UTC',
		});

		// The same instant as New York's wall clock, without a zone.
		const newYork = new Intl.DateTimeFormat('sv-SE', {
			timeZone: 'America/New_York',
			year: 'numeric',
			month: '2-digit',
			day: '2-digit',
			hour: '2-digit',
			minute: '2-digit',
			second: '2-digit',
		})
			.format(instant)
			.replace(' ', 'T');
		const wallClockRun = await bed.run(
			listWhere({ attribute: 'createdAt', operator: 'after', value: newYork }),
			[{}],
			{ timezone: 'America/New_York' },
		);
		expect(wallClockRun.json.map((json) => json.id)).toEqual([last.id]);
		expect(whereOf(bed.received()[1])[0]).toMatchObject({
			value: middle.createdAt,
			timeZone: 'UTC',
		});
	});

	test('a date (on) is a day of the workflow time zone', async () => {
		threeContacts();
		const day = '2026-11-23';
		await bed.run(listWhere({ attribute: 'createdAt', operator: 'on', value: day }), [{}], {
			timezone: 'Pacific/Kiritimati',
		});
		expect(whereOf(bed.received()[0])[0]).toEqual({
			type: 'on',
			attribute: 'createdAt',
			value: day,
			dateTime: 'true',
			timeZone: 'Pacific/Kiritimati',
		});
	});

	test('a value that is no date is refused before anything is sent', async () => {
		const result = await bed.run(
			listWhere({ attribute: 'createdAt', operator: 'after', value: 'last tuesday' }),
		);
		expect(result.error?.name).toBe('NodeOperationError');
		expect(result.error?.message).toContain('condition 1 (createdAt) needs a date');
		expect(bed.received()).toEqual([]);
	});
});

describe('"By URL" with an expression, as the editor saves it', () => {
	const byUrl = (value: string) => ({
		__rl: true,
		mode: 'url',
		value,
		__regex: 'https?://.+#[A-Za-z0-9_]+/view/([^/?#]+)',
	});
	const address = (entityType: string, id: string) =>
		`https://crm.example.com/#${entityType}/view/${id}`;

	test.each([
		['get', {}],
		['update', { fields: { description: 'seen' } }],
		['delete', {}],
	])('Record > %s reads the ID out of the resolved address', async (operation, extra) => {
		const contact = bed.sandbox.store.create('Contact', { firstName: 'U', lastName: 'Rl' });
		const result = await bed.run(
			{
				resource: 'record',
				operation,
				entityType: 'Contact',
				recordId: byUrl('={{ $json.url }}'),
				...extra,
			},
			[{ url: address('Contact', contact.id) }],
		);
		expect(result.error).toBeUndefined();
		expect(bed.received().map((request) => request.path)).toEqual([`/Contact/${contact.id}`]);
	});

	test('relationships and lead conversion do too', async () => {
		const account = bed.sandbox.store.create('Account', { name: 'Url Inc' });
		const contact = bed.sandbox.store.create('Contact', { firstName: 'U', lastName: 'Rl' });
		const lead = bed.sandbox.store.create('Lead', { firstName: 'L', lastName: 'Url' });
		const item = [
			{ url: address('Account', account.id), contact: contact.id, lead: address('Lead', lead.id) },
		];
		const target = { entityType: 'Account', recordId: byUrl('={{ $json.url }}'), link: 'contacts' };
		for (const parameters of [
			{
				resource: 'relationship',
				operation: 'link',
				...target,
				relatedIds: '={{ $json.contact }}',
			},
			{ resource: 'relationship', operation: 'getManyRelated', ...target, returnAll: true },
			{
				resource: 'relationship',
				operation: 'unlink',
				...target,
				relatedId: '={{ $json.contact }}',
			},
		]) {
			expect((await bed.run(parameters, item)).error).toBeUndefined();
		}
		expect(bed.received().map((request) => `${request.method} ${request.path}`)).toEqual([
			`POST /Account/${account.id}/contacts`,
			`GET /Account/${account.id}/contacts`,
			`DELETE /Account/${account.id}/contacts`,
		]);
		const converted = await bed.run(
			{
				resource: 'lead',
				operation: 'convert',
				leadId: byUrl('={{ $json.lead }}'),
				records: { Contact: { lastName: 'Url' } },
			},
			item,
		);
		expect(converted.error).toBeUndefined();
		expect(
			bed
				.received()
				.slice(3)
				.map((request) => request.path),
		).toEqual([`/Lead/${lead.id}`, `/Lead/${lead.id}/action/convert`]);
	});

	test('an address that is not a record address names the parameter and the item', async () => {
		const result = await bed.run(
			{
				resource: 'record',
				operation: 'update',
				entityType: 'Contact',
				recordId: byUrl('={{ $json.url }}'),
				fields: { description: 'x' },
			},
			[{ url: 'https://crm.example.com/#Contact/list' }],
		);
		expect(result.error?.name).toBe('NodeOperationError');
		expect(result.error?.message).toBe(
			'The parameter "Record" is not a record address such as https://crm.example.com/#Contact/view/<id> (item 0)',
		);
		expect(bed.received()).toEqual([]);
	});
});

describe('OAuth 2.0: one token per n8n process at first use', () => {
	test('20 executions that start together with no token stored fetch one token, although n8n stores it only after the request', async () => {
		bed.sandbox.setDialect('standard');
		bed.use('oAuth2ClientCredentials');
		// A token request and n8n's write of the token into its database both take a while.
		bed.sandbox.faults.latencyMs = 50;
		bed.store.saveDelayMs = 150;
		const contact = bed.sandbox.store.create('Contact', { firstName: 'O', lastName: 'Auth' });
		const parameters = {
			resource: 'record',
			operation: 'get',
			entityType: 'Contact',
			recordId: { __rl: true, mode: 'id', value: contact.id },
		};
		try {
			const runs = await Promise.all(
				Array.from({ length: 20 }, async (_, n) => {
					// Executions start over the time the token is being fetched and stored.
					await new Promise((resolve) => setTimeout(resolve, n * 15));
					return await runNode({ parameters, store: bed.store });
				}),
			);
			for (const run of runs) expect(run.error).toBeUndefined();
			expect(bed.sandbox.tokensIssued).toBe(1);
			expect(bed.received('POST').map((request) => request.path)).toEqual(['/Auth']);
		} finally {
			bed.store.saveDelayMs = 0;
		}
	});
});

describe('e-mail addresses are checked before anything is sent', () => {
	const email = (parameters: IDataObject) => ({
		resource: 'email',
		operation: 'send',
		subject: 'Hi',
		body: 'Hello',
		...parameters,
	});

	test.each([
		[{ to: '={{ $json.missing ?? "" }}' }, 'The parameter "To" has no address (item 0)'],
		[
			{ to: 'not-an-address' },
			'The parameter "To" has "not-an-address", which is not an e-mail address (item 0)',
		],
		[
			{ to: 'ada@@example..com' },
			'The parameter "To" has "ada@@example..com", which is not an e-mail address (item 0)',
		],
		[
			{ to: 'ada@example.com; grace@' },
			'The parameter "To" has "grace@", which is not an e-mail address (item 0)',
		],
		[
			{ to: 'ada@example.com', emailOptions: { cc: 'ok@example.com, bad..dots@example.com' } },
			'The parameter "CC" has "bad..dots@example.com", which is not an e-mail address (item 0)',
		],
		[
			{ to: 'ada@example.com', emailOptions: { bcc: 'x@localhost' } },
			'The parameter "BCC" has "x@localhost", which is not an e-mail address (item 0)',
		],
	])('%j is refused', async (parameters, message) => {
		const result = await bed.run(email(parameters));
		expect(result.error?.name).toBe('NodeOperationError');
		expect(result.error?.message).toBe(message);
		expect(bed.received()).toEqual([]);
	});

	test('with Continue on fail, a bad address fails its item only; addresses separated by ; or , or given as a list are sent as one ; list', async () => {
		const result = await bed.run(
			email({ to: '={{ $json.to }}' }),
			[
				{ to: 'ada@example.com, grace@example.com' },
				{ to: 'nobody' },
				{ to: ['alan@example.com', 'edsger@example.org'] },
			],
			{ onError: 'continueRegularOutput' },
		);
		expect(result.items[1].error?.message).toContain('"nobody"');
		expect(bed.received('POST').map((request) => request.body.to)).toEqual([
			'ada@example.com;grace@example.com',
			'alan@example.com;edsger@example.org',
		]);
		expect(bed.sandbox.outbox).toHaveLength(2);
	});
});
