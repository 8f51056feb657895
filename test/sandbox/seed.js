// @ts-check
'use strict';

const { formatDateTime, formatDate } = require('./util');

/**
 * Demo data for `npm run sandbox` and `startSandbox({ seed: true })`. Deterministic (no randomness) so that
 * screenshots and manual checks repeat; creation times are spread over the past 120 days so that date filters
 * have something to find.
 */

const COMPANIES = [
	'Acme Corporation',
	'Globex',
	'Initech',
	'Umbrella Holdings',
	'Stark Industries',
	'Wayne Enterprises',
	'Wonka Industries',
	'Tyrell Corporation',
	'Cyberdyne Systems',
	'Soylent Foods',
	'Hooli',
	'Pied Piper',
	'Vandelay Industries',
	'Dunder Mifflin',
	'Oscorp',
	'Massive Dynamic',
	'Aperture Science',
	'Black Mesa',
	'Monarch Solutions',
	'Nakatomi Trading',
];
const FIRST = [
	'Anna',
	'Ben',
	'Clara',
	'David',
	'Eva',
	'Felix',
	'Greta',
	'Hugo',
	'Ida',
	'Jonas',
	'Karla',
	'Leo',
	'Mia',
	'Noah',
	'Olga',
	'Paul',
	'Quinn',
	'Rosa',
	'Sam',
	'Tina',
	'Uwe',
	'Vera',
	'Will',
	'Xena',
	'Yusuf',
];
const LAST = [
	'Schmidt',
	'Miller',
	'Garcia',
	'Nguyen',
	'Rossi',
	'Kowalski',
	'Dubois',
	'Svensson',
	'Okafor',
	'Tanaka',
];
const INDUSTRIES = [
	'Software',
	'Finance',
	'Retail',
	'Manufacturing',
	'Healthcare',
	'Consulting',
	'Education',
	'Travel',
];
const TYPES = ['Customer', 'Partner', 'Investor', 'Reseller'];
const LEAD_STATUSES = ['New', 'Assigned', 'In Process', 'Recycled', 'Dead', 'New', 'In Process'];
const STAGES = [
	'Prospecting',
	'Qualification',
	'Proposal',
	'Negotiation',
	'Closed Won',
	'Closed Lost',
];

/** @param {string} s */
const slug = (s) => s.toLowerCase().replace(/[^a-z0-9]+/g, '');

/**
 * @param {import('./store').Store} store
 * @returns {{ accounts: number, contacts: number, leads: number, opportunities: number, emails: number, projects: number,
 *   users: number, meetings: number, calls: number, tasks: number }}
 */
function seedDemoData(store) {
	const t0 = Date.now();
	const day = 86_400_000;
	/** @param {number} i @param {number} n */
	const at = (i, n) =>
		formatDateTime(t0 - Math.round(((n - i) / n) * 120 * day) - (i % 7) * 3_600_000);

	const team = store.create('Team', { name: 'Sales', createdAt: at(0, 10) });
	const support = store.create('Team', { name: 'Support', createdAt: at(1, 10) });
	const users = [
		store.create('User', {
			userName: 'jsmith',
			firstName: 'Jane',
			lastName: 'Smith',
			type: 'regular',
			emailAddress: 'jane.smith@example.com',
			teamsIds: [team.id],
			createdAt: at(0, 10),
		}),
		store.create('User', {
			userName: 'bwayne',
			firstName: 'Bruce',
			lastName: 'Wayne',
			type: 'regular',
			emailAddress: 'bruce.wayne@example.com',
			teamsIds: [support.id],
			createdAt: at(1, 10),
		}),
	];

	const accounts = COMPANIES.map((name, i) =>
		store.create('Account', {
			name,
			emailAddress: `info@${slug(name)}.example.com`,
			phoneNumber: `+1 555 01${String(i).padStart(2, '0')}`,
			website: `https://${slug(name)}.example.com`,
			industry: INDUSTRIES[i % INDUSTRIES.length],
			type: TYPES[i % TYPES.length],
			billingAddressCity: ['Berlin', 'New York', 'London', 'Paris', 'Tokyo'][i % 5],
			assignedUserId: users[i % 2].id,
			teamsIds: [i % 2 ? support.id : team.id],
			createdAt: at(i, COMPANIES.length),
		}),
	);

	let contacts = 0;
	for (let i = 0; i < 50; i++) {
		const first = FIRST[i % FIRST.length];
		const last = LAST[(i * 3) % LAST.length];
		const account = accounts[i % accounts.length];
		store.create('Contact', {
			firstName: first,
			lastName: i >= 25 ? `${last}-${Math.floor(i / 25)}` : last,
			title: ['CEO', 'CTO', 'Buyer', 'Engineer', 'Assistant'][i % 5],
			emailAddress: `${slug(first)}.${slug(last)}${i}@${slug(account.name)}.example.com`,
			phoneNumber: `+49 30 5550 ${String(1000 + i)}`,
			accountId: account.id,
			doNotCall: i % 9 === 0,
			assignedUserId: users[i % 2].id,
			createdAt: at(i, 50),
		});
		contacts++;
	}

	for (let i = 0; i < 15; i++) {
		store.create('Lead', {
			firstName: FIRST[(i + 7) % FIRST.length],
			lastName: `${LAST[(i + 4) % LAST.length]}son`,
			status: LEAD_STATUSES[i % LEAD_STATUSES.length],
			source: ['Web Site', 'Call', 'Email', 'Partner', 'Campaign'][i % 5],
			accountName: `Prospect ${i + 1} Ltd`,
			emailAddress: `lead${i + 1}@prospect${i + 1}.example.com`,
			phoneNumber: `+44 20 7946 0${String(100 + i)}`,
			industry: INDUSTRIES[(i + 2) % INDUSTRIES.length],
			createdAt: at(i, 15),
		});
	}

	const opportunities = [];
	for (let i = 0; i < 10; i++) {
		const account = accounts[(i * 2) % accounts.length];
		opportunities.push(
			store.create('Opportunity', {
				name: `${account.name} – ${['Licence', 'Renewal', 'Consulting', 'Upgrade', 'Support'][i % 5]} ${2025 + (i % 2)}`,
				amount: 5000 + i * 2500,
				amountCurrency: 'USD',
				stage: STAGES[i % STAGES.length],
				probability: [10, 20, 50, 80, 100, 0][i % 6],
				closeDate: formatDate(t0 + (i - 4) * 15 * day),
				accountId: account.id,
				assignedUserId: users[i % 2].id,
				createdAt: at(i, 10),
			}),
		);
	}

	const firstContact = store.list('Contact')[0];
	store.create('Email', {
		name: 'Welcome to the sandbox',
		from: 'admin@sandbox.test',
		to: firstContact.emailAddress,
		body: '<p>Hello!</p>',
		isHtml: true,
		status: 'Sent',
		dateSent: at(40, 50),
		parentType: 'Contact',
		parentId: firstContact.id,
		createdAt: at(40, 50),
	});
	store.create('Email', {
		name: 'Quote follow-up',
		from: 'admin@sandbox.test',
		to: accounts[0].emailAddress,
		body: 'Any news about our quote?',
		isHtml: false,
		status: 'Archived',
		parentType: 'Account',
		parentId: accounts[0].id,
		createdAt: at(45, 50),
	});

	const projects = [
		'Website relaunch',
		'ERP migration',
		'Data warehouse',
		'Mobile app',
		'Security audit',
	];
	projects.forEach((name, i) =>
		store.create('CProject', {
			name,
			status: ['Active', 'Draft', 'Completed', 'On Hold', 'Active'][i],
			labels: [['Client'], ['Internal', 'Urgent'], ['Research'], [], ['Client', 'Maintenance']][i],
			budget: 10000 * (i + 1),
			hours: 12.5 * (i + 1),
			priority: (i % 5) + 1,
			startDate: formatDate(t0 - (30 - i * 10) * day),
			deadline: formatDateTime(t0 + (i + 1) * 7 * day),
			isBillable: i % 2 === 0,
			accountId: accounts[i].id,
			createdAt: at(i, 5),
			cCategory: ['Customer', 'Internal', 'Partner', 'Customer', 'Internal'][i],
			cTags: [['web'], ['erp', 'sap'], [], ['mobile'], ['security']][i],
			cChecklist: i % 2 ? ['Scope agreed'] : ['Scope agreed', 'Budget approved'],
			cLinks: [`https://wiki.example.com/projects/${i + 1}`],
			cSettings: { notify: i % 2 === 0 },
			cSteps: [{ step: 'plan' }, { step: 'build' }],
			cWebsite: `https://project${i + 1}.example.com`,
		}),
	);

	// Activities: meetings (one all-day), calls and tasks, around today, assigned to the demo users.
	const hour = 3_600_000;
	const at9 = (/** @type {number} */ offsetDays) =>
		formatDateTime(Math.floor((t0 + offsetDays * day) / day) * day + 9 * hour);
	const meetings = [
		{
			name: 'Kick-off',
			dateStart: at9(-7),
			dateEnd: formatDateTime(Date.parse(`${at9(-7).replace(' ', 'T')}Z`) + hour),
			status: 'Held',
		},
		{
			name: 'Quarterly review',
			dateStart: at9(2),
			dateEnd: formatDateTime(Date.parse(`${at9(2).replace(' ', 'T')}Z`) + 2 * hour),
		},
		{
			name: 'Offsite',
			dateStartDate: formatDate(t0 + 14 * day),
			dateEndDate: formatDate(t0 + 15 * day),
			isAllDay: true,
		},
	].map((m, i) =>
		store.create('Meeting', {
			...m,
			parentType: 'Account',
			parentId: accounts[i].id,
			assignedUserId: users[i % 2].id,
			createdAt: at(i, 3),
		}),
	);
	const calls = [-2, 1].map((d, i) =>
		store.create('Call', {
			name: `Call with ${accounts[i + 3].name}`,
			dateStart: at9(d),
			dateEnd: formatDateTime(Date.parse(`${at9(d).replace(' ', 'T')}Z`) + 15 * 60_000),
			status: d < 0 ? 'Held' : 'Planned',
			direction: i ? 'Inbound' : 'Outbound',
			parentType: 'Account',
			parentId: accounts[i + 3].id,
			assignedUserId: users[i % 2].id,
			createdAt: at(i, 2),
		}),
	);
	const tasks = [
		{
			name: 'Send proposal',
			status: 'Started',
			priority: 'High',
			dateEndDate: formatDate(t0 + 3 * day),
		},
		{ name: 'Prepare contract', status: 'Not Started', priority: 'Normal', dateEnd: at9(5) },
		{ name: 'Collect feedback', status: 'Completed', priority: 'Low' },
	].map((task, i) =>
		store.create('Task', {
			...task,
			parentType: 'Account',
			parentId: accounts[i + 5].id,
			assignedUserId: users[i % 2].id,
			createdAt: at(i, 3),
		}),
	);

	return {
		accounts: accounts.length,
		contacts,
		leads: 15,
		opportunities: opportunities.length,
		emails: 2,
		projects: projects.length,
		users: users.length,
		meetings: meetings.length,
		calls: calls.length,
		tasks: tasks.length,
	};
}

module.exports = { seedDemoData };
