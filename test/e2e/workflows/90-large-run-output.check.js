'use strict';
/**
 * The harness itself: a run whose printed form is far larger than what `n8n execute` reliably prints. n8n 2.41.1's
 * `execute` writes the run as indented JSON to stdout and exits before a pipe that is not drained fast enough has
 * taken all of it: the output ends cut off (exit code 0), at 1.3 MB for a 5 MiB attachment on a loaded machine
 * (test:espocrm), and the runner that parsed it failed with "Unexpected end of JSON input". Large enough, it is cut
 * on any machine: here Return All reads 6,000 contacts with 6 KB descriptions (about 45 MB printed; seen cut at
 * 1.3 MB). The runner reads the execution n8n saved in its database instead (test/lib/saved-executions.js).
 */
const COUNT = 6000;

module.exports = (result, sandbox, assert) => {
	try {
		const items = result.items('Get All Large Contacts');
		assert.equal(
			items.length,
			COUNT,
			`${items.length} contacts in the saved run, expected ${COUNT}`,
		);
		assert.equal(new Set(items.map((c) => c.id)).size, COUNT, 'every contact once');
		assert.ok(
			items.every((c) => c.description === sandbox.state.description),
			'each with its whole description',
		);
		const pages = sandbox.find('GET', '/Contact');
		assert.ok(pages.length >= COUNT / 200, `${pages.length} pages read`);
		assert.ok(pages.every((p) => p.status === 200));
	} finally {
		// the workflows after this one share the sandbox: they must not meet 6,000 contacts
		for (const id of sandbox.state.ids) sandbox.store.delete('Contact', id);
	}
};

module.exports.before = (sandbox) => {
	sandbox.state.description = 'Large run output. '.repeat(340).slice(0, 6000);
	sandbox.state.ids = [];
	for (let i = 0; i < COUNT; i++) {
		const lastName = `E2e-Large-Output-${String(i).padStart(4, '0')}`;
		sandbox.state.ids.push(
			sandbox.store.create('Contact', {
				firstName: 'Large',
				lastName,
				description: sandbox.state.description,
			}).id,
		);
	}
};
