'use strict';
/**
 * API key, standard dialect: lead conversion (POST /Lead/{id}/action/convert), "skip" on a converted lead, e-mail
 * with several recipients, upsert (create, then update), and a 404 under "Continue On Fail" (onError
 * continueRegularOutput) while the other items succeed.
 */
module.exports = (result, sandbox, assert) => {
	for (const r of sandbox.requests)
		assert.equal(r.headers['x-api-key'], 'sandbox-api-key', `${r.method} ${r.path}: X-Api-Key`);

	// lead conversion, standard form
	const [lead] = result.items('Create Lead');
	const converts = sandbox.find('POST', `/Lead/${lead.id}/action/convert`);
	assert.equal(converts.length, 1, 'converted once: the second Convert skipped the converted lead');
	assert.deepEqual(Object.keys(converts[0].body), ['records']);
	assert.deepEqual(converts[0].body.records.Opportunity, {
		name: 'E2E Guidance Computer',
		amount: 1000,
	});
	assert.deepEqual(converts[0].body.records.Contact, {
		emailAddress: 'margaret@example.com',
		firstName: 'Margaret',
		lastName: 'E2eKey-Hamilton',
	});
	const [converted] = result.items('Convert Lead');
	assert.equal(converted.status, 'Converted');
	const [again] = result.items('Convert Again');
	assert.equal(again.alreadyConverted, true);
	assert.equal(again.createdContactId, converted.createdContactId);
	assert.equal(
		sandbox.find('GET', `/Lead/${lead.id}`).length,
		2,
		'each Convert looked at the lead first',
	);

	// e-mail: commas become ';', linked to the new contact, no EspoCRM fields on a standard server
	const mails = sandbox.find('POST', '/Email');
	assert.equal(mails.length, 1);
	assert.deepEqual(mails[0].body, {
		to: 'margaret@example.com;nasa@example.com',
		subject: 'Welcome',
		body: '<p>Hello</p>',
		isHtml: true,
		parentType: 'Contact',
		parentId: converted.createdContactId,
	});
	assert.equal(result.items('Send Email')[0].status, 'Sent');
	assert.deepEqual(sandbox.outbox.find((m) => m.emailId === result.items('Send Email')[0].id).to, [
		'margaret@example.com',
		'nasa@example.com',
	]);

	// upsert: look up by e-mail, create; look up again, update
	const [up1] = result.items('Upsert Create');
	const [up2] = result.items('Upsert Update');
	assert.equal(up2.id, up1.id);
	assert.equal(up2.description, 'second upsert');
	const upsertPosts = sandbox
		.find('POST', '/Contact')
		.filter((r) => r.body && r.body.emailAddress === 'upsert.e2e@example.com');
	assert.equal(upsertPosts.length, 1);
	assert.deepEqual(
		sandbox.find('PUT', `/Contact/${up1.id}`).map((r) => r.body),
		[{ description: 'second upsert' }],
	);
	assert.equal(
		sandbox.store.list('Contact').filter((c) => c.emailAddress === 'upsert.e2e@example.com').length,
		1,
	);

	// continue on fail: three items, the middle one 404s, the others are returned
	const [target] = result.items('Create Target');
	const gets = sandbox.find('GET', /^\/Contact\/[^/]+$/);
	// the node sends the items' requests in parallel: compare without order
	assert.deepEqual(gets.map((r) => `${r.status} ${r.path}`).sort(), [
		`200 /Contact/${target.id}`,
		`200 /Contact/${target.id}`,
		'404 /Contact/0000000000000dead',
	]);
	assert.equal(gets.filter((r) => r.status === 404).length, 1);
	assert.equal(gets.filter((r) => r.status === 200).length, 2);
	const out = result.rawItems('Get With 404');
	assert.equal(out.length, 3);
	assert.equal(out[0].json.id, target.id);
	assert.equal(out[2].json.id, target.id);
	assert.match(String(out[1].json.error), /404/);
	assert.match(String(out[1].json.error), /0000000000000dead/);
	assert.deepEqual(
		out.map((i) => i.pairedItem),
		[{ item: 0 }, { item: 1 }, { item: 2 }],
	);
	assert.equal(result.error('Get With 404'), undefined, 'the node itself did not fail');
};
