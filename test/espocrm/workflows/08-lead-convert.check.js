'use strict';
// Lead convert into Account, Contact and Opportunity (POST /Lead/action/convert), then "skip" and "error" on the
// converted lead: EspoCRM would convert it again, the node must look first.
module.exports = async (result, espo, assert) => {
	const [lead] = result.items('Create Lead');
	const [converted] = result.items('Convert Lead');
	assert.equal(converted.id, lead.id);
	assert.equal(converted.status, 'Converted');
	for (const k of ['createdAccountId', 'createdContactId', 'createdOpportunityId'])
		assert.match(String(converted[k]), /^[0-9a-f]{17}$/, k);

	const account = await espo.api.ok('GET', `/Account/${converted.createdAccountId}`);
	assert.equal(account.name, 'EspoLead Apollo Software');
	assert.equal(account.website, 'https://apollo.example.com');
	const contact = await espo.api.ok('GET', `/Contact/${converted.createdContactId}`);
	assert.equal(contact.lastName, 'EspoLead-Hamilton');
	assert.equal(contact.emailAddress, 'margaret@espocrm.test');
	assert.equal(contact.accountId, account.id, 'EspoCRM links the Contact to the new Account');
	const opportunity = await espo.api.ok('GET', `/Opportunity/${converted.createdOpportunityId}`);
	assert.equal(opportunity.amount, 1000);
	assert.equal(opportunity.closeDate, '2030-12-31');
	assert.equal(opportunity.accountId, account.id);

	const skipped = result.items('Convert Again Skip');
	assert.equal(skipped.length, 1);
	assert.equal(
		skipped[0].createdAccountId,
		account.id,
		'skip returns the records of the earlier conversion',
	);

	const refused = result.rawItems('Convert Again Error');
	assert.equal(refused.length, 1);
	const refusal = refused[0].error || refused[0].json.error;
	assert.ok(
		refusal,
		`"error" on a converted lead fails the item: ${JSON.stringify(refused[0].json).slice(0, 300)}`,
	);

	// converted once only
	assert.equal(espo.find('POST', '/Lead/action/convert').length, 1);
	const accounts = await espo.api.list('Account', {
		where: [{ type: 'equals', attribute: 'name', value: 'EspoLead Apollo Software' }],
	});
	assert.equal(accounts.length, 1, 'no second Account');
	const held = await espo.api.ok('GET', `/Lead/${lead.id}`);
	assert.equal(held.status, 'Converted');
};
