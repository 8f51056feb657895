import { useSandbox } from './harness/sandboxRun';

const bed = useSandbox();

describe('Record > Create and Get through n8n', () => {
	test('creates a contact with the fields given, sending the API key', async () => {
		const result = await bed.run(
			{
				resource: 'record',
				operation: 'create',
				entityType: 'Contact',
				fields: { firstName: 'Ada', lastName: 'Lovelace' },
			},
			[{}],
		);
		expect(result.error).toBeUndefined();
		expect(result.json).toHaveLength(1);
		expect(result.json[0]).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace' });
		expect(result.json[0].id).toMatch(/^[0-9a-f]{17}$/);
		const [post] = bed.received('POST');
		expect(post.path).toBe('/Contact');
		expect(post.body).toEqual({ firstName: 'Ada', lastName: 'Lovelace' });
		expect(post.headers['x-api-key']).toBe('sandbox-api-key');
		expect(post.headers['content-type']).toMatch(/application\/json/);
		expect(bed.sandbox.store.list('Contact')).toHaveLength(1);
	});

	test('gets a record by ID and by its web address', async () => {
		const contact = bed.sandbox.store.create('Contact', { firstName: 'Grace', lastName: 'Hopper' });
		const byId = await bed.run({
			resource: 'record',
			operation: 'get',
			entityType: 'Contact',
			recordId: { __rl: true, mode: 'id', value: contact.id },
		});
		expect(byId.json[0]).toMatchObject({ id: contact.id, lastName: 'Hopper' });
		const byUrl = await bed.run({
			resource: 'record',
			operation: 'get',
			entityType: 'Contact',
			recordId: {
				__rl: true,
				mode: 'url',
				value: `https://crm.example.com/#Contact/view/${contact.id}`,
				__regex: 'https?://.+#[A-Za-z0-9_]+/view/([^/?#]+)',
			},
		});
		expect(byUrl.json[0]).toMatchObject({ id: contact.id });
		expect(bed.received('GET').map((request) => request.path)).toEqual([
			`/Contact/${contact.id}`,
			`/Contact/${contact.id}`,
		]);
	});

	test('a record that does not exist becomes a NodeApiError with the status and the server reason', async () => {
		const result = await bed.run({
			resource: 'record',
			operation: 'get',
			entityType: 'Contact',
			recordId: { __rl: true, mode: 'id', value: 'nope' },
		});
		expect(result.error?.name).toBe('NodeApiError');
		expect(result.error?.httpCode).toBe('404');
		expect(result.error?.message).toContain('Record nope does not exist.');
		expect(result.error?.description).toContain('record ID');
	});
});
