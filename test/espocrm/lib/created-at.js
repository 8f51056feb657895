'use strict';
/*
 * The check of the three workflows "createdAt filters in <time zone>": three Contacts made a little more than a
 * second apart (createdAt has whole seconds), then filters "after"/"before" a createdAt value copied from a record
 * (EspoCRM's own form, UTC) and "today" must find the right ones whatever the workflow's time zone.
 */
const { sent } = require('./helpers');

function createdAtCheck(tag) {
	const lastName = `EspoTz-${tag}`;
	const names = ['First', 'Second', 'Third'];

	const check = async (result, espo, assert) => {
		const ids = espo.state.ids;
		const byName = (items) => items.map((i) => i.firstName).join(', ');
		const first = result.items('Find First');
		assert.equal(first.length, 1, `Find First: ${byName(first)}`);
		assert.equal(first[0].id, ids.First);

		const after = result.items('Created After First');
		assert.deepEqual(
			after.map((i) => i.firstName),
			['Second', 'Third'],
			`createdAt after ${first[0].createdAt} (the first record's own value) found [${byName(after)}]; requests:\n${sent(espo, 'GET', '/Contact')}`,
		);

		const last = result.items('Find Last');
		assert.equal(last.length, 1);
		const before = result.items('Created Before Last');
		assert.deepEqual(
			before.map((i) => i.firstName),
			['First', 'Second'],
			`createdAt before ${last[0].createdAt} found [${byName(before)}]; requests:\n${sent(espo, 'GET', '/Contact')}`,
		);

		const today = result.items('Created Today');
		assert.deepEqual(
			today.map((i) => i.firstName).sort(),
			['First', 'Second', 'Third'],
			`createdAt today found [${byName(today)}]`,
		);
	};

	check.before = async (espo) => {
		espo.state.ids = {};
		for (const [i, firstName] of names.entries()) {
			if (i) await espo.sleep(1100);
			const r = await espo.api.ok('POST', '/Contact', { firstName, lastName });
			espo.state.ids[firstName] = r.id;
		}
	};
	return check;
}

module.exports = { createdAtCheck };
