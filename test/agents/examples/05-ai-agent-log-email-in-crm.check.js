'use strict';
/**
 * examples/05-ai-agent-log-email-in-crm.json (EspoCRM, API key): a sample e-mail → the AI Agent with the scripted
 * model and three tools of this node with their own descriptions: Find contact (Get Many on the e-mail address,
 * Fields to Return and Simplify), Create lead, Post to stream (Stream > Post). The sender is not a contact: the model
 * finds nobody, creates a lead and posts a summary to the lead's stream, with the ID the lead's creation returned.
 */
const { assertToolDefinitions } = require('../tool-definitions');

const SUMMARY =
	'**Quote request**: 20 compiler licences, delivered before March.\nFrom the e-mail "Compiler licences".';

module.exports = (result, { model, sandbox }, assert) => {
	assert.equal(
		model.overruns,
		0,
		'the model was asked more often than its script answers (or a turn failed)',
	);
	assert.equal(model.requests.length, 4);
	assert.deepEqual(result.items('CRM assistant'), [
		{
			output:
				'Grace Hopper was not in the CRM: I created a lead and posted the request to its stream.',
		},
	]);

	// the prompt the agent built from the e-mail, and the tools with the descriptions the example gives them
	const user = model.requests[0].body.messages.find((m) => m.role === 'user');
	assert.match(
		user.content,
		/^An e-mail came in\.\nFrom: Grace Hopper <grace\.hopper@navy\.example>\nSubject: Compiler licences\n\nHello, we would like 20 licences/,
	);
	assertToolDefinitions(
		model,
		model.requests[0],
		{
			Find_contact: {
				description: /^Find a contact by e-mail address\./,
				parameters: { email: 'string' },
			},
			Create_lead: {
				description: /^Create a lead for a person who is not a contact yet\./,
				parameters: { firstName: 'string', lastName: 'string', email: 'string', request: 'string' },
			},
			Post_to_stream: {
				description: /^Post a note to the stream of a contact or lead/,
				parameters: { recordType: 'string', recordId: 'string', text: 'string' },
			},
		},
		assert,
	);

	// the requests the tools sent
	// the lead the example created (the sandbox holds the demo data of npm run dev too)
	const [lead, ...others] = sandbox.store
		.list('Lead')
		.filter((l) => l.emailAddress === 'grace.hopper@navy.example');
	assert.ok(lead && !others.length, "one lead with the sender's address");
	assert.deepEqual(
		sandbox.requests.map((r) => `${r.status} ${r.method} ${r.path}`),
		['200 GET /Contact', '200 POST /Lead', '200 POST /Note'],
	);
	const [find, create, post] = sandbox.requests;
	assert.deepEqual(find.query.where, [
		{ type: 'equals', attribute: 'emailAddress', value: 'grace.hopper@navy.example' },
	]);
	assert.equal(find.query.select, 'firstName,lastName,emailAddress,accountName');
	assert.deepEqual(create.body, {
		firstName: 'Grace',
		lastName: 'Hopper',
		emailAddress: 'grace.hopper@navy.example',
		description: 'Wants 20 compiler licences delivered before March and asks for a quote.',
	});
	assert.deepEqual(post.body, {
		type: 'Post',
		parentType: 'Lead',
		parentId: lead.id,
		post: SUMMARY,
	});

	// what went back to the model
	const results = model.toolResults(model.requests[3]);
	assert.deepEqual(
		results.map((r) => r.name),
		['Find_contact', 'Create_lead', 'Post_to_stream'],
	);
	assert.deepEqual(results[0].json, [{ found: 0, message: 'No records match.' }]);
	assert.equal(results[1].json[0].id, lead.id);
	assert.ok(!('emailAddressData' in results[1].json[0]), 'Create lead is simplified');
	assert.equal(results[2].json[0].type, 'Post');
	assert.equal(results[2].json[0].parentId, lead.id);
	assert.equal(results[2].json[0].post, SUMMARY);
};

// "Sandbox as EspoCRM (API key)", as the example's sticky note says for npm run dev
module.exports.credential = 'devEspo';

// the runner has seeded the demo data: the sender must not be in it (else the model's script would not fit)
module.exports.before = ({ sandbox }) => {
	const known = ['Contact', 'Lead'].flatMap((type) =>
		sandbox.store
			.list(type)
			.filter((r) => String(r.emailAddress).toLowerCase() === 'grace.hopper@navy.example'),
	);
	if (known.length)
		throw new Error(
			`grace.hopper@navy.example exists before the example ran: ${known.map((r) => r.id).join(', ')}`,
		);
};

module.exports.script = [
	{ toolCalls: [{ name: 'Find_contact', args: { email: 'grace.hopper@navy.example' } }] },
	{
		toolCalls: [
			{
				name: 'Create_lead',
				args: {
					firstName: 'Grace',
					lastName: 'Hopper',
					email: 'grace.hopper@navy.example',
					request: 'Wants 20 compiler licences delivered before March and asks for a quote.',
				},
			},
		],
	},
	(request, model) => {
		const [lead] = model.lastToolResult(request).json;
		return {
			toolCalls: [
				{ name: 'Post_to_stream', args: { recordType: 'Lead', recordId: lead.id, text: SUMMARY } },
			],
		};
	},
	{
		text: 'Grace Hopper was not in the CRM: I created a lead and posted the request to its stream.',
	},
];
