'use strict';
/**
 * The server's refusals and the model's own mistakes come back to the model as the tool's result, worded so that it
 * can act on them, and the workflow goes on: the model calls four tools at once and gets a 409 (Bob is already a
 * lead), a 404 (no contact with that ID) and two 403s (the API user may not read opportunities: a search, and a post
 * to an opportunity's stream, whose explanation Stream > Post adds after the request failed); it then updates the
 * existing lead whose ID the 409 named, first with fields that are not JSON (refused before any request), then right.
 */
const EXISTING_LEAD = {
	firstName: 'Bob',
	lastName: 'Quote',
	emailAddress: 'bob.quote@newcorp.example',
	status: 'New',
};
const MISSING_ID = '0000000000000dead';
const OPPORTUNITY_ID = '000000000000000ac';

module.exports = (result, { model, sandbox }, assert) => {
	assert.equal(
		model.overruns,
		0,
		'the model was asked more often than its script answers (or a turn failed)',
	);
	assert.equal(model.requests.length, 4);
	assert.equal(result.run.status, 'success');
	assert.deepEqual(result.items('AI Agent'), [
		{ output: 'Bob Quote was already a lead: I added his request to it.' },
	]);

	const lead = sandbox.store.list('Lead')[0];
	// the three calls of the first turn (the refused post reads its record, to tell a missing one from a role's refusal),
	// then the corrected update (the one with bad JSON sent nothing)
	assert.deepEqual(
		sandbox.requests.map((r) => `${r.status} ${r.method} ${r.path}`).sort(),
		[
			'409 POST /Lead',
			`404 PUT /Contact/${MISSING_ID}`,
			'403 GET /Opportunity',
			'403 POST /Note',
			`403 GET /Opportunity/${OPPORTUNITY_ID}`,
			`200 PUT /Lead/${lead.id}`,
		].sort(),
	);
	assert.deepEqual(sandbox.find('PUT', `/Lead/${lead.id}`)[0].body, {
		description: 'Wants a quote for 20 seats.',
	});
	assert.equal(sandbox.store.count('Lead'), 1, 'no second lead');
	assert.equal(sandbox.store.get('Lead', lead.id).description, 'Wants a quote for 20 seats.');

	// what the model read: each failure as the tool's result, with what happened and what to do
	const results = model.toolResults(model.requests[3]);
	const text = (name, n = 0) => results.filter((r) => r.name === name)[n].json[0].error;
	assert.deepEqual(
		results.map((r) => r.name),
		[
			'Create_lead',
			'Update_record',
			'Find_opportunity',
			'Post_to_stream',
			'Update_record',
			'Update_record',
		],
	);
	assert.equal(
		text('Create_lead'),
		`The server found possible duplicates and did not create the record (409): Bob Quote [${lead.id}]. Nothing was created. Do not create it again: use the existing record (ID ${lead.id}) instead, as it is (to post on it, link to it or add a task to it) or updated with the new details by its ID.`,
	);
	assert.match(
		text('Update_record'),
		/^The server did not find what was asked for \(404\).*Check the record ID and the entity type\.$/,
	);
	assert.match(
		text('Find_opportunity'),
		/^The server denied access \(403\)\. The API user's role does not allow this/,
	);
	assert.match(
		text('Post_to_stream'),
		/^The server denied access \(403\): No create access\. The API user's role does not allow this\. .*EspoCRM lets the API user post only to records it may read and whose stream its role allows \(Administration > Roles > Opportunity: Read and Stream\)\.$/,
	);
	assert.match(text('Update_record', 1), /^The parameter "JSON" is not valid JSON \(item 0\)\. \S/);
	assert.equal(results[5].json[0].id, lead.id);

	// n8n's execution data: the failed tool runs carry their error, the workflow succeeded
	assert.ok(result.runData['Create lead'][0].error, 'the Create lead run has its error');
	assert.equal(result.runData['Update record'].length, 3);
};

module.exports.before = ({ sandbox }) => {
	sandbox.store.create('Lead', EXISTING_LEAD);
	sandbox.store.create('Opportunity', {
		id: OPPORTUNITY_ID,
		name: 'Acme renewal',
		stage: 'Prospecting',
		amount: 1000,
	});
	sandbox.setRestrictedScopes(['Opportunity']);
};

module.exports.script = [
	{
		toolCalls: [
			{
				name: 'Create_lead',
				args: {
					firstName: 'Bob',
					lastName: 'Quote',
					email: 'bob.quote@newcorp.example',
					description: 'Wants a quote for 20 seats.',
				},
			},
			{
				name: 'Update_record',
				args: {
					entityType: 'Contact',
					recordId: MISSING_ID,
					fields: JSON.stringify({ phoneNumber: '+1 555 0100' }),
				},
			},
			{ name: 'Find_opportunity', args: { name: 'Acme renewal' } },
			{
				name: 'Post_to_stream',
				args: {
					recordType: 'Opportunity',
					recordId: OPPORTUNITY_ID,
					text: 'Bob Quote called about a quote for 20 seats.',
				},
			},
		],
	},
	// the duplicate's ID, read from the 409 as a model would; first sent with fields that are not JSON
	(request, model) => {
		const refusal = model.toolResults(request).find((r) => r.name === 'Create_lead').json[0].error;
		const id = /\[(\w+)\]/.exec(refusal)[1];
		return {
			toolCalls: [
				{
					name: 'Update_record',
					args: {
						entityType: 'Lead',
						recordId: id,
						fields: 'description: Wants a quote for 20 seats.',
					},
				},
			],
		};
	},
	(request, model) => {
		const refusal = model.toolResults(request).find((r) => r.name === 'Create_lead').json[0].error;
		const id = /\[(\w+)\]/.exec(refusal)[1];
		return {
			toolCalls: [
				{
					name: 'Update_record',
					args: {
						entityType: 'Lead',
						recordId: id,
						fields: JSON.stringify({ description: 'Wants a quote for 20 seats.' }),
					},
				},
			],
		};
	},
	{ text: 'Bob Quote was already a lead: I added his request to it.' },
];
