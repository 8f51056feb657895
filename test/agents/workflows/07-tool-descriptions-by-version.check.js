'use strict';
/**
 * What the model reads about a tool, for each node version as a workflow saved it (issue 45): a tool added now
 * (version 1.2) gives the generated description when its Tool Description is set automatically and the author's
 * words when set manually, and Simplify is on by default; tools saved with version 1.1 (without a toolDescription
 * stored, or with their own text) and with version 1 (an edited expression) give the model what they gave it, and
 * Simplify stays off by default for them.
 */
const { assertToolDefinitions } = require('../tool-definitions');

const ADA = { firstName: 'Ada', lastName: 'Agent', emailAddress: 'ada.agent@example.com' };
const GENERATED =
	'Find Contact records in the CRM by emailAddress equals (at most 5). Returns their fields, "found: 0" when none match, and how many matched in all when there are more.';
const email = { email: 'string' };

module.exports = (result, { model }, assert) => {
	assert.equal(
		model.overruns,
		0,
		'the model was asked more often than its script answers (or a turn failed)',
	);
	for (const request of model.requests) {
		assertToolDefinitions(
			model,
			request,
			{
				New_tool: { description: GENERATED, parameters: email },
				New_tool_with_own_words: {
					description: 'Find a contact by e-mail address. Use it first, before creating a lead.',
					parameters: email,
				},
				Saved_with_1_1: { description: GENERATED, parameters: email },
				Saved_with_1_1_own_words: {
					description: 'Contacts by e-mail (written in version 1.1).',
					parameters: email,
				},
				Saved_with_1_expression: {
					description: 'Contacts by e-mail, of type Contact.',
					parameters: email,
				},
			},
			assert,
		);
	}
	const results = model.toolResults(model.requests[model.requests.length - 1]);
	assert.deepEqual(
		results.map((r) => r.name),
		['New_tool', 'Saved_with_1_1'],
	);
	const [fromNew] = results[0].json;
	const [fromSaved] = results[1].json;
	// version 1.2: Simplify on by default (no bookkeeping, no empty fields); version 1.1: whole records, as before
	assert.equal(fromNew.emailAddress, ADA.emailAddress);
	assert.ok(
		!('deleted' in fromNew) && !('emailAddressData' in fromNew),
		`the new tool's record is simplified: ${Object.keys(fromNew)}`,
	);
	assert.equal(fromSaved.emailAddress, ADA.emailAddress);
	assert.equal(
		fromSaved.deleted,
		false,
		`the tool saved with 1.1 returns the whole record: ${Object.keys(fromSaved)}`,
	);
	assert.ok(JSON.stringify(fromNew).length < JSON.stringify(fromSaved).length * 0.7);
};

module.exports.before = ({ sandbox }) => {
	sandbox.store.create('Contact', ADA);
};

module.exports.script = [
	{
		toolCalls: [
			{ name: 'New_tool', args: { email: ADA.emailAddress } },
			{ name: 'Saved_with_1_1', args: { email: ADA.emailAddress } },
		],
	},
	{ text: 'Ada Agent is a contact.' },
];
