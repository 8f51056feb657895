#!/usr/bin/env node
'use strict';
/*
 * npm run test:espocrm: the node tested with the real n8n against a real EspoCRM, the release given at run time
 * (ESPOCRM_TREE or ESPOCRM_ZIP: test/espocrm/rig/release.js). Without one it prints one line and exits 0.
 *
 *   1. PHP and MariaDB from Debian when missing (apt-get), EspoCRM installed once per version into a cache folder
 *      outside the repository (test/espocrm/rig/espocrm.js)
 *   2. EspoCRM started from its snapshot (fresh data), with PHP's built-in server and an SMTP sink; meanwhile
 *      Node 24 + n8n 2.41.1 (cached), npm run build
 *   3. the workflows of test/espocrm/workflows/ run as by npm run test:e2e (test/lib/e2e-runner.js), each checked
 *      by its <name>.check.js against what EspoCRM holds afterwards and the mail that arrived:
 *        module.exports = async (result, espo, assert) => { ... };  module.exports.before = async (espo) => { ... };
 *      and alongside them three phases: the webhook trigger in `n8n start`, delivered to by EspoCRM's own job
 *      (test/espocrm/webhook/), the forms' lists and the credential test through the engine harness
 *      (test/espocrm/forms/), and the node as an AI agent's tools handling an inbox (test/espocrm/agents/)
 *   4. everything it started stopped again (also on failure, Ctrl-C and SIGTERM)
 *
 * Options: --no-build; E2E_ONLY=<substring>; E2E_KEEP=1 (keep .e2e/espocrm/user-folder);
 *          ESPOCRM_TREE=<release tree> or ESPOCRM_ZIP=<release zip>; RMS_ESPOCRM_CACHE=<folder> (default: beside the
 *          n8n cache); ESPOCRM_PHP=<php program> or ESPOCRM_PHP_CHROOT=<root file system> (test/espocrm/rig/php.js);
 *          ESPOCRM_WORKFLOWS=<folder> (workflows from another folder than test/espocrm/workflows);
 *          ESPOCRM_ALLOW_LISTS=off (9.3.2 and later: EspoCRM without webhookAllowedAddressList and
 *          emailServerAllowedAddressList; runs test/espocrm/without-allow-lists/ instead, which proves the node's
 *          messages).
 * See test/espocrm/README.md.
 */

const fs = require('fs');
const path = require('path');
const env = require('../lib/n8n-env');
const { runE2E, exitWith, secs } = require('../lib/e2e-runner');
const espocrm = require('./rig/espocrm');
const { credentialFiles } = require('./credentials');
const formsPhase = require('./forms/phase');
const agentsPhase = require('./agents/phase');
const webhookPhase = require('./webhook/webhook-trigger');
const webhookRefusedPhase = require('./without-allow-lists/webhook-refused');
const { versionNumber } = require('../sandbox/versions');

const REPO = env.REPO_ROOT;
/** Without EspoCRM 9.3's allow-lists only what proves the node's messages about them runs. */
const WITHOUT_ALLOW_LISTS = espocrm.allowListsOff();
const WORKFLOW_DIR = process.env.ESPOCRM_WORKFLOWS
	? path.resolve(process.env.ESPOCRM_WORKFLOWS)
	: path.join(REPO, 'test', 'espocrm', WITHOUT_ALLOW_LISTS ? 'without-allow-lists' : 'workflows');
const WORK_DIR = path.join(REPO, '.e2e', 'espocrm');

/** The request lines the router writes to PHP's server log ("RMS <status> <ms> <method> <uri> | <reason>"). */
function readRequests(logFile, fromByte = 0) {
	let text = '';
	try {
		const fd = fs.openSync(logFile, 'r');
		const size = fs.fstatSync(fd).size;
		const buf = Buffer.alloc(Math.max(0, size - fromByte));
		fs.readSync(fd, buf, 0, buf.length, fromByte);
		fs.closeSync(fd);
		text = buf.toString('utf8');
	} catch {}
	const out = [];
	for (const line of text.split('\n')) {
		const m = /^RMS (\d+) (\d+) (\S+) (\S+)(?: \| (.*))?$/.exec(line);
		if (!m) continue;
		const [pathPart, rawQuery = ''] = m[4].split(/\?(.*)/s);
		out.push({
			status: Number(m[1]),
			ms: Number(m[2]),
			method: m[3],
			url: m[4],
			path: pathPart.replace(/^\/api\/v1/, ''),
			rawQuery,
			reason: m[5] || '',
		});
	}
	return out;
}

/** A failure report's lines for what EspoCRM served: a heading, then the first 40 requests with status and reason. */
function servedLines(heading, requests) {
	return [
		`      ${heading}:`,
		...requests
			.slice(0, 40)
			.map(
				(q) =>
					`        ${q.status} ${q.method} ${q.url}${q.reason ? `  (${q.reason.slice(0, 200)})` : ''}`,
			),
	];
}

function logSize(file) {
	try {
		return fs.statSync(file).size;
	} catch {
		return 0;
	}
}

function stats(values) {
	if (!values.length) return 'no requests';
	const s = [...values].sort((a, b) => a - b);
	const q = (f) => s[Math.min(s.length - 1, Math.floor(f * s.length))];
	const mean = s.reduce((a, b) => a + b, 0) / s.length;
	return `${s.length} requests, mean ${mean.toFixed(0)} ms, median ${q(0.5)} ms, p95 ${q(0.95)} ms, max ${s[s.length - 1]} ms`;
}

/** EspoCRM as a check sees it (see test/espocrm/README.md). */
function espoView(espo, from, wf) {
	const requests = readRequests(espo.logs.php, from.log);
	return {
		origin: espo.origin,
		apiBase: espo.apiBase,
		/** admin (Basic): what EspoCRM holds */
		api: espo.admin,
		admin: espo.admin,
		client: espo.client,
		keys: espo.keys,
		mailFrom: espo.mailFrom,
		/** mail the SMTP sink received during this execution (in `before`: since the before hook started) */
		mail: espo.smtp.messages.slice(from.mail),
		get allMail() {
			return espo.smtp.messages;
		},
		/** requests EspoCRM served during this execution: {status, ms, method, path (after /api/v1), rawQuery, url, reason} */
		requests,
		find: (method, p) =>
			requests.filter(
				(r) =>
					(!method || r.method === method) &&
					(!p || (p instanceof RegExp ? p.test(r.path) : r.path === p)),
			),
		runJob: espo.runJob,
		/** query(sql): rows of EspoCRM's database; tree: the EspoCRM folder (data/upload/<attachment id> holds files) */
		query: espo.query,
		tree: espo.tree,
		/** the EspoCRM version ('9.1.7'), and the names of tables that differ between versions */
		version: espo.version,
		/** the SMTP sink's port (127.0.0.1) */
		smtpPort: espo.smtp.port,
		tables: espo.tables,
		state: wf.state,
		sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
	};
}

async function main() {
	const t0 = Date.now();
	const log = espocrm.defaultLog;

	// before anything long starts: no release given, nothing to run
	const release = await espocrm.releaseOrSkip('npm run test:espocrm', { log });
	if (!release) return 0;
	if (WITHOUT_ALLOW_LISTS && versionNumber(release.version) < versionNumber('9.3.2')) {
		console.log(
			`npm run test:espocrm: skipped, ESPOCRM_ALLOW_LISTS=off tests EspoCRM 9.3.2 and later (webhookAllowedAddressList), not ${release.version}`,
		);
		return 0;
	}

	// EspoCRM (install once, then a fresh start) while n8n is checked and the package built. The webhook phase's n8n
	// gets its port now: EspoCRM 9.3 calls a webhook URL on 127.0.0.1 only when its host:port is listed.
	const webhookPort = await env.freePort();
	let espo;
	const espoReady = espocrm
		.startEspo({
			instance: 'test',
			fresh: true,
			log,
			release,
			webhookAddresses: [`127.0.0.1:${webhookPort}`],
		})
		.then((e) => (espo = e));
	espoReady.catch(() => {}); // awaited in start()

	let stopping = false;
	const onSignal = async (signal) => {
		if (stopping) return;
		stopping = true;
		log(`${signal}: stopping what this run started`);
		killDirectChildren();
		if (espo) await espo.stop().catch(() => {});
		process.exit(130);
	};
	process.on('SIGINT', onSignal);
	process.on('SIGTERM', onSignal);
	process.on('SIGHUP', onSignal);
	process.on('exit', killDirectChildren);

	const mark = () => ({ mail: espo.smtp.messages.length, log: logSize(espo.logs.php) });
	let first;
	try {
		return await runE2E({
			workflowDir: WORKFLOW_DIR,
			workDir: WORK_DIR,
			saveOutput: true,
			isolatePackage: true,
			importOnly: [webhookPhase.workflow],
			phases: WITHOUT_ALLOW_LISTS
				? [phaseWithEspo(webhookRefusedPhase, () => espo)]
				: [
						// After the workflows: its search tests create Contacts, which workflows such as 01 and 17 count.
						{
							name: formsPhase.name,
							afterWorkflows: true,
							run: ({ log: say }) =>
								formsPhase.run({
									origin: espo.origin,
									credentials: credentialFiles(espo.origin, espo.keys),
									log: say,
								}),
						},
						// After the workflows and the forms phase: its inbox creates Contacts and Leads, which the forms phase's
						// searches compare between two reads.
						{
							name: agentsPhase.name,
							afterWorkflows: true,
							after: formsPhase.name,
							run: ({ log: say }) =>
								agentsPhase.run({
									origin: espo.origin,
									credentials: credentialFiles(espo.origin, espo.keys),
									log: say,
								}),
						},
						phaseWithEspo(webhookPhase, () => espo, { port: webhookPort }),
					],
			async start() {
				await espoReady;
				first = mark();
				return {
					credentials: credentialFiles(espo.origin, espo.keys),
					mark,
					beforeArg: (wf) => espoView(espo, mark(), wf),
					checkArg: (from, wf) => espoView(espo, from, wf),
					failureLines(from) {
						const reqs = readRequests(espo.logs.php, from.log);
						const mail = espo.smtp.messages.slice(from.mail);
						return [
							...servedLines(`EspoCRM served ${reqs.length} request(s)`, reqs),
							`      the SMTP sink received ${mail.length} message(s)${mail.length ? ':' : ''}`,
							...mail.map((m) => `        to ${m.to.join(', ')}: ${m.subject}`),
						];
					},
					close: async () => {
						const reqs = readRequests(espo.logs.php, first.log);
						espo.requestStats = stats(reqs.map((r) => r.ms));
						await espo.stop();
					},
				};
			},
			afterRun: ({ results }) => {
				const ran = results.filter((r) => r.executeMs);
				console.log(
					[
						'',
						`EspoCRM ${espo.version}: ${espo.origin} (restore ${espo.timings.restore} ms, start ${espo.timings.start} ms)`,
						`EspoCRM request time: ${espo.requestStats}`,
						`n8n execute: ${ran.length ? `mean ${secs(ran.reduce((a, r) => a + r.executeMs, 0) / ran.length)} per workflow` : '-'}`,
					].join('\n'),
				);
			},
		});
	} finally {
		if (!espo) await espoReady.then((e) => e.stop()).catch(() => {});
		else await espo.stop();
		log(`done in ${secs(Date.now() - t0)}`);
	}
}

/**
 * A phase of n8n start against EspoCRM (the webhook trigger): its context gets `espo` with `mark()` and
 * `requests(from)`, what EspoCRM served since a mark, `servedLines(from)`, the same for a failure report, and `port`, n8n's port when EspoCRM must know it beforehand.
 */
function phaseWithEspo(phase, espoOf, { port } = {}) {
	return {
		name: phase.name,
		run: (ctx) => {
			const espo = espoOf();
			return phase.run({
				...ctx,
				port,
				espo: {
					...espo,
					mark: () => logSize(espo.logs.php),
					requests: (from) => readRequests(espo.logs.php, from),
					servedLines: (from) =>
						servedLines(
							'EspoCRM served (all users, since the phase started)',
							readRequests(espo.logs.php, from),
						),
				},
			});
		},
	};
}

/** Processes this one started directly (n8n execute, still running after a signal): their process groups. */
function killDirectChildren() {
	let entries = [];
	try {
		entries = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d));
	} catch {
		return;
	}
	for (const d of entries) {
		try {
			const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
			const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
			if (ppid !== process.pid) continue;
			const pid = Number(d);
			try {
				process.kill(-pid, 'SIGKILL');
			} catch {
				process.kill(pid, 'SIGKILL');
			}
		} catch {}
	}
}

exitWith(main(), 'test:espocrm');
