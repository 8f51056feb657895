'use strict';
/*
 * The check of the workflows "relative operators on a date field in <time zone>": Opportunities whose closeDate is
 * yesterday, today and tomorrow of the workflow's time zone, then Today, In the Past, In the Future, In the Last 1
 * Day and In the Next 1 Day on closeDate (the form's conditions, and Where JSON) must answer by the days of that
 * zone. EspoCRM computes these operators on date fields in its own zone (UTC here), so they differ whenever the
 * zone's date is not UTC's: of Pacific/Kiritimati (UTC+14) and Pacific/Pago_Pago (UTC-11), one always differs.
 */
const { sent } = require('./helpers');

const DAY = 86_400_000;
/** The date `offset` days from now in a time zone without daylight saving time. */
const dayIn = (zone, offset, now = Date.now()) =>
	new Intl.DateTimeFormat('en-CA', {
		timeZone: zone,
		year: 'numeric',
		month: '2-digit',
		day: '2-digit',
	}).format(new Date(now + offset * DAY));

const OFFSETS = { 'D-1': -1, D0: 0, 'D+1': 1 };
const EXPECTED = {
	Today: ['D0'],
	'In the Past': ['D-1'],
	'In the Future': ['D+1'],
	'Last 1 Day': ['D-1', 'D0'],
	'Next 1 Day': ['D0', 'D+1'],
};

function dateFieldDaysCheck(zone, tag) {
	const prefix = `EspoDays-${tag}`;

	const check = async (result, espo, assert) => {
		const { days, utcDay } = espo.state;
		const label = (name) => name.slice(prefix.length + 1);
		for (const [node, expected] of Object.entries(EXPECTED)) {
			for (const mode of ['', ' (JSON)']) {
				const found = result
					.items(`${node}${mode}`)
					.map((item) => label(item.name))
					.sort();
				assert.deepEqual(
					found,
					[...expected].sort(),
					`${node}${mode} on closeDate in ${zone} (zone's today ${days.D0}, UTC's ${utcDay}) found [${found.join(', ')}]; requests:\n${sent(espo, 'GET', '/Opportunity')}`,
				);
			}
		}
	};

	check.before = async (espo) => {
		const now = Date.now();
		espo.state.days = Object.fromEntries(
			Object.entries(OFFSETS).map(([name, offset]) => [name, dayIn(zone, offset, now)]),
		);
		espo.state.utcDay = dayIn('UTC', 0, now);
		for (const [name, closeDate] of Object.entries(espo.state.days)) {
			await espo.api.ok('POST', '/Opportunity', {
				name: `${prefix} ${name}`,
				closeDate,
				amount: 100,
				probability: 10,
				stage: 'Prospecting',
			});
		}
	};
	return check;
}

module.exports = { dateFieldDaysCheck };
