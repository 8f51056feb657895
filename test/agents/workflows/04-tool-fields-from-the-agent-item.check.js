'use strict';
/**
 * Manual Trigger → Set "Ticket" (chatInput, lastName: 'Ticket item', source: 'Web Site') → AI Agent with one tool,
 * "Create lead": first and last name from the model (`$fromAI`), and fields mapped as a user drags them in, which the
 * node reads without n8n's expression engine where it may (shared/item.ts; never in a tool):
 *   description  `{{ $json.lastName }}`                 a field named as one of the model's arguments
 *   source       `{{ $json.source }}`                   a field only the agent's item has
 *   addressCity  `{{ $('Ticket').item.json.lastName }}`  the agent's item by its node's name
 * In n8n 2.41.1 a tool's `$json` is the agent's item with the model's arguments laid over it: the node gives exactly
 * what the engine gives, so the description is the model's last name, the source the item's, and the item's own last
 * name is reached by the node's name (docs/ai-agents.md).
 */
module.exports = (result, { model, sandbox }, assert) => {
	assert.equal(
		model.overruns,
		0,
		'the model was asked more often than its script answers (or a turn failed)',
	);
	assert.deepEqual(result.items('AI Agent'), [{ output: 'Created a lead for Grace Hopper.' }]);
	assert.deepEqual(
		sandbox.requests.map((r) => `${r.status} ${r.method} ${r.path}`),
		['200 POST /Lead'],
	);
	assert.deepEqual(sandbox.requests[0].body, {
		firstName: 'Grace',
		lastName: 'Hopper',
		description: 'Hopper',
		source: 'Web Site',
		addressCity: 'Ticket item',
	});
	const [lead] = model.toolResults(model.requests[1])[0].json;
	assert.deepEqual(
		[lead.name, lead.source, lead.addressCity],
		['Grace Hopper', 'Web Site', 'Ticket item'],
	);
};

module.exports.before = () => {};

module.exports.script = [
	{ toolCalls: [{ name: 'Create_lead', args: { firstName: 'Grace', lastName: 'Hopper' } }] },
	{ text: 'Created a lead for Grace Hopper.' },
];
