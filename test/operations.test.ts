/**
 * Relationships, bulk actions, lead conversion and e-mail, run through n8n's engine against the sandbox in each
 * server dialect. The sandbox is set to the one dialect, so it refuses the other dialect's forms: every test
 * proves that the node sends the form of the "Server" setting of the credential.
 */
import type { IDataObject } from 'n8n-workflow';

import { useSandbox } from './harness/sandboxRun';

const bed = useSandbox();

type Dialect = 'standard' | 'espocrm';

const byId = (value: string) => ({ __rl: true, mode: 'id', value });

describe.each<Dialect>(['standard', 'espocrm'])('dialect %s', (dialect) => {
	beforeEach(() => {
		bed.sandbox.setDialect(dialect);
		bed.use('apiKey', dialect);
	});

	describe('Relationship', () => {
		function accountWithContacts(count: number) {
			const account = bed.sandbox.store.create('Account', { name: 'Acme' });
			// Created in a shuffled order, so that sorting by last name is visible in the output.
			const order = Array.from({ length: count }, (_, i) => (i * 7919) % count);
			const contacts = order.map((n) => {
				const contact = bed.sandbox.store.create('Contact', {
					firstName: `F${n}`,
					lastName: `L${String(n).padStart(3, '0')}`,
				});
				bed.sandbox.store.link('Account', account.id, 'contacts', contact.id);
				return contact;
			});
			bed.sandbox.store.create('Contact', { firstName: 'Not', lastName: 'Linked' });
			return { account, contacts };
		}

		test('Get Many Related with Return All pages with maxSize/offset, sends select and sort, returns every related record', async () => {
			const { account } = accountWithContacts(450);
			const result = await bed.run({
				resource: 'relationship',
				operation: 'getManyRelated',
				entityType: 'Account',
				recordId: byId(account.id),
				link: 'contacts',
				returnAll: true,
				listOptions: { select: 'firstName, lastName', orderBy: 'lastName', order: 'asc' },
			});
			expect(result.error).toBeUndefined();
			expect(result.json).toHaveLength(450);
			expect(result.json.map((json) => json.lastName)).toEqual(
				Array.from({ length: 450 }, (_, i) => `L${String(i).padStart(3, '0')}`),
			);
			expect(result.json.some((json) => json.lastName === 'Linked')).toBe(false);
			const requests = bed.received();
			expect(requests.map((r) => [r.method, r.path])).toEqual([
				['GET', `/Account/${account.id}/contacts`],
				['GET', `/Account/${account.id}/contacts`],
				['GET', `/Account/${account.id}/contacts`],
			]);
			expect(requests.map((r) => [r.query.offset, r.query.maxSize])).toEqual([
				['0', '200'],
				['200', '200'],
				['400', '200'],
			]);
			for (const request of requests) {
				expect(request.query).toMatchObject({
					select: 'firstName,lastName',
					orderBy: 'lastName',
					order: 'asc',
				});
				expect(request.headers['x-api-key']).toBe('sandbox-api-key');
			}
		});

		test('Get Many Related with a Limit asks for that many records in one request', async () => {
			const { account } = accountWithContacts(30);
			const result = await bed.run({
				resource: 'relationship',
				operation: 'getManyRelated',
				entityType: 'Account',
				recordId: byId(account.id),
				link: 'contacts',
				returnAll: false,
				limit: 5,
				listOptions: { orderBy: 'lastName', order: 'desc' },
			});
			expect(result.error).toBeUndefined();
			expect(result.json.map((json) => json.lastName)).toEqual([
				'L029',
				'L028',
				'L027',
				'L026',
				'L025',
			]);
			const requests = bed.received();
			const list = { maxSize: '5', offset: '0', orderBy: 'lastName', order: 'desc' };
			if (dialect === 'standard') {
				expect(requests).toHaveLength(1);
				expect(requests[0].query).toEqual(list);
			} else {
				// EspoCRM answers a related list without select with little more than IDs: the node asks for every
				// field of the related type, from the metadata.
				expect(requests.map((request) => request.path)).toEqual([
					'/Metadata',
					`/Account/${account.id}/contacts`,
				]);
				expect(requests[1].query).toMatchObject(list);
				expect(String(requests[1].query.select).split(',')).toEqual(
					expect.arrayContaining([
						'id',
						'firstName',
						'lastName',
						'emailAddress',
						'accountId',
						'createdAt',
					]),
				);
			}
			expect(requests.at(-1)?.path).toBe(`/Account/${account.id}/contacts`);
		});

		test('Link sends {id} for one related record and {ids} for several, one output item per input item', async () => {
			const account = bed.sandbox.store.create('Account', { name: 'Acme' });
			const [c1, c2, c3] = ['One', 'Two', 'Three'].map((lastName) =>
				bed.sandbox.store.create('Contact', { lastName }),
			);
			const result = await bed.run(
				{
					resource: 'relationship',
					operation: 'link',
					entityType: 'Account',
					recordId: byId(account.id),
					link: 'contacts',
					relatedIds: '={{ $json.contactIds }}',
				},
				[{ contactIds: c1.id }, { contactIds: `${c2.id}, ${c3.id}` }],
			);
			expect(result.error).toBeUndefined();
			expect(result.json).toEqual([
				{ id: account.id, relationship: 'contacts', linked: [c1.id] },
				{ id: account.id, relationship: 'contacts', linked: [c2.id, c3.id] },
			]);
			expect(result.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
			const posts = bed.received('POST');
			expect(bed.received()).toHaveLength(2);
			expect(posts.map((r) => r.path)).toEqual([
				`/Account/${account.id}/contacts`,
				`/Account/${account.id}/contacts`,
			]);
			expect(posts.map((r) => r.body)).toEqual(
				expect.arrayContaining([{ id: c1.id }, { ids: [c2.id, c3.id] }]),
			);
			expect(posts.map((r) => r.headers['content-type'])).toEqual([
				expect.stringMatching(/application\/json/),
				expect.stringMatching(/application\/json/),
			]);
			expect(
				bed.sandbox.store
					.related('Account', account.id, 'contacts')
					.map((c) => c.id)
					.sort(),
			).toEqual([c1.id, c2.id, c3.id].sort());
		});

		test('Unlink sends the ID in the query and in the body, and the record is really unlinked', async () => {
			const account = bed.sandbox.store.create('Account', { name: 'Acme' });
			const [c1, c2] = ['One', 'Two'].map((lastName) =>
				bed.sandbox.store.create('Contact', { lastName }),
			);
			bed.sandbox.store.link('Account', account.id, 'contacts', c1.id);
			bed.sandbox.store.link('Account', account.id, 'contacts', c2.id);
			const result = await bed.run({
				resource: 'relationship',
				operation: 'unlink',
				entityType: 'Account',
				recordId: byId(account.id),
				link: 'contacts',
				relatedId: c1.id,
			});
			expect(result.error).toBeUndefined();
			expect(result.json).toEqual([
				{ id: account.id, relationship: 'contacts', unlinked: [c1.id] },
			]);
			const requests = bed.received();
			expect(requests).toHaveLength(1);
			expect(requests[0]).toMatchObject({
				method: 'DELETE',
				path: `/Account/${account.id}/contacts`,
				query: { id: c1.id },
				body: { id: c1.id },
				status: 200,
			});
			expect(bed.sandbox.store.related('Account', account.id, 'contacts').map((c) => c.id)).toEqual(
				[c2.id],
			);
			// Neither record is deleted.
			expect(bed.sandbox.store.get('Contact', c1.id)).toBeDefined();
		});

		test("an unknown relationship name that EspoCRM 9 answers with 404 'Link does not exist.' points at the relationship, not the record", async () => {
			const account = bed.sandbox.store.create('Account', { name: 'Acme' });
			// EspoCRM 9.1.7's answer (8.1.5 answers 500): the sandbox stays faithful to 8.1.5, so it is injected.
			bed.sandbox.faults.failNext({
				status: 404,
				reason: 'Link does not exist.',
				pathPrefix: `/Account/${account.id}/contactz`,
			});
			const result = await bed.run({
				resource: 'relationship',
				operation: 'getManyRelated',
				entityType: 'Account',
				recordId: byId(account.id),
				link: 'contactz',
				limit: 5,
			});
			expect(result.error?.name).toBe('NodeApiError');
			expect(result.error?.httpCode).toBe('404');
			expect(result.error?.message).toBe(
				'The entity type has no relationship of that name (404): Link does not exist.',
			);
			expect(result.error?.description).toContain('"Relationship Name or ID"');
			expect(result.error?.description).not.toContain('record ID');
			// (EspoCRM: the metadata is read first, for the related entity type's fields)
			expect(bed.received().filter((r) => r.path !== '/Metadata')).toEqual([
				expect.objectContaining({
					method: 'GET',
					path: `/Account/${account.id}/contactz`,
					status: 404,
				}),
			]);
		});

		test('Unlink takes the IDs as Link does ("id1, id2" or a list): one DELETE per ID', async () => {
			const account = bed.sandbox.store.create('Account', { name: 'Acme' });
			const [c1, c2, c3, c4] = ['One', 'Two', 'Three', 'Four'].map((lastName) =>
				bed.sandbox.store.create('Contact', { lastName }),
			);
			for (const c of [c1, c2, c3, c4])
				bed.sandbox.store.link('Account', account.id, 'contacts', c.id);
			const result = await bed.run(
				{
					resource: 'relationship',
					operation: 'unlink',
					entityType: 'Account',
					recordId: byId(account.id),
					link: 'contacts',
					relatedId: '={{ $json.contactIds }}',
				},
				[{ contactIds: `${c1.id}, ${c2.id}` }, { contactIds: [c3.id] }],
			);
			expect(result.error).toBeUndefined();
			expect(result.json).toEqual([
				{ id: account.id, relationship: 'contacts', unlinked: [c1.id, c2.id] },
				{ id: account.id, relationship: 'contacts', unlinked: [c3.id] },
			]);
			const deletes = bed.received('DELETE');
			expect(bed.received()).toHaveLength(3);
			expect(deletes.map((r) => [r.query.id, r.body])).toEqual(
				expect.arrayContaining([c1, c2, c3].map((c) => [c.id, { id: c.id }])),
			);
			expect(deletes.map((r) => r.status)).toEqual([200, 200, 200]);
			expect(bed.sandbox.store.related('Account', account.id, 'contacts').map((c) => c.id)).toEqual(
				[c4.id],
			);
		});
	});

	describe('Bulk', () => {
		function accounts(count: number) {
			return Array.from({ length: count }, (_, i) =>
				bed.sandbox.store.create('Account', { name: `Account ${i}`, status: 'New' }),
			);
		}

		test('Mass Update gathers the IDs of 250 items (default {{ $json.id }}) into 3 requests of at most 100', async () => {
			const records = accounts(250);
			const untouched = bed.sandbox.store.create('Account', { name: 'Untouched', status: 'New' });
			const result = await bed.run(
				{
					resource: 'bulk',
					operation: 'massUpdate',
					entityType: 'Account',
					fields: { status: 'Active' },
				},
				records.map((record) => ({ id: record.id, name: record.name })),
			);
			expect(result.error).toBeUndefined();

			const requests = bed.received();
			expect(requests).toHaveLength(3);
			const chunks = [records.slice(0, 100), records.slice(100, 200), records.slice(200)].map(
				(chunk) => chunk.map((r) => r.id),
			);
			requests.forEach((request, index) => {
				expect(request.status).toBe(200);
				if (dialect === 'standard') {
					expect(request.method).toBe('PUT');
					expect(request.path).toBe('/Account/action/massUpdate');
					expect(request.body).toEqual({ ids: chunks[index], attributes: { status: 'Active' } });
				} else {
					expect(request.method).toBe('POST');
					expect(request.path).toBe('/MassAction');
					expect(request.body).toEqual({
						entityType: 'Account',
						action: 'update',
						params: { ids: chunks[index] },
						data: { status: 'Active' },
					});
				}
			});

			expect(result.json).toEqual(
				chunks.map((ids) => ({
					entityType: 'Account',
					requested: ids.length,
					count: ids.length,
					ids,
				})),
			);
			expect(result.items[0].pairedItem).toEqual(
				Array.from({ length: 100 }, (_, item) => ({ item })),
			);
			expect(result.items[1].pairedItem).toEqual(
				Array.from({ length: 100 }, (_, i) => ({ item: 100 + i })),
			);
			expect(result.items[2].pairedItem).toEqual(
				Array.from({ length: 50 }, (_, i) => ({ item: 200 + i })),
			);

			expect(
				records.every((record) => bed.sandbox.store.get('Account', record.id)?.status === 'Active'),
			).toBe(true);
			expect(bed.sandbox.store.get('Account', untouched.id)?.status).toBe('New');
		});

		test('Mass Delete deletes the records of all items, chunk by chunk', async () => {
			const records = accounts(5);
			const kept = bed.sandbox.store.create('Account', { name: 'Kept' });
			const result = await bed.run(
				{ resource: 'bulk', operation: 'massDelete', entityType: 'Account', chunkSize: 2 },
				// Several IDs in one item, and an ID repeated by two items, are sent once.
				[
					{ id: `${records[0].id}, ${records[1].id}` },
					{ id: records[2].id },
					{ id: records[3].id },
					{ id: records[4].id },
					{ id: records[4].id },
				],
			);
			expect(result.error).toBeUndefined();
			const chunks = [
				[records[0].id, records[1].id],
				[records[2].id, records[3].id],
				[records[4].id],
			];
			const requests = bed.received();
			expect(requests).toHaveLength(3);
			requests.forEach((request, index) => {
				expect(request.method).toBe('POST');
				expect(request.status).toBe(200);
				if (dialect === 'standard') {
					expect(request.path).toBe('/Account/action/massDelete');
					expect(request.body).toEqual({ ids: chunks[index] });
				} else {
					expect(request.path).toBe('/MassAction');
					expect(request.body).toEqual({
						entityType: 'Account',
						action: 'delete',
						params: { ids: chunks[index] },
					});
				}
			});
			expect(result.json).toEqual(
				chunks.map((ids) => ({
					entityType: 'Account',
					requested: ids.length,
					outcome: 'deleted',
					count: ids.length,
					ids,
					deleted: true,
				})),
			);
			expect(result.items.map((item) => item.pairedItem)).toEqual([
				[{ item: 0 }],
				[{ item: 1 }, { item: 2 }],
				[{ item: 3 }, { item: 4 }],
			]);
			expect(bed.sandbox.store.list('Account').map((r) => r.id)).toEqual([kept.id]);
		});

		test('Mass Delete says deleted: false when EspoCRM deleted fewer records than asked (an ID that does not exist)', async () => {
			const [record] = accounts(1);
			const result = await bed.run(
				{ resource: 'bulk', operation: 'massDelete', entityType: 'Account' },
				[{ id: record.id }, { id: 'b000000000000dead' }],
			);
			expect(result.error).toBeUndefined();
			// A Standard server answers `true` without a count: all that is known is that it took the request.
			const told =
				dialect === 'espocrm'
					? { count: 1, deleted: false, outcome: 'incomplete' }
					: { count: 2, deleted: true, outcome: 'deleted' };
			expect(result.json).toEqual([expect.objectContaining({ requested: 2, ...told })]);
			expect(bed.sandbox.store.get('Account', record.id)).toBeUndefined();
		});

		test.each(['massUpdate', 'massDelete'])(
			'%s with no ID in any item fails before sending anything',
			async (operation) => {
				accounts(2);
				const result = await bed.run(
					{ resource: 'bulk', operation, entityType: 'Account', fields: { status: 'Active' } },
					[{}, { name: 'no id here' }],
				);
				expect(result.error?.name).toBe('NodeOperationError');
				expect(result.error?.message).toContain('No input item has a record ID in the field "id"');
				expect(result.error?.description).toContain('Nothing was sent');
				expect(result.json).toEqual([]);
				expect(bed.received()).toEqual([]);
				expect(bed.sandbox.store.list('Account').map((r) => r.status)).toEqual(['New', 'New']);
			},
		);
	});

	describe('Lead Convert', () => {
		const records = {
			Account: {
				name: 'Analytical Engines Ltd',
				moreFields: '{"website": "https://engines.example.com"}',
			},
			Contact: { firstName: 'Ada', lastName: 'Lovelace' },
			Opportunity: { name: 'Difference Engine', amount: 5000 },
		};
		const recordsSent = {
			Account: { name: 'Analytical Engines Ltd', website: 'https://engines.example.com' },
			Contact: { firstName: 'Ada', lastName: 'Lovelace' },
			Opportunity: { name: 'Difference Engine', amount: 5000 },
		};

		function expectConvertRequest(
			request: IDataObject & { method: string; path: string; body: unknown },
			leadId: string,
			sent: IDataObject,
		) {
			expect(request.method).toBe('POST');
			if (dialect === 'standard') {
				expect(request.path).toBe(`/Lead/${leadId}/action/convert`);
				expect(request.body).toEqual({ records: sent });
			} else {
				expect(request.path).toBe('/Lead/action/convert');
				expect(request.body).toEqual({ id: leadId, records: sent });
			}
			expect(request.status).toBe(200);
		}

		test('looks at the lead, then converts it: the records are created and linked', async () => {
			const lead = bed.sandbox.store.create('Lead', {
				firstName: 'Ada',
				lastName: 'Lovelace',
				status: 'New',
			});
			const result = await bed.run({
				resource: 'lead',
				operation: 'convert',
				leadId: byId(lead.id),
				records,
			});
			expect(result.error).toBeUndefined();

			const requests = bed.received();
			expect(requests.map((r) => [r.method, r.path])[0]).toEqual(['GET', `/Lead/${lead.id}`]);
			expect(requests).toHaveLength(2);
			expectConvertRequest(requests[1] as never, lead.id, recordsSent);

			const [account] = bed.sandbox.store.list('Account');
			const [contact] = bed.sandbox.store.list('Contact');
			const [opportunity] = bed.sandbox.store.list('Opportunity');
			expect(account).toMatchObject({
				name: 'Analytical Engines Ltd',
				website: 'https://engines.example.com',
			});
			expect(contact).toMatchObject({
				firstName: 'Ada',
				lastName: 'Lovelace',
				accountId: account.id,
			});
			expect(opportunity).toMatchObject({
				name: 'Difference Engine',
				amount: 5000,
				accountId: account.id,
			});
			expect(
				bed.sandbox.store.related('Opportunity', opportunity.id, 'contacts').map((c) => c.id),
			).toEqual([contact.id]);

			expect(result.json).toHaveLength(1);
			expect(result.json[0]).toMatchObject({
				id: lead.id,
				status: 'Converted',
				createdAccountId: account.id,
				createdContactId: contact.id,
				createdOpportunityId: opportunity.id,
			});
			expect(bed.sandbox.store.get('Lead', lead.id)?.status).toBe('Converted');
		});

		test('only the records added are created', async () => {
			const lead = bed.sandbox.store.create('Lead', { firstName: 'Grace', lastName: 'Hopper' });
			const result = await bed.run({
				resource: 'lead',
				operation: 'convert',
				leadId: byId(lead.id),
				records: { Contact: { firstName: 'Grace', lastName: 'Hopper' } },
			});
			expect(result.error).toBeUndefined();
			expectConvertRequest(bed.received('POST')[0] as never, lead.id, {
				Contact: { firstName: 'Grace', lastName: 'Hopper' },
			});
			expect(bed.sandbox.store.count('Account')).toBe(0);
			expect(bed.sandbox.store.count('Opportunity')).toBe(0);
			expect(bed.sandbox.store.count('Contact')).toBe(1);
			expect(result.json[0].createdContactId).toBe(bed.sandbox.store.list('Contact')[0].id);
		});

		async function convertedLead() {
			const lead = bed.sandbox.store.create('Lead', { firstName: 'Ada', lastName: 'Lovelace' });
			const first = await bed.run({
				resource: 'lead',
				operation: 'convert',
				leadId: byId(lead.id),
				records,
			});
			expect(first.error).toBeUndefined();
			bed.sandbox.clearRequests();
			return { lead, created: first.json[0] };
		}

		test('an already converted lead is refused by default, without a convert request', async () => {
			const { lead, created } = await convertedLead();
			const result = await bed.run({
				resource: 'lead',
				operation: 'convert',
				leadId: byId(lead.id),
				records,
			});
			expect(result.error?.name).toBe('NodeOperationError');
			expect(result.error?.message).toContain(`Lead ${lead.id} is already converted`);
			expect(result.error?.description).toContain(String(created.createdAccountId));
			expect(bed.received().map((r) => [r.method, r.path])).toEqual([['GET', `/Lead/${lead.id}`]]);
			expect(bed.sandbox.store.count('Account')).toBe(1);
		});

		test('"skip" returns the records of the earlier conversion, without a convert request', async () => {
			const { lead, created } = await convertedLead();
			const result = await bed.run({
				resource: 'lead',
				operation: 'convert',
				leadId: byId(lead.id),
				records,
				ifConverted: 'skip',
			});
			expect(result.error).toBeUndefined();
			expect(result.json).toEqual([
				{
					id: lead.id,
					alreadyConverted: true,
					createdAccountId: created.createdAccountId,
					createdContactId: created.createdContactId,
					createdOpportunityId: created.createdOpportunityId,
				},
			]);
			expect(bed.received().map((r) => [r.method, r.path])).toEqual([['GET', `/Lead/${lead.id}`]]);
			expect(bed.sandbox.store.count('Contact')).toBe(1);
		});

		test('"convertAgain" converts the lead once more', async () => {
			const { lead, created } = await convertedLead();
			const again = {
				Account: { name: 'Second Ltd' },
				Opportunity: { name: 'Second deal', amount: 1 },
			};
			const result = await bed.run({
				resource: 'lead',
				operation: 'convert',
				leadId: byId(lead.id),
				records: again,
				ifConverted: 'convertAgain',
			});
			expect(result.error).toBeUndefined();
			const requests = bed.received();
			expect(requests).toHaveLength(1);
			expectConvertRequest(requests[0] as never, lead.id, {
				Account: { name: 'Second Ltd' },
				Opportunity: { name: 'Second deal', amount: 1 },
			});
			expect(bed.sandbox.store.count('Account')).toBe(2);
			expect(result.json[0].createdAccountId).not.toBe(created.createdAccountId);
			expect(result.json[0].createdAccountId).toBe(bed.sandbox.store.list('Account')[1].id);
		});

		test('with "Continue on fail" a converted lead becomes an error item and the next lead is converted', async () => {
			const { lead } = await convertedLead();
			const fresh = bed.sandbox.store.create('Lead', { firstName: 'Grace', lastName: 'Hopper' });
			const result = await bed.run(
				{
					resource: 'lead',
					operation: 'convert',
					leadId: { __rl: true, mode: 'id', value: '={{ $json.leadId }}' },
					records: { Contact: { firstName: '={{ $json.first }}', lastName: '={{ $json.last }}' } },
				},
				[
					{ leadId: lead.id, first: 'Ada', last: 'Again' },
					{ leadId: fresh.id, first: 'Grace', last: 'Hopper' },
				],
				{ onError: 'continueRegularOutput' },
			);
			expect(result.error).toBeUndefined();
			expect(result.json).toHaveLength(2);
			expect(result.json[0].error).toEqual(expect.stringContaining('already converted'));
			expect(result.json[1]).toMatchObject({ id: fresh.id, status: 'Converted' });
			expect(bed.received('POST')).toHaveLength(1);
			expectConvertRequest(bed.received('POST')[0] as never, fresh.id, {
				Contact: { firstName: 'Grace', lastName: 'Hopper' },
			});
		});
	});

	describe('Email Send', () => {
		const message = {
			resource: 'email',
			operation: 'send',
			to: 'ada@example.com, grace@example.com',
			subject: 'Hello',
			body: '<p>Hi</p>',
			isHtml: true,
			from: 'sales@example.com',
		};

		test('sends the e-mail with all its fields, in the form of the dialect', async () => {
			const contact = bed.sandbox.store.create('Contact', { lastName: 'Lovelace' });
			const result = await bed.run({
				...message,
				emailOptions: {
					cc: 'cc@example.com',
					bcc: 'bcc1@example.com; bcc2@example.com',
					parentType: 'Contact',
					parentId: contact.id,
				},
			});
			expect(result.error).toBeUndefined();
			const requests = bed.received();
			expect(requests).toHaveLength(1);
			expect(requests[0]).toMatchObject({ method: 'POST', path: '/Email', status: 200 });
			expect(requests[0].headers['content-type']).toMatch(/application\/json/);
			const expectedBody: IDataObject = {
				to: 'ada@example.com;grace@example.com',
				subject: 'Hello',
				body: '<p>Hi</p>',
				isHtml: true,
				from: 'sales@example.com',
				cc: 'cc@example.com',
				bcc: 'bcc1@example.com;bcc2@example.com',
				parentType: 'Contact',
				parentId: contact.id,
			};
			if (dialect === 'espocrm') Object.assign(expectedBody, { name: 'Hello', status: 'Sending' });
			expect(requests[0].body).toEqual(expectedBody);

			expect(bed.sandbox.outbox).toHaveLength(1);
			expect(bed.sandbox.outbox[0]).toMatchObject({
				from: 'sales@example.com',
				to: ['ada@example.com', 'grace@example.com'],
				cc: ['cc@example.com'],
				bcc: ['bcc1@example.com', 'bcc2@example.com'],
				subject: 'Hello',
				body: '<p>Hi</p>',
				isHtml: true,
			});
			expect(result.json).toHaveLength(1);
			expect(result.json[0]).toMatchObject({
				id: bed.sandbox.outbox[0].emailId,
				status: 'Sent',
				parentId: contact.id,
			});
		});

		if (dialect === 'standard') {
			test('works without a sender address', async () => {
				const result = await bed.run({ ...message, from: '', isHtml: false, body: 'Hi' });
				expect(result.error).toBeUndefined();
				const [request] = bed.received();
				expect(request.body).toEqual({
					to: 'ada@example.com;grace@example.com',
					subject: 'Hello',
					body: 'Hi',
					isHtml: false,
				});
				expect(bed.sandbox.outbox).toHaveLength(1);
				expect(bed.sandbox.outbox[0]).toMatchObject({ from: null, isHtml: false, body: 'Hi' });
				expect(result.json[0]).toMatchObject({ status: 'Sent' });
			});
		} else {
			test('without a sender address fails before sending anything', async () => {
				const result = await bed.run({ ...message, from: '  ' });
				// The node throws a NodeOperationError in its preSend; n8n's RoutingNode hands any error of a
				// declarative request on as a NodeApiError (routing-node.js, runNode), keeping message and description.
				expect(['NodeOperationError', 'NodeApiError']).toContain(result.error?.name);
				expect(result.error?.message).toContain('"From" is empty');
				expect(result.error?.description).toContain('EspoCRM needs the sender address');
				expect(bed.received()).toEqual([]);
				expect(bed.sandbox.outbox).toEqual([]);
			});
		}

		test("a sender address that EspoCRM 9 refuses (403 Not allowed 'from' address.) says which addresses the API user may send from", async () => {
			// EspoCRM 9.1.7's answer for an API user without an address of its own, a shared group account or a
			// system address held by a group account (Email's CheckFromAddress): injected, the sandbox being 8.1.5.
			bed.sandbox.faults.failNext({
				status: 403,
				reason: "Not allowed 'from' address.",
				method: 'POST',
				pathPrefix: '/Email',
			});
			const result = await bed.run(message);
			expect(result.error?.name).toBe('NodeApiError');
			expect(result.error?.httpCode).toBe('403');
			expect(result.error?.message).toBe(
				'The server refused the sender address in "From" (403): Not allowed \'from\' address.',
			);
			expect(result.error?.description).toContain('Group Email Accounts');
			expect(result.error?.description).toContain('Outbound Emails > Is Shared');
			expect(result.error?.description).not.toContain('role does not allow this');
			expect(bed.received()).toEqual([
				expect.objectContaining({ method: 'POST', path: '/Email', status: 403 }),
			]);
			expect(bed.sandbox.outbox).toEqual([]);
		});

		test('a mail that the server cannot send is an error saying it was not sent', async () => {
			bed.sandbox.faults.emailSendingFails = true;
			const result = await bed.run(message);
			expect(result.error?.name).toBe('NodeApiError');
			expect(result.error?.httpCode).toBe('500');
			expect(`${result.error?.message} ${result.error?.description}`).toMatch(/not (been )?sent/i);
			expect(bed.received()).toHaveLength(1);
			expect(bed.received()[0]).toMatchObject({ method: 'POST', path: '/Email', status: 500 });
			expect(bed.sandbox.outbox).toEqual([]);
		});
	});
});

describe("Get Many Related on EspoCRM, which reads the metadata for the related type's select", () => {
	beforeEach(() => {
		bed.sandbox.setDialect('espocrm');
		bed.use('apiKey', 'espocrm');
	});

	test('the metadata unreadable: read once for the run, and each item with Continue on Fail fails as itself', async () => {
		const accounts = ['Acme', 'Globex', 'Initech'].map((name) =>
			bed.sandbox.store.create('Account', { name }),
		);
		bed.sandbox.faults.failNext({ method: 'GET', pathPrefix: '/Metadata', status: 500 });
		const result = await bed.run(
			{
				resource: 'relationship',
				operation: 'getManyRelated',
				entityType: 'Account',
				recordId: byId('={{ $json.id }}'),
				link: 'contacts',
				limit: 5,
				requestSettings: { maxRetries: 0 },
			},
			accounts.map(({ id }) => ({ id })),
			{ onError: 'continueRegularOutput' },
		);
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.error?.message)).toEqual(
			Array(3).fill(expect.stringContaining('(500)')),
		);
		expect(
			result.items.map((item) => (item.error as { context?: IDataObject })?.context?.itemIndex),
		).toEqual([0, 1, 2]);
		expect(bed.received().map((r) => `${r.method} ${r.path}`)).toEqual(['GET /Metadata']);
	});
});
