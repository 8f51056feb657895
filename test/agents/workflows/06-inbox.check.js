'use strict';
/**
 * A whole inbox in one run: ten e-mails (Inbox → one item per e-mail → the AI Agent, once per e-mail) handled by a
 * scripted model with five tools of this node: Find contact, Create lead, Create task, Update contact, Post to stream
 * (Simplify on all). Known and unknown senders, one with an attachment, one whose lead exists already (409), two asking
 * for a call on a date (a task). The model makes three mistakes and recovers from each, reading the tool's result:
 * - Bob: it creates the task without `contactId` (n8n runs the call without checking it against the schema): refused
 *   before any request, naming the argument; it calls again with the ID;
 * - Dan: it creates a lead that exists: the 409 names the existing lead's ID, and the model posts on that lead;
 * - Eve: it updates the contact with a wrong ID: the 404 says to check the ID, and it uses the one Find contact gave.
 *
 * The model is a policy (`plan` below, one list of steps per e-mail), played for every request: each request is one
 * e-mail's conversation, and the policy reads the e-mail and the tool results so far, as a model would.
 * Figures (requests per e-mail, characters the model received from the tools) are printed for docs/ai-agents.md.
 *
 * Runs on the sandbox, and on a real EspoCRM when the runner is given one (`anyCrm`, test/agents/run.js): the records
 * are seeded and read back through the CRM's API (`crm`, test/agents/crm.js); the requests the tools sent are
 * asserted on the sandbox only.
 */
const { assertToolDefinitions } = require('../tool-definitions');

const KNOWN = {
	alice: { firstName: 'Alice', lastName: 'Known', emailAddress: 'alice.known@acme.example' },
	bob: { firstName: 'Bob', lastName: 'Known', emailAddress: 'bob.known@acme.example' },
	eve: {
		firstName: 'Eve',
		lastName: 'Known',
		emailAddress: 'eve.known@acme.example',
		phoneNumber: '+1 555 0100',
	},
	frank: { firstName: 'Frank', lastName: 'Known', emailAddress: 'frank.known@acme.example' },
	heidi: { firstName: 'Heidi', lastName: 'Known', emailAddress: 'heidi.known@acme.example' },
	ivan: { firstName: 'Ivan', lastName: 'Known', emailAddress: 'ivan.known@acme.example' },
};
const EXISTING_LEAD = {
	firstName: 'Dan',
	lastName: 'Lead',
	emailAddress: 'dan.lead@corp.example',
	status: 'New',
};
const WRONG_ID = '0000000000000dead';

/** The sender's key ("alice") of a conversation, from the e-mail the agent was given. */
function senderOf(request) {
	const user = (request.body.messages || []).find((m) => m.role === 'user');
	const text = typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content);
	const match = /<([a-z]+)\.[a-z]+@/.exec(text || '');
	if (!match) throw new Error(`no sender in the prompt: ${text}`);
	return match[1];
}

const find = (r) => ({ toolCalls: [{ name: 'Find_contact', args: { email: r.email } }] });
const idIn = (result) => result.json[0].id;
const post = (recordType, recordId, text) => ({
	toolCalls: [{ name: 'Post_to_stream', args: { recordType, recordId, text } }],
});
const createLead = (firstName, lastName, email, request) => ({
	toolCalls: [{ name: 'Create_lead', args: { firstName, lastName, email, request } }],
});

/**
 * What the model does for each sender, step by step: `step(results)` gets the tool results of the conversation so far
 * (model.toolResults) and returns the next turn.
 */
const plan = {
	alice: [
		() => find({ email: 'alice.known@acme.example' }),
		(r) =>
			post('Contact', idIn(r[0]), '**Invoice question**: which address the March invoice went to.'),
		() => ({ text: 'Posted the invoice question on Alice Known.' }),
	],
	bob: [
		() => find({ email: 'bob.known@acme.example' }),
		// mistake 1: the contact's ID left out
		() => ({
			toolCalls: [
				{
					name: 'Create_task',
					args: { title: 'Call Bob Known back about the renewal', dueDate: '2026-12-03' },
				},
			],
		}),
		(r) => ({
			toolCalls: [
				{
					name: 'Create_task',
					args: {
						title: 'Call Bob Known back about the renewal',
						contactId: idIn(r[0]),
						dueDate: '2026-12-03',
					},
				},
			],
		}),
		(r) =>
			post(
				'Contact',
				idIn(r[0]),
				`**Call back on 3 December** about the renewal: task "${r[2].json[0].name}" created.`,
			),
		() => ({
			text: 'Created a task to call Bob Known back on 3 December and noted it on his contact.',
		}),
	],
	carol: [
		() => find({ email: 'carol.new@startup.example' }),
		() =>
			createLead(
				'Carol',
				'New',
				'carol.new@startup.example',
				'Pricing for a yearly plan for 12 people.',
			),
		(r) => post('Lead', idIn(r[1]), '**Pricing**: yearly plan for 12 people.'),
		() => ({ text: 'Created a lead for Carol New and posted her pricing request on it.' }),
	],
	dan: [
		() => find({ email: 'dan.lead@corp.example' }),
		// mistake 3: the lead exists already
		() => createLead('Dan', 'Lead', 'dan.lead@corp.example', 'News about the quote for 30 seats.'),
		(r) =>
			post(
				'Lead',
				/\(ID (\w+)\)/.exec(r[1].json[0].error)[1],
				'**Quote, again**: asks for news about the quote for 30 seats.',
			),
		() => ({ text: 'Dan Lead was already a lead: I posted his follow-up on it.' }),
	],
	eve: [
		() => find({ email: 'eve.known@acme.example' }),
		// mistake 2: a wrong ID
		() => ({
			toolCalls: [
				{ name: 'Update_contact', args: { contactId: WRONG_ID, phoneNumber: '+1 555 0199' } },
			],
		}),
		(r) => ({
			toolCalls: [
				{ name: 'Update_contact', args: { contactId: idIn(r[0]), phoneNumber: '+1 555 0199' } },
			],
		}),
		(r) =>
			post('Contact', idIn(r[0]), '**New phone number**: +1 555 0199 (updated on the contact).'),
		() => ({ text: "Updated Eve Known's phone number and noted it on her contact." }),
	],
	frank: [
		() => find({ email: 'frank.known@acme.example' }),
		(r) =>
			post('Contact', idIn(r[0]), '**Signed contract** received by e-mail: `contract-2026.pdf`.'),
		() => ({ text: 'Noted the signed contract from Frank Known on his contact.' }),
	],
	grace: [
		() => find({ email: 'grace.new@navy.example' }),
		() => createLead('Grace', 'New', 'grace.new@navy.example', 'A demo next week.'),
		(r) => post('Lead', idIn(r[1]), '**Demo** requested for next week.'),
		() => ({ text: 'Created a lead for Grace New and posted her demo request on it.' }),
	],
	heidi: [
		() => find({ email: 'heidi.known@acme.example' }),
		(r) => ({
			toolCalls: [
				{
					name: 'Create_task',
					args: {
						title: 'Talk to Heidi Known about the training',
						contactId: idIn(r[0]),
						dueDate: '2026-12-10',
					},
				},
			],
		}),
		(r) =>
			post(
				'Contact',
				idIn(r[0]),
				`**Follow-up on 10 December** about the training: task "${r[1].json[0].name}" created.`,
			),
		() => ({
			text: 'Created a task to talk to Heidi Known on 10 December and noted it on her contact.',
		}),
	],
	ivan: [
		() => find({ email: 'ivan.known@acme.example' }),
		(r) => post('Contact', idIn(r[0]), '**Out of office** until Monday.'),
		() => ({ text: "Noted Ivan Known's absence on his contact." }),
	],
	judy: [
		() => find({ email: 'judy.new@shop.example' }),
		() => createLead('Judy', 'New', 'judy.new@shop.example', 'A reseller partnership.'),
		(r) => post('Lead', idIn(r[1]), '**Partnership**: resells CRM software.'),
		() => ({ text: 'Created a lead for Judy New and posted her partnership request on it.' }),
	],
};

const SENDERS = Object.keys(plan);
const TURNS = SENDERS.reduce((sum, sender) => sum + plan[sender].length, 0);

/** The model: the next step of the sender's plan, by how many times it has answered in this conversation. */
function policy(request, model) {
	const sender = senderOf(request);
	const answered = (request.body.messages || []).filter((m) => m.role === 'assistant').length;
	const step = plan[sender][answered];
	if (!step) throw new Error(`${sender}: no step ${answered + 1}`);
	return step(model.toolResults(request));
}

const INBOX = [
	...Object.values(KNOWN).map((c) => c.emailAddress),
	EXISTING_LEAD.emailAddress,
	'carol.new@startup.example',
	'grace.new@navy.example',
	'judy.new@shop.example',
];
const TASKS = ['Call Bob Known back about the renewal', 'Talk to Heidi Known about the training'];

module.exports = async (result, { model, sandbox, crm }, assert) => {
	assert.equal(
		model.overruns,
		0,
		'the model was asked more often than its script answers (or a turn failed)',
	);
	assert.equal(model.requests.length, TURNS);
	assert.equal(result.run.status, 'success');
	// the loop's "done" output: the agent's answer for each e-mail, in the inbox's order
	const answers = result.items('One e-mail at a time', { output: 0 }).map((item) => item.output);
	assert.equal(answers.length, 10);
	assert.deepEqual(
		answers,
		SENDERS.map((sender) => plan[sender][plan[sender].length - 1]().text),
	);

	// what n8n told the model about the tools
	assertToolDefinitions(
		model,
		model.requests[0],
		{
			Find_contact: {
				description:
					'Find Contact records in the CRM by emailAddress equals (at most 3). Returns their ID and firstName, lastName, emailAddress, accountName, "found: 0" when none match, and how many matched in all when there are more.',
				parameters: { email: 'string' },
			},
			Create_lead: {
				description:
					'Create one Lead record in the CRM. Fields it sets: firstName, lastName, emailAddress, description. A value outside the allowed values of a field is refused with the list of them. Returns the new record with its ID; when it looks like an existing record, nothing is created and the error names the existing record and its ID.',
				parameters: { firstName: 'string', lastName: 'string', email: 'string', request: 'string' },
			},
			Create_task: {
				description:
					'Create one Task record in the CRM. Fields it sets: name, assignedUserId, parentType, parentId, dateEndDate. A value outside the allowed values of a field is refused with the list of them. Returns the new record with its ID; when it looks like an existing record, nothing is created and the error names the existing record and its ID.',
				parameters: { title: 'string', contactId: 'string', dueDate: 'string' },
			},
			Update_contact: {
				description:
					'Update one Contact record in the CRM, by its ID. Fields it sets: phoneNumber. A value outside the allowed values of a field is refused with the list of them. Returns the record as changed.',
				parameters: { contactId: 'string', phoneNumber: 'string' },
			},
			Post_to_stream: {
				description:
					'Post a note (Markdown) to the stream of one record (of the type in the arguments), by its ID, where the team sees it. Returns the note.',
				parameters: { recordType: 'string', recordId: 'string', text: 'string' },
			},
		},
		assert,
	);

	// each conversation's last request holds everything the model received for that e-mail
	const last = {};
	for (const request of model.requests) last[senderOf(request)] = request;
	const received = (sender) => model.toolResults(last[sender]);
	// the senders' records as the CRM holds them at the end
	const contacts = {};
	const leads = {};
	for (const email of INBOX) {
		contacts[email] = await crm.list('Contact', { emailAddress: email });
		leads[email] = await crm.list('Lead', { emailAddress: email });
	}
	const id = (key) => contacts[KNOWN[key].emailAddress][0].id;
	const leadId = (email) => leads[email][0].id;
	// mistake 1: the missing argument, refused before any request, then the task with it
	const bob = received('bob');
	assert.deepEqual(
		bob.map((r) => r.name),
		['Find_contact', 'Create_task', 'Create_task', 'Post_to_stream'],
	);
	assert.equal(
		bob[1].json[0].error,
		'The argument "contactId" is missing. It must hold text: The ID of the contact the task is about, as Find contact returned it. Nothing was sent: call the tool again with it.',
	);
	// mistake 3: the duplicate, with the existing lead's ID and what to do
	const dan = received('dan');
	const danId = leadId(EXISTING_LEAD.emailAddress);
	assert.match(
		dan[1].json[0].error,
		new RegExp(
			`^The server found possible duplicates and did not create the record \\(409\\): Dan Lead \\[${danId}\\]\\. Nothing was created\\. Do not create it again: use the existing record \\(ID ${danId}\\)`,
		),
	);
	// mistake 2: the wrong ID, 404
	const eve = received('eve');
	assert.match(
		eve[1].json[0].error,
		/^The server did not find what was asked for \(404\).*Check the record ID/,
	);
	// "+1 555 0199" as the CRM stores it: in E.164 (the sandbox, EspoCRM 8 and later) or as written (EspoCRM 7.5).
	const stored = (phoneNumber) => String(phoneNumber).replace(/[^+0-9]/g, '');
	assert.equal(stored(eve[2].json[0].phoneNumber), '+15550199');

	// unknown sender: "nothing found", then the new lead, compact
	const carol = received('carol');
	assert.deepEqual(carol[0].json, [{ found: 0, message: 'No records match.' }]);
	assert.equal(carol[1].json[0].lastName, 'New');
	// every post came back simplified: no bookkeeping, no empty fields
	for (const sender of SENDERS) {
		const note = received(sender).find((r) => r.name === 'Post_to_stream').json[0];
		assert.equal(note.type, 'Post', `${sender}: the note`);
		for (const [key, value] of Object.entries(note)) {
			assert.ok(
				value !== null &&
					value !== '' &&
					!(typeof value === 'object' && Object.keys(value).length === 0),
				`${sender}: note.${key} is empty`,
			);
			assert.doesNotMatch(
				key,
				/^(deleted|createdById|createdByName|modifiedById)$/,
				`${sender}: note.${key} is bookkeeping`,
			);
		}
	}

	// what the CRM holds at the end: no contact created, one lead per unknown sender (Dan's not doubled), two tasks
	// each under its contact with its date, Eve's new number, one post on each sender's record
	for (const email of INBOX) {
		const known = Object.values(KNOWN).some((c) => c.emailAddress === email);
		assert.equal(contacts[email].length, known ? 1 : 0, `contacts with ${email}`);
		assert.equal(leads[email].length, known ? 0 : 1, `leads with ${email}`);
	}
	const tasks = (await Promise.all(TASKS.map((name) => crm.list('Task', { name })))).flat();
	assert.deepEqual(
		tasks.map((t) => [t.name, t.parentType, t.parentId, t.dateEndDate]).sort(),
		[
			[TASKS[0], 'Contact', id('bob'), '2026-12-03'],
			[TASKS[1], 'Contact', id('heidi'), '2026-12-10'],
		].sort(),
		'two tasks, each under its contact, with its date',
	);
	assert.equal(stored((await crm.get('Contact', id('eve'))).phoneNumber), '+15550199');
	const records = [
		...['alice', 'bob', 'eve', 'frank', 'heidi', 'ivan'].map((k) => ['Contact', id(k)]),
		...[
			EXISTING_LEAD.emailAddress,
			'carol.new@startup.example',
			'grace.new@navy.example',
			'judy.new@shop.example',
		].map((e) => ['Lead', leadId(e)]),
	];
	for (const [type, recordId] of records)
		assert.equal((await crm.posts(type, recordId)).length, 1, `posts on ${type} ${recordId}`);

	// the tool results the model received, in characters
	const figures = SENDERS.map((sender) => {
		const results = received(sender);
		return {
			sender,
			toolCalls: results.length,
			characters: results.reduce((sum, r) => sum + r.text.length, 0),
		};
	});
	const characters = figures.reduce((sum, f) => sum + f.characters, 0);
	console.log(
		`      06-inbox: characters the model received from the tools, per e-mail: ${figures.map((f) => `${f.sender} ${f.characters} (${f.toolCalls} calls)`).join(', ')}; ${characters} in all; ${TURNS} model turns`,
	);
	if (!sandbox) return;

	// on the sandbox, the requests the tools sent: none for the refused call, one failed 409 and one failed 404
	const statuses = sandbox.requests.map((r) => `${r.status} ${r.method} ${r.path}`);
	assert.equal(sandbox.find('POST', '/Task').length, 2, 'the refused call sent nothing');
	assert.equal(statuses.filter((s) => s.startsWith('409')).length, 1);
	assert.equal(statuses.filter((s) => s.startsWith('404')).length, 1);
	const requests = sandbox.requests.length;
	console.log(
		`      06-inbox: ${requests} requests to the CRM for 10 e-mails (${(requests / 10).toFixed(1)} each)`,
	);
};
module.exports.before = async ({ crm }) => {
	// a real EspoCRM keeps what earlier runs left: the senders' records and the tasks go first
	for (const email of INBOX) {
		for (const type of ['Contact', 'Lead'])
			for (const record of await crm.list(type, { emailAddress: email }))
				await crm.remove(type, record.id);
	}
	for (const name of TASKS)
		for (const task of await crm.list('Task', { name })) await crm.remove('Task', task.id);
	for (const contact of Object.values(KNOWN)) await crm.create('Contact', contact);
	await crm.create('Lead', EXISTING_LEAD);
};

/** Runs on a real EspoCRM too (test/agents/run.js with RMS_ESPOCRM). */
module.exports.anyCrm = true;

module.exports.script = Array.from({ length: TURNS }, () => policy);
