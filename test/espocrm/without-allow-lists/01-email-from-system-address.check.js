'use strict';
/**
 * EspoCRM 9.3 set up without its allow-lists (ESPOCRM_ALLOW_LISTS=off): the group e-mail account that lets an API user
 * send from the system address cannot be saved (its SMTP server, the test's sink, is on 127.0.0.1), so EspoCRM refuses
 * the e-mail with 403 "Not allowed 'from' address."; the node's error names the setting, the value's form and where.
 *   before: as admin, the group e-mail account EspoCRM needs: refused, 403, EspoCRM's own reason naming
 *           emailServerAllowedAddressList and 127.0.0.1:<the sink's port>
 *   run:    Email > Send as the API key's user from crm@espocrm.test (Continue on fail): EspoCRM's 403, the node's message
 *           and description; no mail sent, no e-mail kept
 */

module.exports = async (result, espo, assert) => {
	assert.equal(espo.state.accountRefused.status, 403, 'EspoCRM refused the group e-mail account');
	assert.equal(
		espo.state.accountRefused.reason,
		`Host '127.0.0.1' is not allowed as it's internal. To allow, add \`127.0.0.1:${espo.smtpPort}\` to the config parameter \`emailServerAllowedAddressList\`.`,
	);

	const [sent] = result.rawItems('Send From System Address');
	assert.deepEqual(
		espo.find('POST', '/Email').map((r) => [r.status, r.reason]),
		[[403, "Not allowed 'from' address."]],
	);
	assert.equal(
		sent.json.error,
		'The server refused the sender address in "From" (403): Not allowed \'from\' address.',
	);
	const description = String(sent.error && sent.error.description);
	assert.match(description, /Group Email Accounts/);
	assert.match(description, /emailServerAllowedAddressList/);
	assert.match(description, /data\/config\.php/);
	assert.match(
		description,
		/'emailServerAllowedAddressList' => \['mail:25'\]/,
		'the value to add: the SMTP server as host:port',
	);
	assert.equal(espo.mail.length, 0, 'no mail left EspoCRM');
	const kept = await espo.api.list('Email', {
		where: [{ type: 'equals', attribute: 'name', value: 'Sent without the allow-lists' }],
	});
	assert.deepEqual(kept, [], 'no e-mail kept');
};

module.exports.before = async (espo) => {
	const refused = await espo.api.post('/InboundEmail', {
		name: 'System address, without the allow-list',
		emailAddress: espo.mailFrom.address,
		status: 'Active',
		useImap: false,
		useSmtp: true,
		smtpIsShared: true,
		smtpHost: '127.0.0.1',
		smtpPort: espo.smtpPort,
		smtpAuth: false,
		smtpSecurity: '',
	});
	espo.state.accountRefused = { status: refused.status, reason: refused.reason };
};
