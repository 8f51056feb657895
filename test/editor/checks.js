'use strict';
/*
 * What the editor test checks, in order: each check is one PASS/FAIL line of `npm run test:editor`. A check gets
 * { editor (test/editor/editor.js), sandbox, workflows (test/editor/workflows.js), readmeImages } and throws when what
 * a person sees differs from what is expected here (expected.js) or from the sandbox's own data.
 */
const assert = require('assert/strict');
const { OPERATIONS } = require('./workflows');
const EXPECTED = require('./expected');

/** The labels the sandbox gives an entity type's fields (its EspoCRM dialect's translations), by field name. */
async function sandboxJson(sandbox, path) {
	const r = await fetch(`${sandbox.baseUrl}${path}`, {
		headers: { 'X-Api-Key': require('../sandbox').SANDBOX_CREDENTIALS.apiKey },
	});
	assert.equal(r.status, 200, `sandbox GET ${path}: ${r.status}`);
	return await r.json();
}

/** The nodes panel (n8n's node creator), searched for the package: entries and their descriptions. */
async function searchNodesPanel(editor, text) {
	const creator = editor.page.locator('[data-test-id="node-creator"]');
	await creator.waitFor();
	await editor.page.locator('[data-test-id="node-creator-search-bar"]').fill(text);
	const entries = creator.locator('[data-test-id="item-iterator-item"]');
	await entries.first().waitFor();
	await editor.page.waitForFunction(
		({ needle }) =>
			[
				...document.querySelectorAll(
					'[data-test-id="node-creator"] [data-test-id="item-iterator-item"]',
				),
			].some((e) => e.innerText.includes(needle)),
		{ needle: text },
		{ polling: 200 },
	);
	return await entries.evaluateAll((els) =>
		els
			.filter((e) => e.offsetParent !== null)
			.map((e) =>
				e.innerText
					.trim()
					.split('\n')
					.map((l) => l.trim())
					.filter(Boolean),
			),
	);
}

/**
 * The entries of the entry opened in the nodes panel (its actions or trigger events, and their group headings); the
 * search results stay underneath it in the page, and are left out.
 */
async function panelItems(editor) {
	const items = await editor.page
		.locator('[data-test-id="node-creator"] [data-test-id="item-iterator-item"]')
		.evaluateAll((els) =>
			els.filter((e) => e.offsetParent !== null).map((e) => e.innerText.trim()),
		);
	return items.filter((item) => !item.startsWith('Record Management Service'));
}

const CHECKS = [];
const check = (name, run) => CHECKS.push({ name, run });

check(
	'nodes panel, "What happens next?": the action entry says what it holds, not only the trigger',
	async ({ editor, workflows, readmeImages }) => {
		await editor.openWorkflow(workflows.forms.id);
		await editor.page.locator('[data-test-id="canvas-handle-plus"]').first().click();
		const entries = await searchNodesPanel(editor, 'Record Management');
		assert.deepEqual(entries, EXPECTED.nodesPanel.next, 'the entries of the nodes panel');
		await editor.screenshot('nodes-panel-what-happens-next');
		await editor.page
			.locator('[data-test-id="node-creator"] [data-test-id="item-iterator-item"]')
			.filter({ hasText: 'Record Management Service' })
			.first()
			.click();
		const details = editor.page.locator('[data-test-id="node-creator"]');
		await details
			.getByText(/Actions \(\d+\)/)
			.first()
			.waitFor();
		const text = await details.innerText();
		assert.ok(
			text.includes(EXPECTED.nodesPanel.next[0][1]),
			`the node's details header shows its description:\n${text.slice(0, 600)}`,
		);
		const actions = await panelItems(editor);
		assert.deepEqual(actions, EXPECTED.nodesPanel.actions, 'the actions of the entry');
		assert.match(text, /Actions \(18\)/);
		await editor.screenshot('nodes-panel-actions');
		if (readmeImages)
			await editor.readmeImage(readmeImages, 'nodes-panel', details, { height: 620 });
	},
);

check(
	'nodes panel, "What triggers this workflow?": both triggers, each described',
	async ({ editor, workflows }) => {
		await editor.openWorkflow(workflows.empty.id, { empty: true });
		await editor.page.locator('[data-test-id="canvas-add-button"]').first().click();
		const entries = await searchNodesPanel(editor, 'Record Management');
		assert.deepEqual(
			entries,
			EXPECTED.nodesPanel.triggers,
			'the trigger entries of the nodes panel',
		);
		await editor.page
			.locator('[data-test-id="node-creator"] [data-test-id="item-iterator-item"]')
			.filter({ hasText: 'Record Management Service' })
			.first()
			.click();
		await editor.page
			.locator('[data-test-id="node-creator"]')
			.getByText(/On record created/)
			.first()
			.waitFor();
		const events = await panelItems(editor);
		assert.deepEqual(events, EXPECTED.nodesPanel.triggerEvents, 'the trigger events of the entry');
		await editor.screenshot('nodes-panel-triggers');
	},
);

check("the AI Agent's tool picker offers the node as a tool", async ({ editor, workflows }) => {
	await editor.openNode(workflows.tools.id, 'agent');
	await editor.page.keyboard.press('Escape');
	await editor.page.locator('[data-test-id="canvas-node"]').first().waitFor();
	// the agent's "Tool" input, its + button on the canvas
	await editor.page
		.locator(
			'[data-test-id="canvas-node-input-handle"][data-connection-type="ai_tool"] [data-test-id="canvas-handle-plus"]',
		)
		.first()
		.click();
	const entries = await searchNodesPanel(editor, 'Record Management');
	assert.deepEqual(entries, EXPECTED.nodesPanel.tools, 'the tool entries');
	await editor.screenshot('tool-picker');
});

for (const [resource, operation] of OPERATIONS)
	check(
		`form of ${resource} > ${operation}: its fields, in words, none cut`,
		async ({ editor, workflows, readmeImages }) => {
			await editor.openNode(workflows.forms.id, `form-${resource}-${operation}`);
			const labels = await editor.labels();
			assert.deepEqual(
				labels,
				EXPECTED.forms[`${resource}.${operation}`],
				'the labels of the form',
			);
			assert.deepEqual(await editor.cutLabels(), [], 'labels cut short');
			await editor.screenshot(`form-${resource}-${operation}`, editor.parameters());
			if (readmeImages && EXPECTED.readmeForms[`${resource}.${operation}`])
				await editor.readmeImage(
					readmeImages,
					EXPECTED.readmeForms[`${resource}.${operation}`],
					editor.parameters(),
					{ height: 640 },
				);
		},
	);

check(
	'lists of the form against the sandbox: entity types, relationships, fields to sort by',
	async ({ editor, workflows, sandbox }) => {
		await editor.openNode(workflows.forms.id, 'form-relationship-getManyRelated');
		const metadata = await sandboxJson(sandbox, '/Metadata');
		const types = await editor.optionsOf('entityType');
		const entityTypes = Object.entries(metadata.scopes)
			.filter(([, s]) => s.entity && s.object)
			.map(([name]) => name);
		// every entity type of the server by its label (custom ones with their name), then "Other"
		assert.equal(
			types.length,
			entityTypes.length + 1,
			`entity types: ${types.join(', ')} for ${entityTypes.join(', ')}`,
		);
		assert.deepEqual(types, EXPECTED.lists.entityTypes);
		const links = (await editor.optionsOf('link')).slice(0, -1).sort();
		assert.deepEqual(links, EXPECTED.lists.contactLinks);
		// every relationship of the sandbox's Contact, by its name
		for (const link of Object.keys(metadata.entityDefs.Contact.links))
			assert.ok(
				links.some((l) => l.includes(`(${link})`)),
				`relationship ${link} not among ${links.join(', ')}`,
			);
		await editor.screenshot('lists-relationships');
	},
);

check(
	'field mapper: the fields of a Lead and the values of its Status, from the sandbox',
	async ({ editor, workflows, sandbox, readmeImages }) => {
		await editor.openNode(workflows.forms.id, 'mapper-create-lead');
		const metadata = await sandboxJson(sandbox, '/Metadata');
		await editor.parameters().locator('[data-test-id="mapping-fields-container"]').waitFor();
		await editor.settled();
		// the required fields are there from the start; the others are offered by "Add field to send"
		assert.deepEqual(await editor.labels(), EXPECTED.lists.leadMapperForm);
		await editor.parameters().locator('[data-test-id="add-fields-select"] button').click();
		const items = editor.page.locator('[role="menu"] [role="menuitem"]');
		await items.first().waitFor();
		const fields = await items.evaluateAll((els) => els.map((e) => e.innerText.trim()));
		assert.deepEqual(fields, EXPECTED.lists.leadMapperFields, 'the fields the mapper offers');
		for (const [name, field] of Object.entries(metadata.entityDefs.Lead.fields))
			if (!field.readOnly && !field.disabled && field.type === 'enum')
				assert.ok(
					fields.some((f) => f.endsWith(`(${name})`)),
					`the enum field ${name} of the sandbox's Lead is offered`,
				);
		await items.filter({ hasText: 'Status (status)' }).first().click();
		await editor.input('status').waitFor();
		const statusOptions = await editor.optionsOf('status');
		assert.deepEqual(
			statusOptions,
			metadata.entityDefs.Lead.fields.status.options,
			'the values of Status',
		);
		await editor.screenshot('field-mapper-lead', editor.parameters());
		if (readmeImages)
			await editor.readmeImage(readmeImages, 'field-mapper', editor.parameters(), { height: 640 });
	},
);

check(
	'EspoCRM-only features are marked the same way, "(EspoCRM)"',
	async ({ editor, workflows }) => {
		await editor.openNode(workflows.forms.id, 'standard-getMany');
		const resources = await editor.optionsOf('resource');
		assert.deepEqual(resources, EXPECTED.lists.resources);
		const labels = await editor.labels();
		for (const label of EXPECTED.espocrmOnly.getMany)
			assert.ok(labels.includes(label), `"${label}" not among ${labels.join(', ')}`);
		assert.deepEqual(await editor.cutLabels(), [], 'labels cut short');
		await editor.openNode(workflows.forms.id, 'send-with-attachments');
		assert.ok((await editor.labels()).includes('Attachments (EspoCRM)'));
		assert.deepEqual(await editor.cutLabels(), [], 'labels cut short');
		await editor.screenshot('send-with-attachments', editor.parameters());
		await editor.openNode(workflows.triggers.id, 'trigger-created');
		assert.deepEqual(await editor.optionsOf('event'), EXPECTED.lists.triggerEvents);
	},
);

check(
	'runs one operation: Get Many in the editor gives the newest contacts of the sandbox',
	async ({ editor, workflows, sandbox }) => {
		await editor.openNode(workflows.forms.id, 'list-contacts');
		await editor.runNode();
		const output = await editor.output();
		await output
			.getByText(/3 items/)
			.first()
			.waitFor();
		const newest = (await sandboxJson(sandbox, '/Contact?maxSize=3&select=name')).list.map(
			(c) => c.name,
		);
		// The item count shows before the rows under it are drawn (on a loaded machine, long enough to read the panel in
		// between): wait for the rows; a name that never comes is reported below with what the panel shows.
		await Promise.all(
			newest.map((name) =>
				output
					.getByText(name)
					.first()
					.waitFor()
					.catch(() => {}),
			),
		);
		const text = await output.innerText();
		for (const name of newest)
			assert.ok(text.includes(name), `the output shows ${name}:\n${text.slice(0, 800)}`);
		await editor.screenshot('executed-get-many');
	},
);

check('Fetch Test Event: the newest contact', async ({ editor, workflows, sandbox }) => {
	await editor.openNode(workflows.triggers.id, 'trigger-created');
	await editor.runNode();
	const output = await editor.output();
	const [newest] = (await sandboxJson(sandbox, '/Contact?maxSize=1&select=name')).list;
	await output.getByText(newest.name).first().waitFor();
	await editor.screenshot('fetch-test-event');
});

/** Fetch Test Event on a trigger of the triggers' workflow: what the output panel then says (an error, here). */
async function fetchTestEvent(editor, workflows, nodeId, expected) {
	await editor.openNode(workflows.triggers.id, nodeId);
	await editor.runNode();
	const text = await (await editor.output()).innerText();
	assert.ok(text.includes(expected), `the output says:\n${text.slice(0, 800)}`);
	await editor.screenshot(`fetch-test-event-${nodeId}`);
	return text;
}

check(
	'Fetch Test Event, New Stream Note with a Standard server: one message, no "(item 0)"',
	async ({ editor, workflows }) => {
		const text = await fetchTestEvent(
			editor,
			workflows,
			'trigger-stream-standard',
			EXPECTED.triggerMessages.standardServer,
		);
		assert.equal(
			text.split('If the server is EspoCRM').length - 1,
			1,
			`the advice once:\n${text.slice(0, 800)}`,
		);
		assert.doesNotMatch(text, /\(item 0\)/);
	},
);

check(
	'Fetch Test Event on a stream without a note: why, and what to do',
	async ({ editor, workflows }) => {
		const text = await fetchTestEvent(
			editor,
			workflows,
			'trigger-stream-quiet',
			EXPECTED.triggerMessages.quietStream,
		);
		assert.doesNotMatch(text, /No trigger output/);
	},
);

check(
	'tool: Tool Description in words, set automatically or by the author; no code in the form',
	async ({ editor, workflows, readmeImages }) => {
		await editor.openNode(workflows.tools.id, 'tool-new');
		assert.equal(await editor.chosen('toolDescriptionType'), 'Set Automatically');
		assert.deepEqual(await editor.notices(), [EXPECTED.tool.notice]);
		const text = await editor.parameters().innerText();
		assert.doesNotMatch(text, /\$rawParameter|=>|\{\{ \(/, 'code in the form');
		assert.deepEqual(await editor.cutLabels(), [], 'labels cut short');
		await editor.screenshot('tool-description-automatic', editor.parameters());
		if (readmeImages)
			await editor.readmeImage(readmeImages, 'tool', editor.parameters(), { height: 560 });
		assert.deepEqual(await editor.optionsOf('toolDescriptionType'), [
			'Set Automatically',
			'Set Manually',
		]);
		await editor.choose('toolDescriptionType', 'Set Manually');
		const description = editor.input('toolDescriptionText').locator('textarea');
		await description.waitFor();
		assert.equal(await description.inputValue(), '');
		assert.equal(await description.getAttribute('placeholder'), EXPECTED.tool.placeholder);
		assert.deepEqual(await editor.notices(), []);
		await description.fill('Create a lead for the sender of an e-mail who is not a contact yet.');
		assert.equal(
			await description.inputValue(),
			'Create a lead for the sender of an e-mail who is not a contact yet.',
		);
		await editor.screenshot('tool-description-manual', editor.parameters());
	},
);

check(
	'tool: Simplify on for a new tool, off for a tool saved with version 1.1 (its default then)',
	async ({ editor, workflows }) => {
		await editor.openNode(workflows.tools.id, 'tool-new');
		assert.equal(await editor.switchedOn('simplify'), true, 'Simplify of a new tool');
		await editor.openNode(workflows.tools.id, 'tool-saved');
		assert.equal(await editor.switchedOn('simplify'), false, 'Simplify of the tool saved with 1.1');
		// version 1.1 keeps its form: the generated description is its default, which the model reads
		const preview = (
			await editor
				.parameters()
				.locator('[data-test-id="parameter-expression-preview-toolDescription"]')
				.innerText()
		).replace(/\u00a0/g, ' ');
		assert.ok(
			preview.startsWith('Find Contact records in the CRM by emailAddress equals (at most 3).'),
			`preview: ${preview}`,
		);
		await editor.screenshot('tool-saved-with-1.1', editor.parameters());
	},
);

check(
	'credential: the Test of a right API key passes, a wrong one says why',
	async ({ editor, sandboxOrigin }) => {
		await editor.goto('/home/credentials/create');
		const modal = editor.page
			.locator('[data-test-id="editCredential-modal"], .el-dialog:visible')
			.first();
		await editor.page
			.locator('[data-test-id="credential-select"] input, input[placeholder*="Search for app"]')
			.first()
			.fill('Record Management Service');
		await editor.page
			.locator('.el-select-dropdown__item:visible, [data-test-id="credential-select-option"]')
			.filter({ hasText: 'Record Management Service API' })
			.first()
			.click();
		await editor.page.getByRole('button', { name: /Continue/ }).click();
		await modal.locator('[data-test-id="parameter-input-baseUrl"] input').fill(sandboxOrigin);
		await modal.locator('[data-test-id="parameter-input-apiKey"] input').fill('wrong-key');
		await modal.locator('[data-test-id="credential-save-button"]').click();
		await modal
			.getByText(/Couldn.t connect with these settings/)
			.first()
			.waitFor();
		await modal.getByText('More details').first().click();
		await modal.getByText(EXPECTED.credential.wrong).first().waitFor();
		const wrong = await modal.innerText();
		assert.match(wrong, EXPECTED.credential.wrong, `a wrong key:\n${wrong.slice(0, 1200)}`);
		await editor.screenshot('credential-wrong-key');
		await modal
			.locator('[data-test-id="parameter-input-apiKey"] input')
			.fill(require('../sandbox').SANDBOX_CREDENTIALS.apiKey);
		await modal.locator('[data-test-id="credential-save-button"]').click();
		await modal
			.getByText(/Connection tested successfully/)
			.first()
			.waitFor();
		await editor.screenshot('credential-right-key');
	},
);

module.exports = { CHECKS };
