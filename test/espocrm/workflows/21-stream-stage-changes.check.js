'use strict';
/**
 * Stream > Get Many of an Opportunity whose stage changed three times (issue 46), Note Types "Status Changed (Any
 * Version)": the three changes, newest first, on every version, although EspoCRM writes them as Status notes up to 9.1
 * (`data: {field, value, style}`) and as Update notes from 9.2 on (`data: {fields: [], attributes, value}`: 9.3 has no
 * Status type). "Status Changed" (Status notes), beside it, finds them up to 9.1 only. An Update note of an audited
 * field (the amount) is not a stage change. The before hook makes the deal and its changes as the API key's user.
 */
const { versionNumber } = require('../../sandbox/versions');

module.exports = async (result, espo, assert) => {
	const changes = result.items('Stage Changes');
	assert.deepEqual(
		changes.map((note) => note.data && note.data.value),
		['Negotiation', 'Proposal', 'Qualification'],
		'the stage changes, newest first',
	);
	const writesUpdateNotes = versionNumber(espo.version) >= versionNumber('9.2.0');
	assert.deepEqual(
		changes.map((note) => note.type),
		Array(3).fill(writesUpdateNotes ? 'Update' : 'Status'),
	);
	assert.ok(changes.every((note) => note.parentId === espo.state.dealId));

	const statusOnly = result.items('Status Notes').filter((item) => item.id);
	assert.equal(statusOnly.length, writesUpdateNotes ? 0 : 3, `"Status Changed" on ${espo.version}`);

	const [lookup] = espo
		.find('GET', `/Opportunity/${espo.state.dealId}/stream`)
		.filter((r) => decodeURIComponent(r.rawQuery).includes('[type]=or'));
	assert.ok(
		lookup,
		'the stream was asked for Status notes or Update notes with a value, in one where',
	);
	assert.match(decodeURIComponent(lookup.rawQuery), /\[attribute\]=data&.*\[value\]=%"value":%/);
};

module.exports.before = async (espo) => {
	const api = espo.client('apiKey');
	// EspoCRM 7.5 requires a probability on create through the API.
	const deal = await api.ok('POST', '/Opportunity', {
		name: 'EspoStageDeal21',
		amount: 10,
		probability: 10,
		closeDate: '2026-12-31',
		stage: 'Prospecting',
	});
	for (const stage of ['Qualification', 'Proposal', 'Negotiation'])
		await api.ok('PUT', `/Opportunity/${deal.id}`, { stage });
	await api.ok('PUT', `/Opportunity/${deal.id}`, { amount: 20 });
	espo.state.dealId = deal.id;
};
