#!/usr/bin/env node
'use strict';
/*
 * npm run dev: the n8n editor with this package loaded, against the sandbox server. One command from a fresh clone.
 *
 *   - npm ci when node_modules is missing
 *   - installs or reuses Node 24 + n8n 2.41.1 (test/lib/n8n-env.js, cached outside the repository)
 *   - npm run build
 *   - the sandbox server with demo data (node test/sandbox/cli.js, port 8787 or the next free one)
 *   - a persistent n8n user folder in the cache (this repository linked in as a community package),
 *     a credential pointing at the sandbox (API key) and an example workflow
 *   - n8n start on http://localhost:5678 (or the next free port), owner account set up
 *   - Ctrl-C stops n8n and the sandbox
 *
 * Env: N8N_PORT (5678), SANDBOX_PORT (8787), RMS_DEV_FOLDER (n8n user folder), RMS_DEV_VERBOSE=1 (n8n log to the terminal),
 *      RMS_DEV_RESET=1 (start with a new user folder).
 * Flags: --check  start, verify through the REST API, stop (used to test this script); --no-build;
 *        --no-watch  build once instead of rebuilding on every change (see livePackage below);
 *        --espocrm  a real EspoCRM (the release in ESPOCRM_TREE or ESPOCRM_ZIP) instead of the sandbox (espocrmDev below, test/espocrm/README.md).
 */

const fs = require('fs');
const net = require('net');
const path = require('path');
const { spawn } = require('child_process');
const env = require('../test/lib/n8n-env');
const n8nServer = require('../test/lib/n8n-server');

const REPO = env.REPO_ROOT;
const OWNER = {
	email: 'dev@example.com',
	firstName: 'Dev',
	lastName: 'User',
	password: 'Sandbox-Dev-1',
};
const { DEV_CREDENTIALS, devCredentialFiles } = require('../test/lib/dev-credentials');

const CREDENTIAL = DEV_CREDENTIALS.standard;
// the same sandbox as an EspoCRM server: the editor's lists (entity types, fields, relationships) come from its metadata
const ESPO_CREDENTIAL = DEV_CREDENTIALS.espocrm;
const WORKFLOW_FILE = path.join(__dirname, 'dev-workflow.json');
const NODE_TYPE = `${env.PACKAGE_NAME}.recordManagementService`;

const log = (m) => console.log(`[dev] ${m}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** n8n's REST API; a probe that hangs gives up after 10 s, so that waiting for n8n notices an exit in time. */
const request = (method, url, options = {}) =>
	n8nServer.request(method, url, { timeoutMs: 10000, ...options });
/** A call to n8n once it is up: made again while n8n answers 503 "Database is not ready!" (see n8nServer.n8nRequest). */
const n8nCall = (method, url, options = {}) =>
	n8nServer.n8nRequest(method, url, { timeoutMs: 10000, ...options });

function portFree(port) {
	return new Promise((resolve) => {
		const srv = net.createServer();
		srv.once('error', () => resolve(false));
		srv.listen({ port, host: '0.0.0.0', exclusive: true }, () => srv.close(() => resolve(true)));
	});
}

async function pickPort(wanted) {
	for (let p = wanted; p < wanted + 50; p++) if (await portFree(p)) return p;
	throw new Error(`no free port from ${wanted} to ${wanted + 49}`);
}

const children = [];
/** Starts a long-running child in its own process group (so stopping it stops its children too). */
function startChild(name, cmd, args, opts) {
	const child = spawn(cmd, args, { ...opts, detached: true });
	child.name = name;
	child.exited = new Promise((r) => child.on('exit', (code, sig) => r(code === null ? sig : code)));
	children.push(child);
	return child;
}

let stopping;
function stopAll(reason) {
	if (stopping) return stopping;
	stopping = (async () => {
		if (reason) log(reason);
		for (const c of children) {
			if (c.exitCode !== null || c.signalCode !== null) continue;
			try {
				process.kill(-c.pid, 'SIGTERM');
			} catch {}
		}
		for (const c of children) {
			const done = await Promise.race([c.exited.then(() => true), sleep(15000).then(() => false)]);
			if (!done) log(`${c.name} did not stop within 15 s: killing it`);
			// kill the whole group either way: n8n's task runners live in it
			try {
				process.kill(-c.pid, done ? 'SIGTERM' : 'SIGKILL');
			} catch {}
		}
		log('stopped n8n and the sandbox');
	})();
	return stopping;
}

async function waitFor(what, fn, { timeoutMs = 180000, child } = {}) {
	const t = Date.now();
	for (;;) {
		if (child && (child.exitCode !== null || child.signalCode !== null))
			throw new Error(`${child.name} exited while waiting for ${what}`);
		try {
			const v = await fn();
			if (v) return v;
		} catch {}
		if (Date.now() - t > timeoutMs) throw new Error(`timed out waiting for ${what}`);
		await sleep(500);
	}
}

function tail(file, n = 40) {
	try {
		return fs.readFileSync(file, 'utf8').split('\n').slice(-n).join('\n');
	} catch {
		return '';
	}
}

const watching = !process.argv.includes('--no-watch') && !process.argv.includes('--check');

/**
 * The package as the dev n8n loads it: a real folder in n8n's community nodes folder, holding package.json and a copy
 * of dist/. n8n's hot reload (N8N_DEV_RELOAD) watches that folder and reloads the package when a file in it changes;
 * it follows no symlink, and keeps loaded modules by their real path, so a link to the repository would not reload.
 */
function livePackage(userFolder) {
	env.prepareUserFolder(userFolder);
	const folder = path.join(userFolder, '.n8n', 'nodes', 'node_modules', env.PACKAGE_NAME);
	fs.rmSync(folder, { recursive: true, force: true });
	fs.mkdirSync(folder, { recursive: true });
	fs.copyFileSync(path.join(REPO, 'package.json'), path.join(folder, 'package.json'));
	const sync = () =>
		fs.cpSync(path.join(REPO, 'dist'), path.join(folder, 'dist'), { recursive: true, force: true });
	sync();
	return { folder, sync };
}

/**
 * Builds the package and, unless --no-watch, keeps rebuilding it: TypeScript in watch mode, and the icons and codex
 * files copied again when one changes. `ready` resolves after the first complete build. Each later build is copied
 * into the live package (set by `into`), which n8n then reloads: a change shows in the editor within seconds.
 */
async function buildAndWatch() {
	if (!watching) {
		if (!process.argv.includes('--no-build')) {
			log('npm run build');
			await env.runNpm(['run', 'build']);
		}
		return { into() {} };
	}
	let target;
	let first;
	const firstBuild = new Promise((resolve, reject) => (first = { resolve, reject }));
	const copyAssets = () =>
		env.run(
			process.execPath,
			[path.join(REPO, 'node_modules', 'gulp', 'bin', 'gulp.js'), 'build:icons'],
			{ cwd: REPO, label: 'copy icons' },
		);
	log('building, then rebuilding on every change (tsc --watch)');
	fs.rmSync(path.join(REPO, 'dist'), { recursive: true, force: true });
	const tsc = startChild(
		'tsc --watch',
		process.execPath,
		[
			path.join(REPO, 'node_modules', 'typescript', 'bin', 'tsc'),
			'-p',
			'tsconfig.build.json',
			'--watch',
			'--preserveWatchOutput',
		],
		{
			cwd: REPO,
			stdio: ['ignore', 'pipe', 'pipe'],
		},
	);
	let output = '';
	tsc.stdout.on('data', async (chunk) => {
		output += chunk.toString();
		const done = /Found (\d+) errors?\. Watching for file changes/.exec(output);
		if (!done) return;
		const report = output;
		output = '';
		if (done[1] !== '0') {
			console.log(
				`[dev] the build failed; the editor keeps the last good one:\n${report
					.split('\n')
					.filter((l) => /error TS/.test(l))
					.join('\n')}`,
			);
			return first.reject(new Error('the first build failed'));
		}
		if (!target) {
			await copyAssets();
			return first.resolve();
		}
		target.sync();
		log('rebuilt: n8n reloads the node (reopen the node in the editor to see the change)');
	});
	fs.watch(path.join(REPO, 'nodes'), { recursive: true }, async (_event, file) => {
		if (!target || !/\.(svg|png|json)$/.test(String(file))) return;
		await copyAssets().catch(() => {});
		target.sync();
		log(`${file} copied: n8n reloads the node`);
	});
	await firstBuild;
	return {
		into(live) {
			target = live;
		},
	};
}

async function main() {
	const checkMode = process.argv.includes('--check');
	const t0 = Date.now();

	if (!fs.existsSync(path.join(REPO, 'node_modules', '.bin', 'tsc'))) {
		log('node_modules is missing: npm ci (about a minute)');
		await env.runNpm(['ci', '--no-audit', '--no-fund']);
	}
	const p = await env.ensureN8n();
	const build = await buildAndWatch();

	// persistent user folder
	const userFolder = process.env.RMS_DEV_FOLDER
		? path.resolve(process.env.RMS_DEV_FOLDER)
		: path.join(p.root, 'dev-user-folder');
	if (process.env.RMS_DEV_RESET) fs.rmSync(userFolder, { recursive: true, force: true });
	fs.mkdirSync(userFolder, { recursive: true });
	build.into(livePackage(userFolder));
	const stateFile = path.join(userFolder, 'rms-dev-state.json');
	// what was imported into n8n's database (forgotten when the database is gone)
	const hasDb = fs.existsSync(path.join(userFolder, '.n8n', 'database.sqlite'));
	const state =
		hasDb && fs.existsSync(stateFile) ? JSON.parse(fs.readFileSync(stateFile, 'utf8')) : {};
	const saveState = () => fs.writeFileSync(stateFile, JSON.stringify(state, null, 2));

	const n8nPort = await pickPort(Number(process.env.N8N_PORT || 5678));
	const sandboxPort = await pickPort(Number(process.env.SANDBOX_PORT || 8787));

	process.on('SIGINT', () => stopAll('Ctrl-C: stopping').then(() => process.exit(0)));
	process.on('SIGTERM', () => stopAll('SIGTERM: stopping').then(() => process.exit(0)));
	process.on('SIGHUP', () => stopAll().then(() => process.exit(0)));

	// sandbox
	const sandboxLog = path.join(userFolder, 'sandbox.log');
	const sandboxOut = fs.openSync(sandboxLog, 'a');
	const sandbox = startChild(
		'sandbox',
		process.execPath,
		[path.join(REPO, 'test', 'sandbox', 'cli.js')],
		{
			cwd: REPO,
			env: { ...process.env, SANDBOX_PORT: String(sandboxPort) },
			stdio: ['ignore', sandboxOut, sandboxOut],
		},
	);
	const sandboxOrigin = `http://127.0.0.1:${sandboxPort}`;
	await waitFor(
		'the sandbox',
		async () => (await request('GET', `${sandboxOrigin}/api/v1/Contact`)).status > 0,
		{
			timeoutMs: 20000,
			child: sandbox,
		},
	).catch((e) => {
		throw new Error(`${e.message}\n${tail(sandboxLog)}`);
	});
	log(`sandbox running at ${sandboxOrigin}/api/v1 (log: ${sandboxLog})`);

	const n8nEnv = env.n8nEnv(userFolder, {
		N8N_PORT: String(n8nPort),
		N8N_HOST: 'localhost',
		N8N_PROTOCOL: 'http',
		N8N_EDITOR_BASE_URL: `http://localhost:${n8nPort}`,
		N8N_LOG_OUTPUT: 'console',
		N8N_RUNNERS_BROKER_PORT: String(await pickPort(n8nPort + 1)),
		N8N_DEV_RELOAD: String(watching),
	});

	// credential (again when the sandbox port changed) and example workflow (once: the user may edit it)
	if (state.sandboxOrigin !== sandboxOrigin || state.credentials !== 2) {
		const file = path.join(userFolder, 'rms-dev-credentials.json');
		fs.writeFileSync(file, JSON.stringify(devCredentialFiles(sandboxOrigin)));
		log(
			`importing the credentials "${CREDENTIAL.name}" and "${ESPO_CREDENTIAL.name}" (${sandboxOrigin})`,
		);
		const r = await env.runN8n(p, n8nEnv, ['import:credentials', `--input=${file}`]);
		if (r.code !== 0) throw new Error(`import:credentials failed:\n${r.stdout}\n${r.stderr}`);
		state.sandboxOrigin = sandboxOrigin;
		state.credentials = 2;
		saveState();
	}
	const wf = JSON.parse(fs.readFileSync(WORKFLOW_FILE, 'utf8'));
	if (state.workflowImported !== wf.id) {
		log(`importing the example workflow "${wf.name}"`);
		const file = path.join(userFolder, 'rms-dev-workflow.json');
		fs.writeFileSync(file, JSON.stringify(wf));
		const r = await env.runN8n(p, n8nEnv, ['import:workflow', `--input=${file}`]);
		if (r.code !== 0) throw new Error(`import:workflow failed:\n${r.stdout}\n${r.stderr}`);
		state.workflowImported = wf.id;
		saveState();
	}

	// n8n editor
	const n8nLog = path.join(userFolder, 'n8n.log');
	fs.writeFileSync(n8nLog, '');
	const verbose = !!process.env.RMS_DEV_VERBOSE;
	const n8nOut = fs.openSync(n8nLog, 'a');
	log(`starting n8n ${env.N8N_VERSION} (log: ${n8nLog})`);
	const n8n = startChild('n8n', p.nodeBin, [p.n8nBin, 'start'], {
		cwd: userFolder,
		env: n8nEnv,
		stdio: ['ignore', verbose ? 'inherit' : n8nOut, verbose ? 'inherit' : n8nOut],
	});
	const base = `http://localhost:${n8nPort}`;
	n8n.exited.then((code) => {
		if (!stopping && !n8n.stopping) {
			console.error(
				`[dev] n8n exited unexpectedly (${code}). Last lines of ${n8nLog}:\n${tail(n8nLog)}`,
			);
			stopAll().then(() => process.exit(1));
		}
	});
	sandbox.exited.then((code) => {
		if (!stopping) {
			console.error(`[dev] the sandbox exited unexpectedly (${code}):\n${tail(sandboxLog)}`);
			stopAll().then(() => process.exit(1));
		}
	});
	await waitFor(
		'n8n /healthz',
		async () => (await request('GET', `${base}/healthz`)).status === 200,
		{ child: n8n, timeoutMs: 240000 },
	);
	// /healthz answers before the REST API is mounted (until then every path gets the editor's HTML)
	await waitFor('n8n REST API', async () => (await request('GET', `${base}/rest/settings`)).json, {
		child: n8n,
	});

	// owner account
	const settings = (await n8nCall('GET', `${base}/rest/settings`)).json;
	const needsSetup =
		settings &&
		settings.data &&
		settings.data.userManagement &&
		settings.data.userManagement.showSetupOnFirstLoad;
	if (needsSetup) {
		const r = await n8nCall('POST', `${base}/rest/owner/setup`, { body: OWNER });
		if (r.status !== 200) throw new Error(`owner setup failed: ${r.status} ${r.text}`);
		log(`owner account created: ${OWNER.email}`);
	}
	const login = await n8nCall('POST', `${base}/rest/login`, {
		body: { emailOrLdapLoginId: OWNER.email, password: OWNER.password },
	});
	let loggedIn = login.status === 200;
	const cookie = (login.headers['set-cookie'] || []).map((c) => c.split(';')[0]).join('; ');

	const startMs = Date.now() - t0;
	const SANDBOX = require('../test/sandbox').SANDBOX_CREDENTIALS;
	console.log(
		[
			'',
			'==========================================================================',
			` n8n editor:   ${base}   (ready after ${(startMs / 1000).toFixed(0)} s)`,
			` log in with:  ${OWNER.email}  /  ${OWNER.password}`,
			loggedIn
				? ''
				: `   (could not log in with it: ${login.status} ${login.text.slice(0, 200)} — the owner was set up earlier with another password? RMS_DEV_RESET=1 npm run dev)`,
			` workflow:     ${base}/workflow/${wf.id}   "${wf.name}"`,
			` credentials:  "${CREDENTIAL.name}" -> ${sandboxOrigin} (API key ${SANDBOX.apiKey})`,
			`               "${ESPO_CREDENTIAL.name}": same server, EspoCRM dialect (lists of types and fields from its metadata)`,
			` secrets:      to set up other credentials for the sandbox (Base URL ${sandboxOrigin}):`,
			`               API key ${SANDBOX.apiKey} | Basic ${SANDBOX.username} / ${SANDBOX.password}`,
			`               HMAC (EspoCRM) key ${SANDBOX.hmacApiKey}, secret ${SANDBOX.hmacSecret}`,
			`               OAuth 2.0 client ${SANDBOX.clientId}, secret ${SANDBOX.clientSecret} (Standard server)`,
			` sandbox:      ${sandboxOrigin}/api/v1  (demo data; e.g. ${sandboxOrigin}/api/v1/Contact with header X-Api-Key)`,
			` node:         search for "Record Management Service" in the nodes panel`,
			` logs:         ${n8nLog}`,
			'',
			watching
				? ' Changes to the node are rebuilt and reloaded by n8n within seconds: reopen the node to see them.'
				: ' After changing the node: npm run build in another terminal, then restart npm run dev.',
			' Ctrl-C stops n8n and the sandbox.',
			'==========================================================================',
			'',
		]
			.filter((l) => l !== '')
			.join('\n'),
	);

	if (checkMode) {
		let ok = loggedIn;
		const problems = loggedIn ? [] : ['login failed'];
		if (loggedIn) {
			const types = await request('GET', `${base}/types/nodes.json`, { cookie });
			const hasNode = Array.isArray(types.json) && types.json.some((t) => t.name === NODE_TYPE);
			if (!hasNode)
				problems.push(`node type ${NODE_TYPE} not in /types/nodes.json (${types.status})`);
			const ctypes = await request('GET', `${base}/types/credentials.json`, { cookie });
			if (!(
				Array.isArray(ctypes.json) &&
				ctypes.json.some((t) => t.name === 'recordManagementServiceApi')
			))
				problems.push('credential type recordManagementServiceApi not in /types/credentials.json');
			const creds = await request('GET', `${base}/rest/credentials`, { cookie });
			for (const c of [CREDENTIAL, ESPO_CREDENTIAL])
				if (!(creds.json && creds.json.data && creds.json.data.some((x) => x.id === c.id)))
					problems.push(
						`credential ${c.id} not listed (${creds.status} ${creds.text.slice(0, 200)})`,
					);
			const wfr = await request('GET', `${base}/rest/workflows/${wf.id}`, { cookie });
			if (wfr.status !== 200)
				problems.push(`workflow ${wf.id}: ${wfr.status} ${wfr.text.slice(0, 200)}`);
			console.log(
				`[dev --check] node type listed: ${hasNode}; credential and workflow: ${problems.length ? 'see below' : 'present'}`,
			);
			// the editor's lists, read from the sandbox through the credential (loadOptions, resource mapper)
			const dynamic = (what, body) =>
				request('POST', `${base}/rest/dynamic-node-parameters/${what}`, {
					cookie,
					body: {
						nodeTypeAndVersion: { name: NODE_TYPE, version: 1 },
						credentials: {
							recordManagementServiceApi: { id: ESPO_CREDENTIAL.id, name: ESPO_CREDENTIAL.name },
						},
						...body,
					},
				});
			const params = {
				resource: 'record',
				operation: 'create',
				entityType: 'Contact',
				bodyMode: 'mapper',
			};
			const typeList = await dynamic('options', {
				path: 'entityType',
				methodName: 'getEntityTypes',
				currentNodeParameters: params,
			});
			const typeNames = ((typeList.json && typeList.json.data) || []).map((o) => o.value);
			if (!typeNames.includes('CProject'))
				problems.push(`entity type list: ${typeList.status} ${typeList.text.slice(0, 300)}`);
			const mapper = await dynamic('resource-mapper-fields', {
				path: 'columns',
				methodName: 'getMappingFields',
				currentNodeParameters: params,
			});
			const fieldIds = ((mapper.json && mapper.json.data && mapper.json.data.fields) || []).map(
				(f) => f.id,
			);
			if (!fieldIds.includes('doNotCall'))
				problems.push(`field mapper fields: ${mapper.status} ${mapper.text.slice(0, 300)}`);
			console.log(
				`[dev --check] entity types from the sandbox: ${typeNames.join(', ')}; Contact mapper fields: ${fieldIds.length}`,
			);
		}
		// run the example workflow once, headless, against the running sandbox (n8n stopped first: one process per DB)
		n8n.stopping = true;
		try {
			process.kill(-n8n.pid, 'SIGTERM');
		} catch {}
		await n8n.exited;
		// judged by the execution it saved (the editor's n8n saves every execution), not by what it printed
		const { executeAndRead, lastExecutionId } = require('../test/lib/saved-executions');
		const ran = await executeAndRead({
			p,
			n8nEnv,
			runN8n: env.runN8n,
			workflowId: wf.id,
			afterId: await lastExecutionId(p, userFolder),
		});
		if (ran.problem)
			problems.push(
				`example workflow failed: ${ran.problem}\n${ran.res.stdout.slice(-3000)}\n${ran.res.stderr.slice(-2000)}`,
			);
		else {
			const runData = ran.execution.data.resultData.runData;
			const count = (node) => (runData[node] ? runData[node][0].data.main[0].length : 0);
			console.log(
				`[dev --check] example workflow: ${Object.keys(runData)
					.map((n) => `${n}: ${count(n)} item(s)`)
					.join(', ')}`,
			);
			for (const n of Object.keys(runData))
				if (count(n) === 0) problems.push(`example workflow: node "${n}" returned no item`);
		}
		ok = problems.length === 0;
		for (const pr of problems) console.log(`[dev --check] PROBLEM: ${pr}`);
		await stopAll();
		process.exit(ok ? 0 : 1);
	}
	await new Promise(() => {}); // until Ctrl-C
}

/**
 * npm run dev -- --espocrm: the editor against a real EspoCRM (ESPOCRM_TREE / ESPOCRM_ZIP) instead of the sandbox (test/espocrm/rig/espocrm.js:
 * installed once into the cache, then its dev copy, whose data are kept between dev runs; RMS_DEV_RESET=1 starts it
 * from the fresh snapshot again). Credentials for its API users (API key, HMAC) and its admin (Basic) are imported.
 */
async function espocrmDev() {
	const checkMode = process.argv.includes('--check');
	const t0 = Date.now();
	const espocrm = require('../test/espocrm/rig/espocrm');
	const { credentialFiles } = require('../test/espocrm/credentials');
	const release = await espocrm.releaseOrSkip('npm run dev -- --espocrm', { log });
	if (!release) return;
	// EspoCRM starts (installs, the first time) while n8n is checked and the package built. n8n's port first: EspoCRM 9.3
	// calls a webhook URL on an internal address only when its host:port is in webhookAllowedAddressList.
	const n8nPort = await pickPort(Number(process.env.N8N_PORT || 5678));
	const espoReady = espocrm.startEspo({
		instance: 'dev',
		fresh: !!process.env.RMS_DEV_RESET,
		log,
		release,
		phpPort: await pickPort(Number(process.env.ESPOCRM_PORT || 8080)),
		webhookAddresses: [`localhost:${n8nPort}`, `127.0.0.1:${n8nPort}`],
	});
	espoReady.catch(() => {});
	let espo;
	const stopBoth = async (reason) => {
		await stopAll(reason);
		await espoReady.then((e) => e.stop()).catch(() => {});
		log('stopped EspoCRM');
	};
	for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'])
		process.on(sig, () => stopBoth(`${sig}: stopping`).then(() => process.exit(0)));
	try {
		if (!fs.existsSync(path.join(REPO, 'node_modules', '.bin', 'tsc')))
			await env.runNpm(['ci', '--no-audit', '--no-fund']);
		const p = await env.ensureN8n();
		const build = await buildAndWatch();
		const userFolder = process.env.RMS_DEV_FOLDER
			? path.resolve(process.env.RMS_DEV_FOLDER)
			: path.join(p.root, 'dev-user-folder');
		if (process.env.RMS_DEV_RESET) fs.rmSync(userFolder, { recursive: true, force: true });
		fs.mkdirSync(userFolder, { recursive: true });
		build.into(livePackage(userFolder));
		const n8nEnv = env.n8nEnv(userFolder, {
			N8N_PORT: String(n8nPort),
			N8N_HOST: 'localhost',
			N8N_PROTOCOL: 'http',
			N8N_EDITOR_BASE_URL: `http://localhost:${n8nPort}`,
			N8N_RUNNERS_BROKER_PORT: String(await pickPort(n8nPort + 1)),
			N8N_DEV_RELOAD: String(watching),
		});
		espo = await espoReady;
		const creds = credentialFiles(espo.origin, espo.keys);
		const file = path.join(userFolder, 'rms-dev-espocrm-credentials.json');
		fs.writeFileSync(file, JSON.stringify(creds));
		const imported = await env.runN8n(p, n8nEnv, ['import:credentials', `--input=${file}`]);
		if (imported.code !== 0)
			throw new Error(`import:credentials failed:\n${imported.stdout}\n${imported.stderr}`);

		const n8nLog = path.join(userFolder, 'n8n.log');
		fs.writeFileSync(n8nLog, '');
		const n8n = startChild('n8n', p.nodeBin, [p.n8nBin, 'start'], {
			cwd: userFolder,
			env: n8nEnv,
			stdio: ['ignore', fs.openSync(n8nLog, 'a'), fs.openSync(n8nLog, 'a')],
		});
		const base = `http://localhost:${n8nPort}`;
		await waitFor(
			'n8n REST API',
			async () => (await request('GET', `${base}/rest/settings`)).json,
			{ child: n8n, timeoutMs: 240000 },
		);
		const settings = (await n8nCall('GET', `${base}/rest/settings`)).json;
		if (
			settings &&
			settings.data &&
			settings.data.userManagement &&
			settings.data.userManagement.showSetupOnFirstLoad
		)
			await n8nCall('POST', `${base}/rest/owner/setup`, { body: OWNER });
		const login = await n8nCall('POST', `${base}/rest/login`, {
			body: { emailOrLdapLoginId: OWNER.email, password: OWNER.password },
		});
		const cookie = (login.headers['set-cookie'] || []).map((c) => c.split(';')[0]).join('; ');
		console.log(
			[
				'',
				'==========================================================================',
				` n8n editor:   ${base}   (ready after ${((Date.now() - t0) / 1000).toFixed(0)} s)`,
				` log in with:  ${OWNER.email}  /  ${OWNER.password}${login.status === 200 ? '' : `   (login failed: ${login.status}; RMS_DEV_FOLDER=<new folder>?)`}`,
				` EspoCRM ${espo.version}: ${espo.origin}   (web UI; log in with ${espo.keys.admin.username} / ${espo.keys.admin.password})`,
				`               API ${espo.apiBase}; API key ${espo.keys.apiKey.apiKey}; HMAC ${espo.keys.hmac.apiKey} / ${espo.keys.hmac.secretKey}`,
				`               data kept between dev runs in ${espo.tree}/.. (RMS_DEV_RESET=1 npm run dev -- --espocrm: fresh data)`,
				`               outgoing mail goes to an SMTP sink that prints it here`,
				` credentials:  ${creds.map((c) => `"${c.name}"`).join(', ')}`,
				` logs:         ${n8nLog}, ${espo.logs.php}`,
				watching
					? ' Changes to the node are rebuilt and reloaded by n8n within seconds: reopen the node to see them.'
					: '',
				' Ctrl-C stops n8n and EspoCRM.',
				'==========================================================================',
				'',
			]
				.filter((line, index) => line !== '' || index === 0)
				.join('\n'),
		);
		let printed = 0;
		setInterval(() => {
			for (const m of espo.smtp.messages.slice(printed))
				log(`mail to ${m.to.join(', ')}: ${m.subject}`);
			printed = espo.smtp.messages.length;
		}, 1000).unref();
		if (checkMode) {
			// the editor's list of entity types, read from EspoCRM's metadata through the API key credential
			const c = creds[0];
			const r = await request('POST', `${base}/rest/dynamic-node-parameters/options`, {
				cookie,
				body: {
					nodeTypeAndVersion: { name: NODE_TYPE, version: 1 },
					credentials: { recordManagementServiceApi: { id: c.id, name: c.name } },
					path: 'entityType',
					methodName: 'getEntityTypes',
					currentNodeParameters: { resource: 'record', operation: 'create', entityType: 'Contact' },
				},
			});
			const names = ((r.json && r.json.data) || []).map((o) => o.value);
			const ui = await request('GET', `${espo.origin}/`);
			// the credential's Test button, as the editor calls it: each credential, and the API key one with a wrong key
			const tests = [];
			for (const cred of [
				...creds,
				{ ...creds[0], name: 'wrong key', data: { ...creds[0].data, apiKey: 'wrong-key' } },
			]) {
				const t = await request('POST', `${base}/rest/credentials/test`, {
					cookie,
					body: { credentials: cred },
				});
				const d = (t.json && t.json.data) || {};
				tests.push(
					`${cred.name}: ${d.status || `${t.status} ${t.text.slice(0, 200)}`}${d.message ? ` (${d.message})` : ''}`,
				);
			}
			const testsOk =
				tests.slice(0, -1).every((t) => /: OK/.test(t)) && !/: OK/.test(tests[tests.length - 1]);
			const ok =
				login.status === 200 &&
				names.includes('Contact') &&
				names.includes('Meeting') &&
				ui.status === 200 &&
				/EspoCRM/.test(ui.text) &&
				testsOk;
			console.log(
				`[dev --espocrm --check] login ${login.status}; entity types from EspoCRM: ${names.join(', ') || `${r.status} ${r.text.slice(0, 300)}`}; web UI ${ui.status}`,
			);
			console.log(`[dev --espocrm --check] credential tests: ${tests.join('; ')}`);
			await stopBoth();
			process.exit(ok ? 0 : 1);
		}
		await new Promise(() => {}); // until Ctrl-C
	} catch (e) {
		console.error(`[dev] failed: ${e && e.stack ? e.stack : e}`);
		await stopBoth();
		process.exit(1);
	}
}

(process.argv.includes('--espocrm') ? espocrmDev() : main()).catch(async (e) => {
	console.error(`[dev] failed: ${e && e.stack ? e.stack : e}`);
	await stopAll();
	process.exit(1);
});
