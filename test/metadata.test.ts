import { loadFormList } from './harness/engine';
import { useSandbox } from './harness/sandboxRun';

const bed = useSandbox();

const list = async (method: string, parameters: Record<string, unknown> = {}) =>
	(await loadFormList(bed.store, 'loadOptions', method, { resource: 'record', operation: 'getMany', entityType: 'Contact', ...parameters })) as Array<{ name: string; value: string }>;

describe('lists of the form, EspoCRM server', () => {
	beforeEach(() => bed.use('apiKey', 'espocrm'));

	test('entity types come from the metadata, custom ones by label and name, with the free-text choice last', async () => {
		const options = await list('getEntityTypes');
		const values = options.map((option) => option.value);
		expect(values).toEqual(expect.arrayContaining(['Account', 'Contact', 'Lead', 'Opportunity', 'Email', 'CProject']));
		expect(values).not.toContain('Global');
		expect(options.find((option) => option.value === 'CProject')?.name).toBe('Project (CProject, custom)');
		expect(values[values.length - 1]).toBe('custom');
		expect(bed.received().map((request) => `${request.method} ${request.path}`)).toEqual(['GET /Metadata']);
	});

	test('a type the API user cannot reach is not offered', async () => {
		bed.sandbox.setRestrictedScopes(['CProject']);
		expect((await list('getEntityTypes')).map((option) => option.value)).not.toContain('CProject');
	});

	test('fields are the attributes the server reads and writes: links as <field>Id, currency with <field>Currency', async () => {
		const values = (await list('getFields', { entityType: 'Opportunity' })).map((option) => option.value);
		expect(values).toEqual(expect.arrayContaining(['id', 'name', 'amount', 'amountCurrency', 'accountId', 'contactsIds', 'closeDate', 'createdAt']));
		expect(values).not.toContain('account');
	});

	test('relationship names show the entity type they lead to', async () => {
		const options = await list('getLinks', { resource: 'relationship', entityType: 'Account' });
		expect(options).toEqual(expect.arrayContaining([{ name: 'contacts (Contact)', value: 'contacts' }, { name: 'opportunities (Opportunity)', value: 'opportunities' }]));
	});

	test('the field mapper gets writable fields with their types, enum values and required flags', async () => {
		const { fields } = (await loadFormList(bed.store, 'resourceMapping', 'getMappingFields', { resource: 'record', operation: 'create', entityType: 'Lead' })) as {
			fields: Array<{ id: string; type: string; required: boolean; options?: Array<{ value: string }>; displayName: string }>;
		};
		const byId = Object.fromEntries(fields.map((field) => [field.id, field]));
		expect(byId.lastName).toMatchObject({ type: 'string', required: true });
		expect(byId.status.type).toBe('options');
		expect(byId.status.options?.map((option) => option.value)).toEqual(['New', 'Assigned', 'In Process', 'Converted', 'Recycled', 'Dead']);
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
		expect((await list('getEntityTypes')).map((option) => option.value)).toEqual(['Account', 'Contact', 'Email', 'Lead', 'Opportunity', 'custom']);
		expect((await list('getFields')).map((option) => option.value)).toContain('emailAddress');
		expect((await list('getLinks')).map((option) => option.value)).toContain('contacts');
		expect(bed.received()).toHaveLength(0);
	});
});
