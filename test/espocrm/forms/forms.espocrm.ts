/**
 * The forms' lists, the credential test and the polling trigger against the real EspoCRM (7.5.6 to 9.3.4): the node's
 * loadOptions, listSearch and resourceMapping methods, its credential test and the trigger's poll, run through n8n's
 * own contexts (the engine harness), with the credentials of test/espocrm/credentials.js. A phase of
 * `npm run test:espocrm` (test/espocrm/run.js starts it with `RMS_ESPOCRM` = {origin, credentials}); not part of
 * `npm test`, whose jest only runs `*.test.ts`.
 */
import { CredentialStore, loadFormList, testCredential } from '../../harness/engine';
import { pollingTrigger } from '../../harness/triggers';

interface Target {
	origin: string;
	credentials: Array<{ id: string; name: string; data: Record<string, string | boolean> }>;
}

function target(): Target {
	const given = process.env.RMS_ESPOCRM;
	if (!given) throw new Error('RMS_ESPOCRM is not set: run this through npm run test:espocrm');
	return JSON.parse(given) as Target;
}

const { origin, credentials } = target();
const credential = (scheme: 'API key' | 'HMAC' | 'Basic') =>
	credentials.find((c) => c.name.includes(`(${scheme}`))!.data;

const store = new CredentialStore();
beforeEach(() => store.set('rms', credential('API key')));

type Options = Array<{ name: string; value: string }>;
const list = async (method: string, parameters: Record<string, unknown> = {}) =>
	(await loadFormList(store, 'loadOptions', method, {
		resource: 'record',
		operation: 'getMany',
		entityType: 'Contact',
		...parameters,
	})) as Options;
const values = (options: Options) => options.map((option) => option.value);

describe('the credential test on the real EspoCRM', () => {
	test.each(['API key', 'HMAC', 'Basic'] as const)('%s: accepted', async (scheme) => {
		store.set('rms', credential(scheme));
		expect(await testCredential(store)).toMatchObject({ status: 'OK' });
	});

	test('a Base URL that serves the web UI instead of the API says so', async () => {
		// EspoCRM answers any other path with its web page (200, text/html), as a catch-all does.
		store.set('rms', { ...credential('API key'), baseUrl: `${origin}/crm` });
		const result = await testCredential(store);
		expect(result.status).toBe('Error');
		expect(result.message).toContain('a web page');
	});

	test('a wrong API key is refused (401), named as such', async () => {
		store.set('rms', { ...credential('API key'), apiKey: 'not-the-key' });
		expect(await testCredential(store)).toEqual({
			status: 'Error',
			message: expect.stringContaining('refused these credentials (401)'),
		});
	});
});

describe("the forms' lists from EspoCRM's metadata and labels", () => {
	test('entity types, fields by label, relationships with their target', async () => {
		expect(values(await list('getEntityTypes'))).toEqual(
			expect.arrayContaining(['Account', 'Contact', 'Lead', 'Opportunity', 'Meeting', 'custom']),
		);
		const fields = await list('getFields');
		expect(fields).toEqual(
			expect.arrayContaining([
				{ name: 'Do Not Call (doNotCall)', value: 'doNotCall' },
				{ name: 'Name (name)', value: 'name' },
			]),
		);
		expect(values(await list('getSortableFields'))).toEqual(
			expect.arrayContaining(['name', 'lastName', 'createdAt']),
		);
		expect(
			await list('getLinks', {
				resource: 'relationship',
				operation: 'getManyRelated',
				entityType: 'Account',
			}),
		).toEqual(
			expect.arrayContaining([{ name: 'Contacts (contacts) → Contact', value: 'contacts' }]),
		);
	});

	test("Get Many Related: the related type's fields and relationships", async () => {
		const related = {
			resource: 'relationship',
			operation: 'getManyRelated',
			entityType: 'Account',
			link: 'contacts',
		};
		const fields = values(await list('getFields', related));
		expect(fields).toEqual(expect.arrayContaining(['firstName', 'lastName', 'emailAddress']));
		expect(fields).not.toContain('industry');
		expect(values(await list('getFilterAttributes', related))).toEqual(
			expect.arrayContaining(['lastName', 'opportunities']),
		);
	});

	test('the field mapper: Meeting dates as date-times, the required assigned user, enum values by label', async () => {
		const { fields } = (await loadFormList(store, 'resourceMapping', 'getMappingFields', {
			resource: 'record',
			operation: 'create',
			entityType: 'Meeting',
		})) as {
			fields: Array<{ id: string; type: string; required: boolean; options?: Options }>;
		};
		const byId = Object.fromEntries(fields.map((field) => [field.id, field]));
		expect(byId.dateStart).toMatchObject({ type: 'dateTime' });
		expect(byId.assignedUserId).toMatchObject({ required: true });
		expect(byId.status.options).toEqual(
			expect.arrayContaining([
				{ name: 'Planned', value: 'Planned' },
				{ name: 'Held', value: 'Held' },
			]),
		);
	});

	test('enum options borrowed from another field (optionsReference) are offered in the mapper and the filters; ID once', async () => {
		const mapperOf = async (entityType: string) => {
			const { fields } = (await loadFormList(store, 'resourceMapping', 'getMappingFields', {
				resource: 'record',
				operation: 'create',
				entityType,
			})) as {
				fields: Array<{ id: string; type: string; options?: Options }>;
			};
			return Object.fromEntries(fields.map((field) => [field.id, field]));
		};
		const opportunity = await mapperOf('Opportunity');
		expect(opportunity.leadSource).toMatchObject({ type: 'options' });
		expect(opportunity.leadSource.options).toEqual(
			expect.arrayContaining([
				{ name: 'Call', value: 'Call' },
				{ name: 'Web Site', value: 'Web Site' },
			]),
		);
		const lead = await mapperOf('Lead');
		expect(lead.industry).toMatchObject({ type: 'options' });
		expect(lead.industry.options).toEqual(
			expect.arrayContaining([{ name: 'Banking', value: 'Banking' }]),
		);
		const filters = await list('getFilterAttributes', { entityType: 'Opportunity' });
		expect(
			(
				filters.find((option) => option.value === 'leadSource') as
					{ description?: string } | undefined
			)?.description,
		).toContain('Web Site');
		for (const method of ['getFields', 'getSortableFields', 'getFilterAttributes']) {
			expect(
				(await list(method, { entityType: 'Opportunity' })).filter(
					(option) => option.value === 'id',
				),
			).toHaveLength(1);
		}
	});

	test('a list field of the mapper is text that takes "a, b" (n8n refuses a literal in a field of type array)', async () => {
		const { fields } = (await loadFormList(store, 'resourceMapping', 'getMappingFields', {
			resource: 'record',
			operation: 'create',
			entityType: 'Account',
		})) as {
			fields: Array<{ id: string; type: string; displayName: string }>;
		};
		const lists = fields.filter((field) => field.displayName.endsWith(', list: a, b)'));
		expect(lists.length).toBeGreaterThan(0);
		expect(lists.every((field) => field.type === 'string')).toBe(true);
	});

	test('picking a record: the Accounts EspoCRM holds, searched by name', async () => {
		const marker = `Forms-${Date.now()}`;
		const created = await createAccount(`${marker} Acme`);
		const search = (await loadFormList(
			store,
			'listSearch',
			'searchRecords',
			{ resource: 'record', operation: 'get', entityType: 'Account' },
			marker,
		)) as {
			results: Options;
		};
		expect(search.results).toEqual([{ name: `${marker} Acme`, value: created }]);
	});
});

describe('the polling trigger on the real EspoCRM (its own date-time form, paging, records sharing a second)', () => {
	// Target lists, which no workflow of the run touches (their checks count the Contacts and Accounts they see), and of
	// those only this test's.
	const watching = (marker: string, event: string) => ({
		entityType: 'TargetList',
		event,
		filterMode: 'conditions',
		conditions: { condition: [{ attribute: 'name', operator: 'startsWith', value: marker }] },
	});
	const ids = (records: Array<{ id?: unknown }> | null) =>
		(records ?? []).map((record) => record.id);

	test('Created: nothing on the first poll, then each new target list once, over more than a page', async () => {
		const marker = `PollNew-${Date.now()}`;
		const trigger = pollingTrigger(store, watching(marker, 'created'), 'Pacific/Kiritimati');
		await api('POST', '/TargetList', { name: `${marker}-before` });
		expect(await trigger.poll()).toBeNull();
		// Four at once share a second of createdAt; 205 more take the poll past one page of 200.
		const first = await Promise.all(
			[1, 2, 3, 4].map(
				async (n) => (await api('POST', '/TargetList', { name: `${marker}-a${n}` })).id,
			),
		);
		expect((ids(await trigger.poll()) as string[]).sort()).toEqual([...first].sort());
		expect(await trigger.poll()).toBeNull();
		const many: string[] = [];
		for (let n = 0; n < 205; n += 5)
			many.push(
				...(await Promise.all(
					[0, 1, 2, 3, 4].map(
						async (k) => (await api('POST', '/TargetList', { name: `${marker}-b${n + k}` })).id,
					),
				)),
			);
		const emitted = ids(await trigger.poll()) as string[];
		expect(emitted).toHaveLength(205);
		expect([...emitted].sort()).toEqual([...many].sort());
		expect(await trigger.poll()).toBeNull();
	});

	test('Created or Updated, in New York: an update comes once, as the record is now; a test event is the newest', async () => {
		const marker = `PollChanged-${Date.now()}`;
		const list = await api('POST', '/TargetList', { name: `${marker}-x` });
		const trigger = pollingTrigger(store, watching(marker, 'createdOrUpdated'), 'America/New_York');
		expect(await trigger.poll()).toBeNull();
		// EspoCRM writes modifiedAt to the second: wait for the next one, so that the change is newer than the poll.
		await new Promise((resolve) => setTimeout(resolve, 1100));
		await api('PUT', `/TargetList/${list.id}`, { description: 'Changed once' });
		await api('PUT', `/TargetList/${list.id}`, { description: 'Changed twice' });
		expect(await trigger.poll()).toEqual([
			expect.objectContaining({ id: list.id, description: 'Changed twice' }),
		]);
		expect(await trigger.poll()).toBeNull();
		expect(ids(await trigger.poll('manual'))).toEqual([list.id]);
	});
});

describe("the New Stream Note trigger on the real EspoCRM (a record's stream, posts sharing a second)", () => {
	test('nothing on the first poll; then each new post once, oldest first; other note types and other records not', async () => {
		const account = await createAccount(`StreamPoll-${Date.now()}`);
		const post = async (text: string) =>
			(
				await api('POST', '/Note', {
					type: 'Post',
					parentType: 'Account',
					parentId: account,
					post: text,
				})
			).id;
		await post('before the trigger');
		const trigger = pollingTrigger(
			store,
			{
				event: 'streamNote',
				entityType: 'Account',
				recordId: { __rl: true, mode: 'id', value: account },
			},
			'Pacific/Pago_Pago',
		);
		expect(await trigger.poll()).toBeNull();
		// Three in the same second or two; a Call about the account (its stream gets a CreateRelated note, not a post);
		// another record's post.
		const first = await post('one');
		const second = await post('two');
		const third = await post('three');
		const me = (await api('GET', '/App/user')).user as { id: string };
		await api('POST', '/Call', {
			name: 'About the posts',
			parentType: 'Account',
			parentId: account,
			assignedUserId: me.id,
			dateStart: '2026-12-01 10:00:00',
			dateEnd: '2026-12-01 10:30:00',
		});
		await api('POST', '/Note', {
			type: 'Post',
			parentType: 'Account',
			parentId: await createAccount(`StreamOther-${Date.now()}`),
			post: 'elsewhere',
		});
		const stream = (await api('GET', `/Account/${account}/stream`)).list as Array<{ type: string }>;
		expect(stream.map((note) => note.type)).toContain('CreateRelated');
		const emitted = await trigger.poll();
		expect((emitted ?? []).map((note) => note.id)).toEqual([first, second, third]);
		expect((emitted ?? []).map((note) => note.post)).toEqual(['one', 'two', 'three']);
		expect(await trigger.poll()).toBeNull();
		// EspoCRM writes createdAt to the second: the next post may share the last one's (when EspoCRM is quick), and
		// must come once either way.
		const fourth = await post('four');
		expect((await trigger.poll())?.map((note) => note.id)).toEqual([fourth]);
		expect(await trigger.poll()).toBeNull();
	});
});

describe('the New Stream Note trigger, Note Types "Status Changed (Any Version)", on the real EspoCRM (issue 46)', () => {
	test('each stage change of an Opportunity once, whatever note the version writes for it (Status up to 9.1, Update from 9.2)', async () => {
		// 7.5 requires a probability on create through the API; later versions take it too.
		const deal = (
			await api('POST', '/Opportunity', {
				name: `StagePoll-${Date.now()}`,
				amount: 10,
				probability: 10,
				closeDate: '2026-12-31',
				stage: 'Prospecting',
			})
		).id;
		const trigger = pollingTrigger(store, {
			event: 'streamNote',
			entityType: 'Opportunity',
			recordId: { __rl: true, mode: 'id', value: deal },
			noteTypes: ['statusChange'],
		});
		await api('PUT', `/Opportunity/${deal}`, { stage: 'Qualification' });
		expect(await trigger.poll()).toBeNull();
		for (const stage of ['Proposal', 'Negotiation'])
			await api('PUT', `/Opportunity/${deal}`, { stage });
		// Another change in the same stream (an audited field, not the stage): an Update note without a value.
		await api('PUT', `/Opportunity/${deal}`, { amount: 20 });
		const emitted = (await trigger.poll()) ?? [];
		expect(emitted.map((note) => (note.data as { value?: string }).value)).toEqual([
			'Proposal',
			'Negotiation',
		]);
		expect(await trigger.poll()).toBeNull();
	});
});

/** A request to EspoCRM's API as the API key's user; the reply's JSON. */
async function api(
	method: string,
	path: string,
	body?: Record<string, unknown>,
): Promise<{ id: string } & Record<string, unknown>> {
	const reply = await fetch(`${origin}/api/v1${path}`, {
		method,
		headers: {
			'Content-Type': 'application/json',
			'X-Api-Key': String(credential('API key').apiKey),
		},
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	if (reply.status !== 200)
		throw new Error(
			`${method} ${path}: ${reply.status} ${reply.headers.get('x-status-reason') ?? ''}`,
		);
	return (await reply.json()) as { id: string } & Record<string, unknown>;
}

/** An Account made through the API as the API key's user; its ID. */
async function createAccount(name: string): Promise<string> {
	return (await api('POST', '/Account', { name })).id;
}
