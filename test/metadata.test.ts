import { loadFormList } from './harness/engine';
import { useSandbox } from './harness/sandboxRun';

const bed = useSandbox();

const list = async (method: string, parameters: Record<string, unknown> = {}) =>
	(await loadFormList(bed.store, 'loadOptions', method, {
		resource: 'record',
		operation: 'getMany',
		entityType: 'Contact',
		...parameters,
	})) as Array<{ name: string; value: string }>;

describe('lists of the form, EspoCRM server', () => {
	beforeEach(() => bed.use('apiKey', 'espocrm'));

	test('entity types come from the metadata, custom ones by label and name, with the free-text choice last', async () => {
		const options = await list('getEntityTypes');
		const values = options.map((option) => option.value);
		expect(values).toEqual(
			expect.arrayContaining(['Account', 'Contact', 'Lead', 'Opportunity', 'Email', 'CProject']),
		);
		expect(values).not.toContain('Global');
		expect(options.find((option) => option.value === 'CProject')?.name).toBe(
			'Project (CProject, custom)',
		);
		expect(options.find((option) => option.value === 'Opportunity')?.name).toBe('Opportunity');
		expect(values[values.length - 1]).toBe('custom');
		// The metadata, and the labels users know from the CRM.
		expect(
			bed
				.received()
				.map((request) => `${request.method} ${request.path}`)
				.sort(),
		).toEqual(['GET /I18n', 'GET /Metadata']);
	});

	test('a type the API user cannot reach is not offered', async () => {
		bed.sandbox.setRestrictedScopes(['CProject']);
		expect((await list('getEntityTypes')).map((option) => option.value)).not.toContain('CProject');
	});

	test('fields are the attributes the server reads and writes: links as <field>Id, currency with <field>Currency', async () => {
		const values = (await list('getFields', { entityType: 'Opportunity' })).map(
			(option) => option.value,
		);
		expect(values).toEqual(
			expect.arrayContaining([
				'id',
				'name',
				'amount',
				'amountCurrency',
				'accountId',
				'contactsIds',
				'closeDate',
				'createdAt',
			]),
		);
		expect(values).not.toContain('account');
	});

	test('ID is offered once, though the metadata lists `id` among the fields', async () => {
		for (const method of ['getFields', 'getSortableFields', 'getFilterAttributes']) {
			const options = await list(method, { entityType: 'Opportunity' });
			expect(options.filter((option) => option.value === 'id')).toEqual([
				{ name: 'ID (id)', value: 'id' },
			]);
		}
	});

	test('relationship names show the entity type they lead to', async () => {
		const options = await list('getLinks', { resource: 'relationship', entityType: 'Account' });
		expect(options).toEqual(
			expect.arrayContaining([
				{ name: 'Contacts (contacts) → Contact', value: 'contacts' },
				{ name: 'Opportunities (opportunities) → Opportunity', value: 'opportunities' },
			]),
		);
	});

	test('the field mapper gets writable fields with their types, enum values and required flags', async () => {
		const { fields } = (await loadFormList(bed.store, 'resourceMapping', 'getMappingFields', {
			resource: 'record',
			operation: 'create',
			entityType: 'Lead',
		})) as {
			fields: Array<{
				id: string;
				type: string;
				required: boolean;
				options?: Array<{ value: string }>;
				displayName: string;
			}>;
		};
		const byId = Object.fromEntries(fields.map((field) => [field.id, field]));
		expect(byId.lastName).toMatchObject({ type: 'string', required: true });
		expect(byId.status.type).toBe('options');
		expect(byId.status.options?.map((option) => option.value)).toEqual([
			'New',
			'Assigned',
			'In Process',
			'Converted',
			'Recycled',
			'Dead',
		]);
		expect(byId.assignedUserId).toMatchObject({ type: 'string' });
		expect(byId.doNotCall.type).toBe('boolean');
		expect(byId.createdAt).toBeUndefined();
		expect(byId.createdAccountId).toBeUndefined();
		expect(byId.convertedAt).toBeUndefined();
	});

	test('metadata that cannot be read is an error in the list, not a broken form', async () => {
		bed.sandbox.faults.failNext({ status: 403, pathPrefix: '/Metadata' });
		await expect(list('getEntityTypes')).rejects.toThrow(/metadata \(403/);
	});
});

describe('lists of the form, Standard server', () => {
	test('the interface lists, without asking the server', async () => {
		expect((await list('getEntityTypes')).map((option) => option.value)).toEqual([
			'Account',
			'Contact',
			'Email',
			'Lead',
			'Opportunity',
			'custom',
		]);
		expect((await list('getFields')).map((option) => option.value)).toContain('emailAddress');
		expect((await list('getLinks')).map((option) => option.value)).toContain('contacts');
		// Get Many Related: the related type's fields (an Account's contacts have first names, an Account none).
		const contactsOfAccount = {
			resource: 'relationship',
			operation: 'getManyRelated',
			entityType: 'Account',
			link: 'contacts',
		};
		expect(
			(await list('getFields', { entityType: 'Account' })).map((option) => option.value),
		).not.toContain('firstName');
		expect((await list('getFields', contactsOfAccount)).map((option) => option.value)).toContain(
			'firstName',
		);
		expect(bed.received()).toHaveLength(0);
	});
});

describe('Create and Update through the field mapper', () => {
	beforeEach(() => bed.use('apiKey', 'espocrm'));

	/** The schema as the editor stores it with the mapping: what the server's metadata gave when the user mapped. */
	async function schemaOf(entityType: string, operation: string) {
		const { fields } = (await loadFormList(bed.store, 'resourceMapping', 'getMappingFields', {
			resource: 'record',
			operation,
			entityType,
		})) as {
			fields: Array<Record<string, unknown>>;
		};
		bed.sandbox.clearRequests();
		return fields;
	}

	test('mapped values are converted to the field types and sent as the server expects them', async () => {
		const schema = await schemaOf('Opportunity', 'create');
		const account = bed.sandbox.store.create('Account', { name: 'Acme' });
		const result = await bed.run(
			{
				resource: 'record',
				operation: 'create',
				entityType: 'Opportunity',
				bodyMode: 'mapper',
				columns: {
					mappingMode: 'defineBelow',
					value: {
						name: '={{ $json.deal }}',
						amount: '={{ $json.value }}',
						amountCurrency: 'EUR',
						probability: '40',
						closeDate: '2026-12-31T15:00:00+01:00',
						accountId: account.id,
						stage: 'Qualification',
					},
					matchingColumns: [],
					schema,
					attemptToConvertTypes: false,
					convertFieldsToString: false,
				},
			},
			[{ deal: 'Big deal', value: '1250.50' }],
		);
		expect(result.error).toBeUndefined();
		const [post] = bed.received('POST');
		expect(post.path).toBe('/Opportunity');
		expect(post.body).toEqual({
			name: 'Big deal',
			amount: 1250.5,
			amountCurrency: 'EUR',
			probability: 40,
			closeDate: '2026-12-31',
			accountId: account.id,
			stage: 'Qualification',
		});
		expect(result.json[0]).toMatchObject({
			name: 'Big deal',
			amount: 1250.5,
			accountId: account.id,
		});
	});

	test('a list field takes the literal "a, b" as saved by the editor (n8n refused it as "expects a array"), or a list', async () => {
		const schema = await schemaOf('CProject', 'create');
		const labels = schema.find((field) => field.id === 'labels');
		expect(labels).toMatchObject({ type: 'string', displayName: 'Labels (labels, list: a, b)' });
		const create = (value: Record<string, unknown>) =>
			bed.run(
				{
					resource: 'record',
					operation: 'create',
					entityType: 'CProject',
					bodyMode: 'mapper',
					columns: {
						mappingMode: 'defineBelow',
						value,
						matchingColumns: [],
						schema,
						attemptToConvertTypes: false,
						convertFieldsToString: false,
					},
				},
				[{ labels: ['Client', 'Urgent'] }],
			);
		const literal = await create({ name: 'Literal', labels: 'Internal, Urgent', cFilesIds: '' });
		expect(literal.error).toBeUndefined();
		const fromExpression = await create({ name: 'Expression', labels: '={{ $json.labels }}' });
		expect(fromExpression.error).toBeUndefined();
		expect(bed.received('POST').map((request) => request.body)).toEqual([
			{ name: 'Literal', labels: ['Internal', 'Urgent'] },
			{ name: 'Expression', labels: ['Client', 'Urgent'] },
		]);
		expect(bed.sandbox.store.get('CProject', literal.json[0].id as string)?.labels).toEqual([
			'Internal',
			'Urgent',
		]);
	});

	test('a date keeps the day written with its offset; a date-time without a zone is in the workflow time zone', async () => {
		const schema = await schemaOf('Opportunity', 'create');
		const lead = await schemaOf('Lead', 'create');
		await bed.run(
			{
				resource: 'record',
				operation: 'create',
				entityType: 'Opportunity',
				bodyMode: 'mapper',
				columns: {
					mappingMode: 'defineBelow',
					value: { name: 'D', closeDate: '2027-01-01T00:30:00+02:00' },
					matchingColumns: [],
					schema,
				},
			},
			[{}],
			{ timezone: 'Europe/Berlin' },
		);
		expect(bed.received('POST')[0].body.closeDate).toBe('2027-01-01');
		expect(lead.find((field) => field.id === 'convertedAt')).toBeUndefined();

		const project = await schemaOf('CProject', 'create');
		await bed.run(
			{
				resource: 'record',
				operation: 'create',
				entityType: 'custom',
				customEntityType: 'CProject',
				bodyMode: 'mapper',
				columns: {
					mappingMode: 'defineBelow',
					value: { name: '={{ $json.name }}', deadline: '={{ $json.deadline }}' },
					matchingColumns: [],
					schema: project,
				},
			},
			// An ISO value without a zone is in the workflow's time zone; the server's own form is UTC.
			[
				{ name: 'P1', deadline: '2027-02-01T09:00:00' },
				{ name: 'P2', deadline: '2027-02-01 09:00:00' },
			],
			{ timezone: 'Europe/Berlin' },
		);
		expect(bed.received('POST').map((request) => request.body.deadline)).toEqual([
			'2027-02-01 08:00:00',
			'2027-02-01 09:00:00',
		]);
	});

	test('a value that cannot be converted is an error naming the field and the item, and nothing is sent', async () => {
		const schema = await schemaOf('Opportunity', 'create');
		const result = await bed.run(
			{
				resource: 'record',
				operation: 'create',
				entityType: 'Opportunity',
				bodyMode: 'mapper',
				columns: {
					mappingMode: 'defineBelow',
					value: { name: 'X', amount: '={{ $json.value }}' },
					matchingColumns: [],
					schema,
				},
			},
			[{ value: '12' }, { value: 'twelve' }],
			{ onError: 'continueRegularOutput' },
		);
		expect(result.items[0].error).toBeUndefined();
		expect(result.items[1].error?.message).toBe(
			'The field "amount" needs a number; "twelve" is not one (item 1)',
		);
		expect(bed.received('POST')).toHaveLength(1);
	});

	test('Map Automatically takes the input fields the entity type has; Update sends only those', async () => {
		const schema = await schemaOf('Contact', 'update');
		const contact = bed.sandbox.store.create('Contact', { firstName: 'Ada', lastName: 'Byron' });
		const result = await bed.run(
			{
				resource: 'record',
				operation: 'update',
				entityType: 'Contact',
				recordId: { __rl: true, mode: 'id', value: contact.id },
				bodyMode: 'mapper',
				columns: { mappingMode: 'autoMapInputData', value: null, matchingColumns: [], schema },
			},
			[{ lastName: 'Lovelace', doNotCall: 'yes', favouriteColour: 'green' }],
		);
		expect(result.error).toBeUndefined();
		const [put] = bed.received('PUT');
		expect(put.body).toEqual({ lastName: 'Lovelace', doNotCall: true });
		expect(bed.sandbox.store.get('Contact', contact.id)).toMatchObject({
			firstName: 'Ada',
			lastName: 'Lovelace',
			doNotCall: true,
		});
	});

	test('on update no field is required; on create the required ones are', async () => {
		const update = await schemaOf('Contact', 'update');
		const create = await schemaOf('Contact', 'create');
		expect(update.find((field) => field.id === 'lastName')?.required).toBe(false);
		expect(create.find((field) => field.id === 'lastName')?.required).toBe(true);
	});

	test("Get Many Related lists the related type's fields, sort fields and filter relationships, not the parent's", async () => {
		const related = {
			resource: 'relationship',
			operation: 'getManyRelated',
			entityType: 'Account',
			link: 'contacts',
		};
		const fields = (await list('getFields', related)).map((option) => option.value);
		expect(fields).toEqual(expect.arrayContaining(['firstName', 'lastName', 'accountId']));
		expect(fields).not.toContain('industry');
		expect((await list('getSortableFields', related)).map((option) => option.value)).toContain(
			'lastName',
		);
		const filter = (await list('getFilterAttributes', related)).map((option) => option.value);
		expect(filter).toEqual(expect.arrayContaining(['lastName', 'opportunities']));
		expect(filter).not.toContain('industry');
		// A relationship typed by name works the same; the relationships offered stay the Account's.
		expect(
			(await list('getFields', { ...related, link: 'custom', customLink: 'contacts' })).map(
				(option) => option.value,
			),
		).toContain('firstName');
		expect((await list('getLinks', related)).map((option) => option.value)).toContain('contacts');
	});

	test('filter conditions can name fields and relationships', async () => {
		const options = await list('getFilterAttributes', { entityType: 'Account' });
		expect(options).toEqual(
			expect.arrayContaining([
				{ name: 'Name (name)', value: 'name' },
				{ name: 'Contacts (contacts) → Contact (relationship)', value: 'contacts' },
			]),
		);
	});
});

test('each list reads the metadata once', async () => {
	bed.use('apiKey', 'espocrm');
	await list('getFilterAttributes', { entityType: 'Account' });
	expect(
		bed
			.received()
			.map((request) => request.path)
			.sort(),
	).toEqual(['/I18n', '/Metadata']);
});

describe('picking a record from a list', () => {
	const search = async (parameters: Record<string, unknown>, filter?: string, token?: string) =>
		(await loadFormList(
			bed.store,
			'listSearch',
			'searchRecords',
			{ resource: 'record', operation: 'get', ...parameters },
			filter,
			token,
		)) as {
			results: Array<{ name: string; value: string }>;
			paginationToken?: string;
		};

	test('lists records by name, searches by name, and pages by 50', async () => {
		for (let n = 0; n < 55; n++) bed.sandbox.store.create('Account', { name: `Company ${n}` });
		const acme = bed.sandbox.store.create('Account', { name: 'Acme Rockets' });
		const first = await search({ entityType: 'Account' });
		expect(first.results).toHaveLength(50);
		expect(first.results[0]).toEqual({ name: 'Acme Rockets', value: acme.id });
		const second = await search({ entityType: 'Account' }, undefined, first.paginationToken);
		expect(second.results).toHaveLength(6);
		expect(second.paginationToken).toBeUndefined();
		expect((await search({ entityType: 'Account' }, 'rocket')).results).toEqual([
			{ name: 'Acme Rockets', value: acme.id },
		]);
		expect(bed.received()[0].query).toMatchObject({ select: 'name', maxSize: '50', offset: '0' });
	});

	test('Lead > Convert lists leads', async () => {
		const lead = bed.sandbox.store.create('Lead', { firstName: 'Lea', lastName: 'Lead' });
		expect((await search({ resource: 'lead', operation: 'convert' })).results).toEqual([
			{ name: 'Lea Lead', value: lead.id },
		]);
		expect(bed.received()[0].path).toBe('/Lead');
	});

	test('a picked record is used by its ID', async () => {
		const contact = bed.sandbox.store.create('Contact', { firstName: 'Ada', lastName: 'Lovelace' });
		const result = await bed.run({
			resource: 'record',
			operation: 'get',
			entityType: 'Contact',
			recordId: { __rl: true, mode: 'list', value: contact.id, cachedResultName: 'Ada Lovelace' },
		});
		expect(result.json[0]).toMatchObject({ id: contact.id });
	});
});

describe('labels as the CRM shows them (EspoCRM)', () => {
	beforeEach(() => bed.use('apiKey', 'espocrm'));

	const mapper = async (entityType: string, operation = 'create') =>
		(
			(await loadFormList(bed.store, 'resourceMapping', 'getMappingFields', {
				resource: 'record',
				operation,
				entityType,
			})) as {
				fields: Array<{
					id: string;
					displayName: string;
					type: string;
					required: boolean;
					options?: Array<{ name: string; value: string }>;
				}>;
			}
		).fields;

	test("an enum whose options are another field's (optionsReference) offers them, labelled as there, in the mapper and the filters", async () => {
		const opportunity = Object.fromEntries(
			(await mapper('Opportunity')).map((field) => [field.id, field]),
		);
		expect(opportunity.leadSource.type).toBe('options');
		expect(opportunity.leadSource.options).toEqual(
			[
				'',
				'Call',
				'Email',
				'Existing Customer',
				'Partner',
				'Public Relations',
				'Web Site',
				'Campaign',
				'Other',
			].map((value) => ({ name: value === '' ? '(None)' : value, value })),
		);
		const lead = Object.fromEntries((await mapper('Lead')).map((field) => [field.id, field]));
		expect(lead.industry.type).toBe('options');
		expect(lead.industry.options).toEqual(
			expect.arrayContaining([
				{ name: 'Advertising', value: 'Advertising' },
				{ name: 'Banking', value: 'Banking' },
			]),
		);
		const filters = await list('getFilterAttributes', { entityType: 'Opportunity' });
		expect(filters.find((option) => option.value === 'leadSource')).toMatchObject({
			description:
				'Values: Call, Email, Existing Customer, Partner, Public Relations, Web Site, Campaign, Other',
		});
		// The sandbox checks the referenced options as EspoCRM does.
		const refused = await bed.run({
			resource: 'record',
			operation: 'create',
			entityType: 'Opportunity',
			fields: { name: 'X', closeDate: '2026-12-31', amount: 1, probability: 10 },
			customFields: { field: [{ name: 'leadSource', value: 'Carrier Pigeon' }] },
		});
		expect(refused.error?.message).toContain('400');
	});

	test('fields by label and name, enum values by label', async () => {
		const contact = await list('getFields');
		expect(contact).toEqual(
			expect.arrayContaining([
				{ name: 'Do Not Call (doNotCall)', value: 'doNotCall' },
				{ name: 'Salutation (salutationName)', value: 'salutationName' },
			]),
		);
		const user = Object.fromEntries((await mapper('User')).map((field) => [field.id, field]));
		expect(user.type.options).toEqual(
			expect.arrayContaining([
				{ name: 'Regular', value: 'regular' },
				{ name: 'Admin', value: 'admin' },
			]),
		);
	});

	test('without labels (the server refuses /I18n) the lists show names', async () => {
		bed.sandbox.faults.i18nFailure = { status: 403 };
		const contact = await list('getFields');
		expect(contact).toEqual(expect.arrayContaining([{ name: 'doNotCall', value: 'doNotCall' }]));
	});
});

describe('every EspoCRM field type is offered as it is written, or left out', () => {
	beforeEach(() => bed.use('apiKey', 'espocrm'));

	const mapperOf = async (entityType: string, operation = 'create') =>
		Object.fromEntries(
			(
				(await loadFormList(bed.store, 'resourceMapping', 'getMappingFields', {
					resource: 'record',
					operation,
					entityType,
				})) as {
					fields: Array<{ id: string; displayName: string; type: string; required: boolean }>;
				}
			).fields.map((field) => [field.id, field]),
		);

	test('Meeting: date-or-date-time fields, and the required assigned user as its ID', async () => {
		const meeting = await mapperOf('Meeting');
		expect(meeting.dateStart).toMatchObject({
			type: 'dateTime',
			displayName: 'Date Start (dateStart, date or date-time)',
			required: true,
		});
		expect(meeting.assignedUserId).toMatchObject({ type: 'string', required: true });
		expect(meeting.assignedUserName).toBeUndefined();
		expect((await mapperOf('Meeting', 'update')).assignedUserId.required).toBe(false);
	});

	test('CProject: lists, JSON, files and attachments as IDs; numbered, foreign and one-to-one fields readable only', async () => {
		const project = await mapperOf('CProject');
		// Lists are text fields that say so: n8n refuses a literal "a, b" in a field of its type "array".
		for (const list of ['cTags', 'cChecklist', 'cLinks', 'cSteps', 'cFilesIds']) {
			expect(project[list]).toMatchObject({
				type: 'string',
				displayName: expect.stringMatching(/, list: a, b\)$/),
			});
		}
		expect(project.cSettings.type).toBe('object');
		expect(project.cContractId).toMatchObject({ type: 'string' });
		for (const readOnly of ['cNumber', 'cSeq', 'cAccountIndustry', 'cSuccessorId'])
			expect(project[readOnly]).toBeUndefined();
		const readable = (await list('getFields', { entityType: 'CProject' })).map(
			(option) => option.value,
		);
		expect(readable).toEqual(
			expect.arrayContaining([
				'cNumber',
				'cSeq',
				'cAccountIndustry',
				'cSuccessorId',
				'cContractName',
			]),
		);
	});

	test('a person name sorts, filters and matches as a whole, and is written as its parts', async () => {
		const sortable = (await list('getSortableFields')).map((option) => option.value);
		expect(sortable).toContain('name');
		expect(sortable).not.toContain('teamsIds');
		const contact = await mapperOf('Contact');
		expect(contact.name).toBeUndefined();
		expect(contact.lastName).toMatchObject({ required: true });
	});

	const meetingColumns = (value: Record<string, unknown>) => ({
		mappingMode: 'defineBelow',
		value,
		schema: [
			{
				id: 'name',
				displayName: 'Name (name)',
				type: 'string',
				required: true,
				display: true,
				defaultMatch: false,
			},
			{
				id: 'dateStart',
				displayName: 'Date Start (dateStart, date or date-time)',
				type: 'dateTime',
				required: true,
				display: true,
				defaultMatch: false,
			},
			{
				id: 'dateEnd',
				displayName: 'Date End (dateEnd, date or date-time)',
				type: 'dateTime',
				required: true,
				display: true,
				defaultMatch: false,
			},
			{
				id: 'assignedUserId',
				displayName: 'Assigned User ID (assignedUserId)',
				type: 'string',
				required: true,
				display: true,
				defaultMatch: false,
			},
		],
	});

	test('a date given to a date-or-date-time field makes an all-day event; a date-time, a timed one', async () => {
		const [user] = bed.sandbox.store.list('User');
		const allDay = await bed.run({
			resource: 'record',
			operation: 'create',
			entityType: 'Meeting',
			bodyMode: 'mapper',
			columns: meetingColumns({
				name: 'Offsite',
				dateStart: '2026-12-01',
				dateEnd: '2026-12-02',
				assignedUserId: user.id,
			}),
		});
		expect(allDay.error).toBeUndefined();
		expect(bed.received('POST')[0].body).toEqual({
			name: 'Offsite',
			dateStartDate: '2026-12-01',
			dateEndDate: '2026-12-02',
			assignedUserId: user.id,
		});
		const timed = await bed.run(
			{
				resource: 'record',
				operation: 'create',
				entityType: 'Meeting',
				bodyMode: 'mapper',
				columns: meetingColumns({
					name: 'Call',
					dateStart: '2026-12-01T10:00:00+01:00',
					dateEnd: '2026-12-01 10:30:00',
					assignedUserId: user.id,
				}),
			},
			[{}],
			{ timezone: 'America/New_York' },
		);
		expect(timed.error).toBeUndefined();
		expect(bed.received('POST')[1].body).toEqual({
			name: 'Call',
			dateStart: '2026-12-01 09:00:00',
			dateStartDate: null,
			dateEnd: '2026-12-01 10:30:00',
			dateEndDate: null,
			assignedUserId: user.id,
		});
	});
});

describe('the Standard server offers each entity type its own fields', () => {
	test('a Contact has first and last names, no name or amount', async () => {
		bed.use('apiKey', 'standard');
		const ids = (
			(await loadFormList(bed.store, 'resourceMapping', 'getMappingFields', {
				resource: 'record',
				operation: 'create',
				entityType: 'Contact',
			})) as {
				fields: Array<{ id: string }>;
			}
		).fields.map((field) => field.id);
		expect(ids).toEqual(expect.arrayContaining(['firstName', 'lastName', 'emailAddress']));
		expect(ids).not.toContain('name');
		expect(ids).not.toContain('amount');
		expect(bed.received()).toEqual([]);
	});
});
