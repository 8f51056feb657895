import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { NodeHelpers, Workflow } from 'n8n-workflow';

import { NODE_TYPE, NodeTypes, TOOL_NODE_TYPE } from './harness/engine';
import { useSandbox } from './harness/sandboxRun';

/**
 * The node as an AI agent's tool (its Tool type, run as a step the way n8n 2.41's AI Agent runs it; the input item
 * holds the model's arguments, which `$fromAI` reads): what the model got wrong is refused before any request, with a
 * message naming the argument; outputs and errors are worded for the model. The same parameters outside tool mode
 * behave as before. In the real n8n with the AI Agent: npm run test:agents.
 */
const bed = useSandbox();

beforeEach(() => {
	bed.sandbox.setDialect('espocrm');
	bed.use('apiKey', 'espocrm');
});

const fromAI = (key: string, description: string, type = 'string') =>
	`={{ $fromAI('${key}', '${description}', '${type}') }}`;

/** A Task under a contact, as the held-out agent's "create task" tool: the parent's type fixed, its ID from the model. */
const createTask = {
	resource: 'record',
	operation: 'create',
	entityType: 'Task',
	fields: { name: fromAI('title', 'What to do, in a few words'), assignedUserId: '1' },
	customFields: {
		field: [
			{ name: 'parentType', value: 'Contact' },
			{
				name: 'parentId',
				value: fromAI('contactId', 'The ID of the contact, as Find contact returned it'),
			},
		],
	},
};

describe('arguments the model got wrong are refused before any request', () => {
	test('a missing argument: the message names it and says what it must hold; nothing is sent', async () => {
		const result = await bed.run(createTask, [{ title: 'Call back' }], { asTool: true });
		expect(result.error?.message).toBe(
			'The argument "contactId" is missing. It must hold text: The ID of the contact, as Find contact returned it. Nothing was sent: call the tool again with it.',
		);
		expect(bed.received()).toEqual([]);
		expect(bed.sandbox.store.count('Task')).toBe(0);
	});

	test('outside tool mode the same parameters are sent as before: the missing value is left out', async () => {
		const result = await bed.run(createTask, [{ title: 'Call back' }]);
		expect(result.error).toBeUndefined();
		expect(bed.received('POST')[0].body).toEqual({
			name: 'Call back',
			assignedUserId: '1',
			parentType: 'Contact',
		});
	});

	test('an empty argument where the parameter needs a value (a search): refused', async () => {
		const find = {
			resource: 'record',
			operation: 'getMany',
			entityType: 'Contact',
			limit: 5,
			filterMode: 'conditions',
			conditions: {
				condition: [
					{
						attribute: 'emailAddress',
						operator: 'equals',
						value: fromAI('email', 'The e-mail address'),
					},
				],
			},
		};
		const result = await bed.run(find, [{ email: '  ' }], { asTool: true });
		expect(result.error?.message).toMatch(
			/^The argument "email" is empty\. It must hold text: The e-mail address\./,
		);
		expect(bed.received()).toEqual([]);
	});

	test("a link's ID left empty while its type is set: refused, nothing stored", async () => {
		const result = await bed.run(createTask, [{ title: 'Call back', contactId: '' }], {
			asTool: true,
		});
		expect(result.error?.message).toBe(
			'The field "parentId" is empty, but "parentType" is set: a link to a record needs both its type and its ID. Nothing was sent: call the tool again with both.',
		);
		expect(bed.received()).toEqual([]);
	});

	test("the field mapper: a missing parent ID is refused, an empty one too (the mapper leaves it out, the parent's type stays)", async () => {
		const field = (id: string) => ({
			id,
			displayName: id,
			type: 'string',
			required: false,
			display: true,
			defaultMatch: false,
		});
		const task = {
			resource: 'record',
			operation: 'create',
			entityType: 'Task',
			bodyMode: 'mapper',
			columns: {
				mappingMode: 'defineBelow',
				value: {
					name: 'Call back',
					assignedUserId: '1',
					parentType: 'Contact',
					parentId: fromAI('contactId', 'The ID of the contact'),
				},
				schema: ['name', 'assignedUserId', 'parentType', 'parentId'].map(field),
			},
		};
		expect((await bed.run(task, [{}], { asTool: true })).error?.message).toMatch(
			/^The argument "contactId" is missing\./,
		);
		expect((await bed.run(task, [{ contactId: '' }], { asTool: true })).error?.message).toBe(
			'The field "parentId" is empty, but "parentType" is set: a link to a record needs both its type and its ID. Nothing was sent: call the tool again with both.',
		);
		expect(bed.received()).toEqual([]);
		// outside tool mode, as before: sent without the parent's ID
		await bed.run(task, [{}]);
		expect(bed.received('POST')[0].body).toEqual({
			name: 'Call back',
			assignedUserId: '1',
			parentType: 'Contact',
		});
	});

	test('an ID that is not one (a name): refused, for a routed Get as for an update', async () => {
		const recordId = {
			__rl: true,
			mode: 'id',
			value: fromAI('contactId', 'The ID of the contact'),
		};
		const get = await bed.run(
			{ resource: 'record', operation: 'get', entityType: 'Contact', recordId },
			[{ contactId: 'Ada Lovelace' }],
			{ asTool: true },
		);
		expect(get.error?.message).toMatch(
			/^The argument "contactId" is not a record ID: "Ada Lovelace"\. It must hold text: The ID of the contact\. A record ID is the "id"/,
		);
		const update = await bed.run(
			{
				resource: 'record',
				operation: 'update',
				entityType: 'Contact',
				recordId,
				fields: { description: 'x' },
			},
			[{ contactId: 'ada@example.com' }],
			{ asTool: true },
		);
		expect(update.error?.message).toMatch(
			/^The argument "contactId" is not a record ID: "ada@example.com"/,
		);
		const missing = await bed.run(
			{ resource: 'record', operation: 'get', entityType: 'Contact', recordId },
			[{}],
			{ asTool: true },
		);
		expect(missing.error?.message).toMatch(/^The argument "contactId" is missing\./);
		expect(bed.received()).toEqual([]);
	});

	test('a number for text is sent as text; text for a number is refused unless it is a number written out', async () => {
		const lead = {
			resource: 'record',
			operation: 'create',
			entityType: 'Lead',
			fields: { lastName: fromAI('lastName', 'Last name') },
		};
		expect((await bed.run(lead, [{ lastName: 42 }], { asTool: true })).error).toBeUndefined();
		expect(bed.received('POST')[0].body).toEqual({ lastName: '42' });
		// outside tool mode, as before: what the expression gave
		await bed.run(lead, [{ lastName: 42 }]);
		expect(bed.received('POST')[1].body).toEqual({ lastName: 42 });

		for (let n = 0; n < 4; n++)
			bed.sandbox.store.create('Contact', { firstName: 'Ada', lastName: `Number ${n}` });
		const list = {
			resource: 'record',
			operation: 'getMany',
			entityType: 'Contact',
			limit: fromAI('limit', 'How many contacts', 'number'),
		};
		const refused = await bed.run(list, [{ limit: 'five' }], { asTool: true });
		expect(refused.error?.message).toMatch(
			/^The argument "limit" must be a number, not "five"\. It must hold a number: How many contacts\./,
		);
		expect(bed.received('GET')).toEqual([]);
		const listed = await bed.run(list, [{ limit: '2' }], { asTool: true });
		expect(listed.error).toBeUndefined();
		expect(bed.received('GET')[0].query.maxSize).toBe('2');
	});
});

describe('outputs and errors worded for the model', () => {
	test('a list that got fewer records than matched tells how many matched in all; outside tool mode, as before', async () => {
		for (let n = 0; n < 5; n++)
			bed.sandbox.store.create('Contact', { firstName: 'Ada', lastName: `Number ${n}` });
		const list = {
			resource: 'record',
			operation: 'getMany',
			entityType: 'Contact',
			limit: 2,
			simplify: true,
		};
		const asTool = await bed.run(list, [{}], { asTool: true });
		expect(asTool.json).toHaveLength(3);
		expect(asTool.json[2]).toEqual({
			found: 5,
			returned: 2,
			message:
				"5 records match in all; these are the first 2 (the tool's limit). Narrow the search to find the one you need.",
		});
		expect(bed.received('GET')[0].headers['x-no-total']).toBeUndefined();

		const plain = await bed.run(list);
		expect(plain.json).toHaveLength(2);
		expect(bed.received('GET')[1].headers['x-no-total']).toBe('true');
		// all of them: nothing to add
		expect((await bed.run({ ...list, limit: 5 }, [{}], { asTool: true })).json).toHaveLength(5);
	});

	test('409: the existing record and its ID, and to use or update it (outside tool mode, the advice to the author)', async () => {
		const existing = bed.sandbox.store.create('Lead', { firstName: 'Bob', lastName: 'Quote' });
		const lead = {
			resource: 'record',
			operation: 'create',
			entityType: 'Lead',
			fields: { firstName: 'Bob', lastName: 'Quote' },
		};
		const asTool = await bed.run(lead, [{}], { asTool: true });
		expect(asTool.error?.message).toBe(
			`The server found possible duplicates and did not create the record (409): Bob Quote [${existing.id}]. Nothing was created. Do not create it again: use the existing record (ID ${existing.id}) instead, as it is (to post on it, link to it or add a task to it) or updated with the new details by its ID.`,
		);
		const plain = await bed.run(lead);
		expect(plain.error?.message).toBe(
			`The server found possible duplicates and did not create the record (409): Bob Quote [${existing.id}]`,
		);
		expect(plain.error?.description).toMatch(/^Update the existing record instead/);
	});

	test('400 for a required field: which field, and that the tool must give it', async () => {
		const task = {
			resource: 'record',
			operation: 'create',
			entityType: 'Task',
			fields: { name: 'Call back' },
		};
		const asTool = await bed.run(task, [{}], { asTool: true });
		expect(asTool.error?.message).toBe(
			'The server refused the request as invalid (400): Field validation failure; entityType: Task, field: assignedUser, type: required. Nothing was stored: a Task needs the field "assignedUser", and this tool did not give it. If one of the tool\'s arguments fills "assignedUser", call the tool again with it; otherwise this tool cannot store a Task as it is set up (its author must give "assignedUser" in the tool, a fixed value or an argument): say so in your answer.',
		);
		const plain = await bed.run(task);
		expect(plain.error?.message).toBe(
			'The server refused the request as invalid (400): Field validation failure; entityType: Task, field: assignedUser, type: required.',
		);
	});

	test("a value outside a field's list of values: the error lists the allowed values, from EspoCRM's metadata", async () => {
		const lead = {
			resource: 'record',
			operation: 'create',
			entityType: 'Lead',
			fields: { lastName: 'Quote', status: fromAI('status', 'The status of the lead') },
		};
		const asTool = await bed.run(lead, [{ status: 'Hot' }], { asTool: true });
		expect(asTool.error?.message).toMatch(
			/^The server refused the request as invalid \(400\): Field validation failure; entityType: Lead, field: status, type: valid\. Nothing was stored: "status" of a Lead takes one of these values only: "New", "Assigned", .*\. Call the tool again with one of them\.$/,
		);
		expect(bed.received().map((r) => `${r.status} ${r.method} ${r.path}`)).toEqual([
			'400 POST /Lead',
			'200 GET /Metadata',
		]);
		const plain = await bed.run(lead, [{ status: 'Hot' }]);
		expect(plain.error?.message).toBe(
			'The server refused the request as invalid (400): Field validation failure; entityType: Lead, field: status, type: valid.',
		);
		expect(bed.received('GET')).toHaveLength(1);
	});

	test('without Continue on Fail no item starts while the failed one reads the allowed values', async () => {
		const lead = {
			resource: 'record',
			operation: 'create',
			entityType: 'Lead',
			fields: { lastName: '={{ "Quote " + $itemIndex }}', status: '={{ $json.status }}' },
			requestSettings: { maxParallel: 2, maxRetries: 0, timeoutSeconds: 1 },
		};
		// The metadata is never answered: the failed item waits a second for it (its timeout), while the other slot
		// could send the ten items left.
		bed.sandbox.faults.latencyMs = 20;
		bed.sandbox.faults.answerNext({ kind: 'silent', method: 'GET', pathPrefix: '/Metadata' });
		const items = Array.from({ length: 12 }, (_, index) => ({
			status: index === 1 ? 'Hot' : 'New',
		}));
		const asTool = await bed.run(lead, items, { asTool: true });
		expect(asTool.error?.message).toMatch(/^The server refused the request as invalid \(400\)/);
		// Items 0 and 1, and at most the one each slot took before the failure was known.
		expect(bed.received('POST').length).toBeLessThanOrEqual(4);
	});

	test("Create or Update fails as the other operations do: the allowed values, and the 409's advice for the model", async () => {
		const upsert = {
			resource: 'record',
			operation: 'upsert',
			entityType: 'Lead',
			matchField: 'emailAddress',
			matchValue: fromAI('email', 'The e-mail address of the lead'),
			fields: { lastName: 'Quote', status: fromAI('status', 'The status of the lead') },
		};
		const asTool = await bed.run(upsert, [{ email: 'bob.quote@example.com', status: 'Hot' }], {
			asTool: true,
		});
		expect(asTool.error?.message).toMatch(
			/^The server refused the request as invalid \(400\): Field validation failure; entityType: Lead, field: status, type: valid\. Nothing was stored: "status" of a Lead takes one of these values only: "New", "Assigned", .*\. Call the tool again with one of them\.$/,
		);
		expect(bed.received().map((r) => `${r.status} ${r.method} ${r.path}`)).toEqual([
			'200 GET /Lead',
			'400 POST /Lead',
			'200 GET /Metadata',
		]);

		// A look-alike found by the server's duplicate check: the model is told to use the existing record.
		const existing = bed.sandbox.store.create('Lead', { firstName: 'Bob', lastName: 'Quote' });
		const duplicate = { ...upsert, fields: { firstName: 'Bob', lastName: 'Quote' } };
		const again = await bed.run(duplicate, [{ email: 'bob@example.com' }], { asTool: true });
		expect(again.error?.message).toMatch(
			new RegExp(`Do not create it again: use the existing record \\(ID ${existing.id}\\) instead`),
		);
	});

	test('Stream > Post with Simplify: the note without its empty fields and bookkeeping; off by default', async () => {
		const { id } = bed.sandbox.store.create('Contact', { firstName: 'Ada', lastName: 'Lovelace' });
		const post = {
			resource: 'stream',
			operation: 'post',
			entityType: 'Contact',
			recordId: { __rl: true, mode: 'id', value: id },
			post: 'Called back.',
		};
		const full = (await bed.run(post, [{}], { asTool: true })).json[0];
		const compact = (await bed.run({ ...post, simplify: true }, [{}], { asTool: true })).json[0];
		expect(full).toHaveProperty('deleted', false);
		expect(compact).toMatchObject({
			id: expect.any(String),
			type: 'Post',
			post: 'Called back.',
			parentType: 'Contact',
			parentId: id,
		});
		for (const [name, value] of Object.entries(compact)) {
			expect(name).not.toMatch(/^(deleted|createdById|createdByName)$/);
			expect([null, '', undefined]).not.toContain(value as IDataObject[string]);
		}
		expect(JSON.stringify(compact).length).toBeLessThan(JSON.stringify(full).length * 0.7);
	});

	test('Simplify is on by default for a tool from version 1.2; a tool of version 1.1 and the node keep it off', async () => {
		const contact = bed.sandbox.store.create('Contact', { firstName: 'Ada', lastName: 'Lovelace' });
		const get = {
			resource: 'record',
			operation: 'get',
			entityType: 'Contact',
			recordId: { __rl: true, mode: 'id', value: contact.id },
		};
		const getMany = { resource: 'record', operation: 'getMany', entityType: 'Contact', limit: 5 };
		for (const parameters of [get, getMany]) {
			const [tool12] = (await bed.run(parameters, [{}], { asTool: true, typeVersion: 1.2 })).json;
			const [tool11] = (await bed.run(parameters, [{}], { asTool: true, typeVersion: 1.1 })).json;
			const [node12] = (await bed.run(parameters, [{}], { typeVersion: 1.2 })).json;
			expect(tool12).not.toHaveProperty('deleted');
			expect(tool12).toMatchObject({ id: contact.id, firstName: 'Ada', lastName: 'Lovelace' });
			expect(tool11).toHaveProperty('deleted', false);
			expect(node12).toHaveProperty('deleted', false);
			// the author's choice stays theirs
			const [tool12Full] = (
				await bed.run({ ...parameters, simplify: false }, [{}], { asTool: true, typeVersion: 1.2 })
			).json;
			expect(tool12Full).toHaveProperty('deleted', false);
		}
	});
});

describe("the tool's description", () => {
	/** What n8n 2.41 tells the model about a tool: NodeHelpers.getToolDescriptionForNode, the expression resolved for the agent's item. */
	function describeTool(parameters: IDataObject, type = TOOL_NODE_TYPE, typeVersion = 1): string {
		const nodeTypes = new NodeTypes();
		const workflow = new Workflow({
			nodes: [
				{
					id: 't',
					name: 'Tool',
					type,
					typeVersion,
					position: [0, 0],
					parameters: parameters as INodeParameters,
				},
			],
			connections: {},
			active: false,
			nodeTypes,
		});
		const node = workflow.getNode('Tool')!;
		const resolve = () =>
			String(
				workflow.expression.getParameterValue(
					node.parameters.toolDescription as string,
					null,
					0,
					0,
					'Tool',
					[{ json: { email: 'a@b.example' } }],
					'manual',
					{},
				),
			);
		return NodeHelpers.getToolDescriptionForNode(
			node,
			nodeTypes.getByNameAndVersion(type, typeVersion),
			resolve,
		) as string;
	}

	test('names the entity type, the fields it sets and what comes back; two Create tools differ', () => {
		expect(describeTool(createTask)).toBe(
			'Create one Task record in the CRM. Fields it sets: name, assignedUserId, parentType, parentId. A value outside the allowed values of a field is refused with the list of them. Returns the new record with its ID; when it looks like an existing record, nothing is created and the error names the existing record and its ID.',
		);
		expect(
			describeTool({
				resource: 'record',
				operation: 'create',
				entityType: 'Lead',
				fields: { lastName: fromAI('lastName', 'Last name') },
			}),
		).toMatch(
			/^Create one Lead record in the CRM\. Fields it sets: lastName\. A value outside the allowed values of a field is refused with the list of them\. Returns/,
		);
		expect(
			describeTool({
				resource: 'record',
				operation: 'getMany',
				entityType: 'Contact',
				limit: 3,
				filterMode: 'conditions',
				conditions: {
					condition: [
						{
							attribute: 'emailAddress',
							operator: 'equals',
							value: fromAI('email', 'The e-mail address'),
						},
					],
				},
				listOptions: { select: ['firstName', 'emailAddress'] },
			}),
		).toBe(
			'Find Contact records in the CRM by emailAddress equals (at most 3). Returns their ID and firstName, emailAddress, "found: 0" when none match, and how many matched in all when there are more.',
		);
		// a type the model gives is not evaluated (n8n has no arguments yet when it describes the tool)
		expect(
			describeTool({
				resource: 'stream',
				operation: 'post',
				entityType: fromAI('recordType', 'Contact or Lead'),
				recordId: { __rl: true, mode: 'id', value: fromAI('recordId', 'ID') },
				post: fromAI('text', 'The post'),
			}),
		).toBe(
			'Post a note (Markdown) to the stream of one record (of the type in the arguments), by its ID, where the team sees it. Returns the note.',
		);
	});

	test("lists the allowed values of the mapped fields that have a list, from the field mapper's saved schema", () => {
		// As the editor saves a field mapper (resourceMapper): the fields' schema with their options, the values mapped.
		const columns = {
			mappingMode: 'defineBelow',
			value: {
				name: fromAI('subject', 'The task'),
				status: fromAI('status', 'The status'),
				priority: null,
			},
			matchingColumns: [],
			schema: [
				{ id: 'name', displayName: 'Name', type: 'string', display: true, defaultMatch: false },
				{
					id: 'status',
					displayName: 'Status',
					type: 'options',
					display: true,
					defaultMatch: false,
					options: ['Not Started', 'Started', 'Completed'].map((v) => ({ name: v, value: v })),
				},
				{
					id: 'priority',
					displayName: 'Priority',
					type: 'options',
					display: true,
					defaultMatch: false,
					options: ['Low', 'Normal'].map((v) => ({ name: v, value: v })),
				},
			],
		};
		expect(
			describeTool({
				resource: 'record',
				operation: 'create',
				entityType: 'Task',
				bodyMode: 'mapper',
				columns,
			}),
		).toBe(
			'Create one Task record in the CRM. Fields it sets: name, status, priority. Allowed values: status: Not Started | Started | Completed. A value outside the allowed values of a field is refused with the list of them. Returns the new record with its ID; when it looks like an existing record, nothing is created and the error names the existing record and its ID.',
		);
	});

	test('Fields to Return as one text (not a list) and a Match By Field from an expression still give a description', () => {
		expect(
			describeTool({
				resource: 'record',
				operation: 'getMany',
				entityType: 'Contact',
				limit: 3,
				listOptions: { select: 'firstName,emailAddress' },
			}),
		).toBe(
			'Find Contact records in the CRM (at most 3). Returns their ID and firstName,emailAddress, "found: 0" when none match, and how many matched in all when there are more.',
		);
		expect(
			describeTool({
				resource: 'record',
				operation: 'upsert',
				entityType: 'Lead',
				matchField: '={{ $json.key }}',
				fields: { lastName: fromAI('lastName', 'Last name') },
			}),
		).toMatch(
			/^Create one Lead record in the CRM, or update the one whose match field matches\. Fields it sets: lastName\./,
		);
	});

	test("the author's own text is kept; the node outside tool mode has no such parameter", () => {
		expect(
			describeTool({ ...createTask, toolDescription: 'Create a follow-up task under a contact.' }),
		).toBe('Create a follow-up task under a contact.');
		const workflow = new Workflow({
			nodes: [
				{
					id: 't',
					name: 'Node',
					type: NODE_TYPE,
					typeVersion: 1,
					position: [0, 0],
					parameters: createTask as unknown as INodeParameters,
				},
			],
			connections: {},
			active: false,
			nodeTypes: new NodeTypes(),
		});
		expect(workflow.getNode('Node')!.parameters).not.toHaveProperty('toolDescription');
	});

	test("from version 1.2: Set Automatically gives the model the same generated text, Set Manually the author's words", () => {
		const generated = describeTool(createTask);
		expect(describeTool(createTask, TOOL_NODE_TYPE, 1.1)).toBe(generated);
		expect(describeTool(createTask, TOOL_NODE_TYPE, 1.2)).toBe(generated);
		expect(describeTool({ ...createTask, toolDescriptionType: 'auto' }, TOOL_NODE_TYPE, 1.2)).toBe(
			generated,
		);
		expect(
			describeTool(
				{
					...createTask,
					toolDescriptionType: 'manual',
					toolDescriptionText: 'Create a follow-up task under a contact.',
				},
				TOOL_NODE_TYPE,
				1.2,
			),
		).toBe('Create a follow-up task under a contact.');
		// the author's words, written with an expression, are resolved
		expect(
			describeTool(
				{
					...createTask,
					toolDescriptionType: 'manual',
					toolDescriptionText: "={{ 'Tasks for ' + $rawParameter.entityType }}",
				},
				TOOL_NODE_TYPE,
				1.2,
			),
		).toBe('Tasks for Task');
		// back to Set Automatically: the generated text again, whatever the words were
		expect(
			describeTool(
				{ ...createTask, toolDescriptionType: 'auto', toolDescriptionText: 'Old words.' },
				TOOL_NODE_TYPE,
				1.2,
			),
		).toBe(generated);
		// saved with version 1 or 1.1: an own text stored in toolDescription is what the model reads, as before
		expect(
			describeTool(
				{ ...createTask, toolDescription: 'Create a follow-up task.' },
				TOOL_NODE_TYPE,
				1.1,
			),
		).toBe('Create a follow-up task.');
	});

	test('from version 1.2 the form shows words, not code: the generated text is a hidden default, and a notice per operation says what it reads', () => {
		const { properties } = new NodeTypes().getByNameAndVersion(TOOL_NODE_TYPE, 1.2).description;
		const shown = (parameters: IDataObject) =>
			properties.filter((property) =>
				NodeHelpers.displayParameter(
					parameters as INodeParameters,
					property,
					{ typeVersion: 1.2 },
					{ ...new NodeTypes().getByNameAndVersion(TOOL_NODE_TYPE, 1.2).description },
				),
			);
		const auto = shown({ resource: 'record', operation: 'create', toolDescriptionType: 'auto' });
		expect(
			auto
				.filter(
					(property) => property.name.startsWith('toolDescription') && property.type !== 'notice',
				)
				.map((property) => [property.name, property.type]),
		).toEqual([
			['toolDescriptionType', 'options'],
			['toolDescription', 'hidden'],
		]);
		expect(
			auto
				.filter(
					(property) =>
						property.type === 'notice' && property.name.startsWith('toolDescriptionNotice'),
				)
				.map((property) => property.displayName),
		).toEqual([
			'The model reads: “Create one ‹entity type› record in the CRM. Fields it sets: ‹the fields set below›. A value outside the allowed values of a field is refused with the list of them. Returns the new record with its ID; when it looks like an existing record, nothing is created and the error names the existing record and its ID.” With the Field Mapper, the allowed values of the mapped fields that have a list follow the fields.',
		]);
		const manual = shown({
			resource: 'record',
			operation: 'create',
			toolDescriptionType: 'manual',
		});
		expect(
			manual
				.filter(
					(property) => property.name.startsWith('toolDescription') && property.type !== 'notice',
				)
				.map((property) => [property.name, property.type, property.default]),
		).toEqual([
			['toolDescriptionType', 'options', 'auto'],
			[
				'toolDescription',
				'hidden',
				expect.stringMatching(
					/^=\{\{ \$parameter\.toolDescriptionType === 'manual' \? \$parameter\.toolDescriptionText : /,
				),
			],
			['toolDescriptionText', 'string', ''],
		]);
		expect(
			manual.some(
				(property) =>
					property.type === 'notice' && property.name.startsWith('toolDescriptionNotice'),
			),
		).toBe(false);
	});
});
