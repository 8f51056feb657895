'use strict';
/**
 * The read operations as tools, each with Simplify: Find account (Get Many, Fields to Return), Opportunities of an
 * account (Get Many Related with a fixed filter and sort, the account ID and the Limit from the model: a `number`
 * in the tool's schema), Read opportunity (Get, routed by n8n: Simplify in its postReceive).
 */
const { assertToolDefinitions } = require('../tool-definitions');

module.exports = (result, { model, sandbox, state }, assert) => {
	assert.equal(
		model.overruns,
		0,
		'the model was asked more often than its script answers (or a turn failed)',
	);
	assert.deepEqual(result.items('AI Agent'), [
		{
			output:
				'Analytical Engines has 2 open opportunities; the biggest is Difference Engine (5000).',
		},
	]);
	assertToolDefinitions(
		model,
		model.requests[0],
		{
			Find_account: {
				description:
					'Find Account records in the CRM by name contains (at most 3). Returns their ID and name, website, "found: 0" when none match, and how many matched in all when there are more.',
				parameters: { name: 'string' },
			},
			Opportunities_of_an_account: {
				description:
					'List the records of its relationship "opportunities", linked to one Account record (at most the number in the arguments). Returns their ID and name, stage, amount.',
				parameters: { accountId: 'string', limit: 'number' },
			},
			Read_opportunity: {
				description: 'Get one Opportunity record from the CRM by its ID.',
				parameters: { opportunityId: 'string' },
			},
		},
		assert,
	);

	const { account, big } = state;
	assert.deepEqual(
		sandbox.requests.map((r) => `${r.status} ${r.method} ${r.path}`),
		[
			'200 GET /Account',
			`200 GET /Account/${account.id}/opportunities`,
			`200 GET /Opportunity/${big.id}`,
		],
	);
	const related = sandbox.requests[1];
	assert.equal(related.query.maxSize, '2', 'the Limit the model gave');
	assert.equal(related.query.select, 'name,stage,amount');
	assert.deepEqual(related.query.where, [
		{ type: 'notIn', attribute: 'stage', value: ['Closed Won', 'Closed Lost'] },
	]);

	const results = model.toolResults(model.requests[3]);
	assert.deepEqual(
		results.map((r) => r.name),
		['Find_account', 'Opportunities_of_an_account', 'Read_opportunity'],
	);
	const [found] = results[0].json;
	assert.equal(found.id, account.id);
	assert.equal(found.name, 'Analytical Engines');
	assert.deepEqual(
		results[1].json.map((o) => [o.name, o.stage, o.amount]),
		[
			['Difference Engine', 'Proposal', 5000],
			['Analytical Engine', 'Prospecting', 1000],
		],
	);
	const opportunity = results[2].json[0];
	assert.equal(opportunity.id, big.id);
	assert.equal(opportunity.description, 'Tables of polynomials, printed.');
	for (const [key, value] of Object.entries(opportunity)) {
		assert.ok(
			value !== null && value !== '' && !(Array.isArray(value) && value.length === 0),
			`simplified Get: ${key} is empty`,
		);
		assert.doesNotMatch(
			key,
			/^deleted$|^followers|^isFollowed$|^createdBy|^modifiedBy/,
			`simplified Get: ${key} is bookkeeping`,
		);
	}
};

module.exports.before = ({ sandbox, state }) => {
	const store = sandbox.store;
	const account = store.create('Account', {
		name: 'Analytical Engines',
		website: 'https://engines.example',
	});
	store.create('Account', { name: 'Babbage Tea Room' });
	const big = store.create('Opportunity', {
		name: 'Difference Engine',
		stage: 'Proposal',
		amount: 5000,
		accountId: account.id,
		description: 'Tables of polynomials, printed.',
	});
	store.create('Opportunity', {
		name: 'Analytical Engine',
		stage: 'Prospecting',
		amount: 1000,
		accountId: account.id,
	});
	store.create('Opportunity', {
		name: 'Old order',
		stage: 'Closed Won',
		amount: 9000,
		accountId: account.id,
	});
	Object.assign(state, { account, big });
};

module.exports.script = [
	{ toolCalls: [{ name: 'Find_account', args: { name: 'Analytical' } }] },
	(request, model) => {
		const [account] = model.lastToolResult(request).json;
		return {
			toolCalls: [
				{ name: 'Opportunities_of_an_account', args: { accountId: account.id, limit: 2 } },
			],
		};
	},
	(request, model) => {
		const [biggest] = model.lastToolResult(request).json;
		return { toolCalls: [{ name: 'Read_opportunity', args: { opportunityId: biggest.id } }] };
	},
	{ text: 'Analytical Engines has 2 open opportunities; the biggest is Difference Engine (5000).' },
];
