'use strict';
const { versionNumber } = require('../../sandbox/versions');
// E-mail send with Basic (admin): EspoCRM sends through its SMTP settings to the test's SMTP sink.
module.exports = async (result, espo, assert) => {
	const [contact] = result.items('Create Contact');
	const [sentHtml] = result.items('Send Email');
	const [sentPlain] = result.items('Send Plain');

	assert.equal(espo.mail.length, 2, `the SMTP sink received ${espo.mail.length} message(s)`);
	const html = espo.mail.find((m) => m.subject === 'Welcome aboard, Mary');
	assert.ok(html, `subjects: ${espo.mail.map((m) => m.subject).join(' | ')}`);
	assert.deepEqual(
		[...html.to].sort(),
		['bcc@espocrm.test', 'cc@espocrm.test', 'mary.jackson@espocrm.test', 'nasa@espocrm.test'],
		'every address of to, cc and bcc receives it',
	);
	assert.match(html.headers.to, /mary\.jackson@espocrm\.test/);
	assert.match(html.headers.to, /nasa@espocrm\.test/);
	assert.match(html.headers.cc || '', /cc@espocrm\.test/);
	assert.doesNotMatch(JSON.stringify(html.headers), /bcc@espocrm\.test/, 'Bcc not in the headers');
	assert.match(html.headers.from, /crm@espocrm\.test/);
	assert.match(html.text, /Hello <b>Mary<\/b>/);
	assert.match(html.headers['content-type'] || '', /multipart|text\/html/);

	const plain = espo.mail.find((m) => m.subject === 'Plain text from n8n');
	assert.ok(plain);
	assert.deepEqual(plain.to, ['plain@espocrm.test']);
	// EspoCRM 9.1 makes the text of a plain-text e-mail with its HTML-to-text converter (Entities/Email::getBodyPlain →
	// Tools/Email/Util::stripHtml), which joins the lines, its own web UI's e-mails too (README, Compatibility); the
	// record keeps them (below). 7.5, 8.x and 9.3 send the text as written (9.3.4's getBodyPlain returns the body of a
	// plain-text e-mail as it is; 9.0 and 9.2 not tried).
	const joinsLines =
		versionNumber(espo.version) >= versionNumber('9.0.0') &&
		versionNumber(espo.version) < versionNumber('9.3.0');
	assert.match(plain.text, joinsLines ? /Line one Line two/ : /Line one\r?\nLine two/);

	// what EspoCRM holds
	for (const item of [sentHtml, sentPlain]) {
		const email = await espo.api.ok('GET', `/Email/${item.id}`);
		assert.equal(email.status, 'Sent', `Email ${item.id}`);
		assert.ok(email.dateSent);
	}
	const heldPlain = await espo.api.ok('GET', `/Email/${sentPlain.id}`);
	assert.match(
		heldPlain.body,
		/Line one\r?\nLine two/,
		'EspoCRM keeps the lines of the plain text',
	);
	const held = await espo.api.ok('GET', `/Email/${sentHtml.id}`);
	assert.equal(held.parentType, 'Contact');
	assert.equal(held.parentId, contact.id);
	assert.equal(espo.find('POST', '/Email').length, 2);
};
