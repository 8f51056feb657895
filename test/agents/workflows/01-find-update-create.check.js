'use strict';
/**
 * Manual Trigger → AI Agent with the scripted model and three tools of this node: "Find contact by email" (Get Many,
 * a condition on emailAddress from the model, Simplify on), "Create lead" (Create, four fields from the model) and
 * "Update record" (Update, entity type, ID and the fields as JSON from the model). The model finds Ada, passes the
 * ID it read from the tool's result to Update, finds nobody for Bob and creates a lead for him.
 */
const { assertToolDefinitions } = require('../tool-definitions');

const ADA = {
	firstName: 'Ada',
	lastName: 'Agent',
	emailAddress: 'ada.agent@example.com',
	phoneNumber: '+44 20 0000 0000',
};

module.exports = (result, { model, sandbox }, assert) => {
	assert.equal(
		model.overruns,
		0,
		'the model was asked more often than its script answers (or a turn failed)',
	);
	assert.equal(model.requests.length, 5);
	assert.deepEqual(result.items('AI Agent'), [
		{ output: "Updated Ada Agent's phone number and created a lead for Bob Quote." },
	]);

	// what n8n told the model about the tools, on every request
	for (const request of model.requests) {
		assertToolDefinitions(
			model,
			request,
			{
				Find_contact_by_email: {
					description:
						'Find Contact records in the CRM by emailAddress equals (at most 5). Returns their fields, "found: 0" when none match, and how many matched in all when there are more.',
					parameters: { email: 'string' },
				},
				Create_lead: {
					description:
						'Create one Lead record in the CRM. Fields it sets: firstName, lastName, emailAddress, description. A value outside the allowed values of a field is refused with the list of them. Returns the new record with its ID; when it looks like an existing record, nothing is created and the error names the existing record and its ID.',
					parameters: {
						firstName: 'string',
						lastName: 'string',
						email: 'string',
						description: 'string',
					},
				},
				Update_record: {
					description:
						'Update one record (of the type in the arguments) in the CRM, by its ID. A value outside the allowed values of a field is refused with the list of them. Returns the record as changed.',
					parameters: { entityType: 'string', recordId: 'string', fields: 'string' },
				},
			},
			assert,
		);
	}

	// the requests the tools sent, in the model's order
	const ada = sandbox.store.list('Contact').find((c) => c.emailAddress === ADA.emailAddress);
	assert.deepEqual(
		sandbox.requests.map((r) => `${r.status} ${r.method} ${r.path}`),
		['200 GET /Contact', `200 PUT /Contact/${ada.id}`, '200 GET /Contact', '200 POST /Lead'],
	);
	const [findAda, update, findBob, create] = sandbox.requests;
	assert.deepEqual(findAda.query.where, [
		{ type: 'equals', attribute: 'emailAddress', value: 'ada.agent@example.com' },
	]);
	assert.equal(findAda.query.maxSize, '5');
	assert.deepEqual(update.body, { phoneNumber: '+44 20 7946 0000' });
	assert.deepEqual(findBob.query.where, [
		{ type: 'equals', attribute: 'emailAddress', value: 'bob.quote@newcorp.example' },
	]);
	assert.deepEqual(create.body, {
		firstName: 'Bob',
		lastName: 'Quote',
		emailAddress: 'bob.quote@newcorp.example',
		description: 'Asked for a quote for 20 seats.',
	});
	assert.equal(sandbox.store.get('Contact', ada.id).phoneNumber, '+442079460000');

	// what went back to the model: the simplified contact (no empty fields, no bookkeeping), the updated record,
	// "nothing found" rather than an empty text, the created lead
	const results = model.toolResults(model.requests[4]);
	assert.deepEqual(
		results.map((r) => r.name),
		['Find_contact_by_email', 'Update_record', 'Find_contact_by_email', 'Create_lead'],
	);
	const [found] = results[0].json;
	assert.equal(results[0].json.length, 1);
	assert.equal(found.id, ada.id);
	assert.equal(found.name, 'Ada Agent');
	assert.equal(found.emailAddress, ADA.emailAddress);
	for (const key of Object.keys(found)) {
		assert.notEqual(found[key], null, `simplified: ${key} is null`);
		assert.doesNotMatch(
			key,
			/IsOptedOut$|IsInvalid$|^deleted$|^createdBy|^modifiedBy/,
			`simplified: ${key} is bookkeeping`,
		);
	}
	assert.ok(
		Object.keys(found).length <= 12,
		`the simplified contact has ${Object.keys(found).length} fields: ${Object.keys(found)}`,
	);
	// Update record has Simplify off: the whole record, as the node has always returned it
	assert.equal(results[1].json[0].id, ada.id);
	assert.equal(results[1].json[0].phoneNumber, '+442079460000');
	assert.deepEqual(results[1].json[0].phoneNumberData, [
		{ phoneNumber: '+442079460000', primary: true, type: 'Office', optOut: false, invalid: false },
	]);
	assert.equal(results[1].json[0].middleName, null);
	assert.deepEqual(results[2].json, [{ found: 0, message: 'No records match.' }]);
	const [lead] = results[3].json;
	assert.equal(lead.lastName, 'Quote');
	assert.equal(lead.id, sandbox.store.list('Lead')[0].id);
	assert.ok(
		!('emailAddressData' in lead) && !('deleted' in lead),
		`Create lead has Simplify on: ${Object.keys(lead)}`,
	);

	// each tool's run in n8n's execution data (the editor shows it under the tool node)
	assert.equal(result.runData['Find contact by email'].length, 2);
	assert.equal(result.runData['Create lead'].length, 1);
	assert.equal(result.runData['Update record'].length, 1);
};

module.exports.before = ({ sandbox }) => {
	sandbox.store.create('Contact', ADA);
};

module.exports.script = [
	{ toolCalls: [{ name: 'Find_contact_by_email', args: { email: 'ada.agent@example.com' } }] },
	// the ID comes from what the tool returned, as a model would take it
	(request, model) => {
		const [contact] = model.lastToolResult(request).json;
		return {
			toolCalls: [
				{
					name: 'Update_record',
					args: {
						entityType: 'Contact',
						recordId: contact.id,
						fields: JSON.stringify({ phoneNumber: '+44 20 7946 0000' }),
					},
				},
			],
		};
	},
	{ toolCalls: [{ name: 'Find_contact_by_email', args: { email: 'bob.quote@newcorp.example' } }] },
	{
		toolCalls: [
			{
				name: 'Create_lead',
				args: {
					firstName: 'Bob',
					lastName: 'Quote',
					email: 'bob.quote@newcorp.example',
					description: 'Asked for a quote for 20 seats.',
				},
			},
		],
	},
	{ text: "Updated Ada Agent's phone number and created a lead for Bob Quote." },
];
