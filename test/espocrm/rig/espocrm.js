'use strict';
/*
 * A real EspoCRM for tests, from the release given at run time (release.js: ESPOCRM_TREE or ESPOCRM_ZIP): installed
 * once per version into a cache folder outside the repository, then started from a snapshot of its fresh state in
 * about a second.
 *
 *   <cache>/espocrm-<version>/        <cache> = the parent of the n8n cache (test/lib/n8n-env.js), or $RMS_ESPOCRM_CACHE
 *     installed.json     the version marker, written last: what was installed, admin login, API users' keys
 *     tree/              a copy of the release tree (its data/ is the test instance's live one)
 *     db/                the test instance's MariaDB datadir (private mariadbd, never Debian's service)
 *     snapshot/db, snapshot/data   the fresh state: a test run restores both (keys live in data/config-internal.php)
 *     run/               pid files, sockets, logs of the running test instance
 *     dev/               `npm run dev -- --espocrm`: its own copy (tree hard-linked, data and database kept between runs)
 *
 *   <cache>/espocrm-zips/             release zips (ESPOCRM_ZIP), unpacked once
 *
 * Exports: findRelease, releaseOrSkip, ensureInstalled, startEspo (fresh: restore the snapshot first).
 */

const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawn, spawnSync } = require('child_process');
const n8nEnv = require('../../lib/n8n-env');
const { ensurePrerequisites, which: findProgram } = require('./prereq');
const { givenRelease, skipLine, compareWithPinned } = require('./release');
const { givenPhp, phpForRelease } = require('./php');
const { Processes, stopLeftovers, stopStrays, sleep } = require('./processes');
const { acquireLock } = require('../../lib/lock');
const { espoClient } = require('./client');
const { startSmtpSink } = require('./smtp-sink');

/** Bump when what the install sets up changes (role scopes, users, settings): the next run installs again. */
const RECIPE = 2;
const ROUTER = path.join(__dirname, 'router.php');
const SET_CONFIG = path.join(__dirname, 'set-config.php');

const ADMIN = { username: 'admin', password: 'Espo-Test-Admin-1' };
const DB = { name: 'espocrm', user: 'espocrm', password: 'espocrm-test' };
const MAIL_FROM = { address: 'crm@espocrm.test', name: 'EspoCRM (test)' };
const RECORD_ACCESS = { create: 'yes', read: 'all', edit: 'all', delete: 'all', stream: 'all' };
/** The scopes the API users' role allows. */
const ROLE_SCOPES = [
	'Account',
	'Contact',
	'Lead',
	'Opportunity',
	'Email',
	'Meeting',
	'Call',
	'Task',
	'Case',
	'Document',
	'Campaign',
	'TargetList',
	'KnowledgeBaseArticle',
];
/**
 * Not Import: a role with Import may send e-mail from any address on EspoCRM 9 (CheckFromAddress), which would hide
 * what a user's API role meets. Not Attachment: its scope has no ACL (8.1.5 accepted `true`, 9.1.7 refuses it).
 */
const ROLE_BOOLEAN_SCOPES = ['Webhook', 'Activities', 'Calendar'];

/** The folder holding one install per version (and unpacked zips): $RMS_ESPOCRM_CACHE, or beside the n8n cache. */
function cacheParent() {
	if (process.env.RMS_ESPOCRM_CACHE) return path.resolve(process.env.RMS_ESPOCRM_CACHE);
	return path.dirname(n8nEnv.cacheRoot());
}

function layout(version, root = path.join(cacheParent(), `espocrm-${version}`)) {
	const instance = (dir, name, tree) => ({
		name,
		dir,
		tree,
		db: path.join(dir, 'db'),
		run: path.join(dir, 'run'),
		lock: path.join(dir, `${name}.lock`),
	});
	return {
		version,
		root,
		marker: path.join(root, 'installed.json'),
		installLock: path.join(root, 'install.lock'),
		snapshot: {
			dir: path.join(root, 'snapshot'),
			db: path.join(root, 'snapshot', 'db'),
			data: path.join(root, 'snapshot', 'data'),
		},
		test: instance(root, 'test', path.join(root, 'tree')),
		dev: instance(path.join(root, 'dev'), 'dev', path.join(root, 'dev', 'tree')),
	};
}

const t0 = Date.now();
function defaultLog(msg) {
	const s = ((Date.now() - t0) / 1000).toFixed(0).padStart(4);
	process.stderr.write(`[espocrm ${s}s] ${msg}\n`);
}

// ---------------------------------------------------------------------------------------------------------
// The release, given at run time (release.js)

/** The PHP given at run time (php.js), able to read the folders this setup uses. */
function phpGiven() {
	return givenPhp({ cacheParent: cacheParent(), zip: process.env.ESPOCRM_ZIP });
}

/**
 * The release given in the environment ({tree, version, source}), or undefined. A zip is unpacked with PHP, so the
 * prerequisites come first then.
 */
async function findRelease({ log = defaultLog } = {}) {
	const php = phpGiven();
	if (process.env.ESPOCRM_ZIP && !process.env.ESPOCRM_TREE) await ensurePrerequisites(log, { php });
	return givenRelease({ zipCache: path.join(cacheParent(), 'espocrm-zips'), log, php });
}

/** The PHP that runs this release ({php, version}), or {missing: what is missing, in words}. */
function phpOf(release) {
	return phpForRelease(release, { cacheParent: cacheParent(), zip: process.env.ESPOCRM_ZIP });
}

/**
 * For a command that needs a release: the release with the PHP that runs it (`php`, `phpVersion`), or undefined after
 * printing the one line that says the command was skipped and why: no release given, or no PHP that the release
 * runs on (the command then exits 0).
 */
async function releaseOrSkip(command, { log = defaultLog } = {}) {
	const release = await findRelease({ log });
	if (!release) {
		console.log(skipLine(command));
		return undefined;
	}
	const { php, version, missing } = phpOf(release);
	if (missing) {
		console.log(skipLine(command, missing));
		return undefined;
	}
	return { ...release, php, phpVersion: version };
}

/** The release's PHP (releaseOrSkip found it); a caller that skipped releaseOrSkip gets it here, or an error saying what is missing. */
function withPhp(release) {
	if (release.php) return release;
	const { php, version, missing } = phpOf(release);
	if (missing) throw Object.assign(new Error(missing), { userFacing: true });
	return { ...release, php, phpVersion: version };
}

// ---------------------------------------------------------------------------------------------------------
// Small helpers

/** Runs a command to its end; resolves {code, out, ms}. */
function exec(cmd, args, { cwd, env, timeoutMs = 10 * 60 * 1000 } = {}) {
	return new Promise((resolve) => {
		const started = Date.now();
		const child = spawn(cmd, args, {
			cwd,
			env: env || process.env,
			stdio: ['ignore', 'pipe', 'pipe'],
			detached: true,
		});
		let out = '';
		child.stdout.on('data', (d) => (out += d));
		child.stderr.on('data', (d) => (out += d));
		const timer = setTimeout(() => {
			out += `\n[killed after ${timeoutMs} ms]`;
			try {
				process.kill(-child.pid, 'SIGKILL');
			} catch {}
		}, timeoutMs);
		child.on('error', (e) => {
			clearTimeout(timer);
			resolve({ code: -1, out: `${out}\n${e.message}`, ms: Date.now() - started });
		});
		child.on('close', (code, signal) => {
			clearTimeout(timer);
			resolve({ code: code === null ? signal : code, out, ms: Date.now() - started });
		});
	});
}

async function mustExec(label, cmd, args, opts) {
	const r = await exec(cmd, args, opts);
	if (r.code !== 0) throw new Error(`${label} failed (exit ${r.code}):\n${r.out.slice(-3000)}`);
	return r;
}

function which(cmd) {
	return findProgram(cmd) || cmd;
}

/** cp -a (a tree of many files: faster than fs.cpSync); `link`: hard links (cp -al) where the source stays unchanged. */
async function copyTree(from, to, { link = false } = {}) {
	fs.rmSync(to, { recursive: true, force: true });
	fs.mkdirSync(path.dirname(to), { recursive: true });
	await mustExec(`copying ${from}`, 'cp', [link ? '-al' : '-a', from, to]);
}

function tail(file, n = 30) {
	try {
		return fs.readFileSync(file, 'utf8').split('\n').slice(-n).join('\n');
	} catch {
		return '';
	}
}

// ---------------------------------------------------------------------------------------------------------
// MariaDB

function mariadbArgs(inst, port) {
	return [
		'--no-defaults',
		`--datadir=${inst.db}`,
		`--user=${os.userInfo().username}`,
		`--port=${port}`,
		'--bind-address=127.0.0.1',
		`--socket=${path.join(inst.run, 'mysqld.sock')}`,
		`--pid-file=${path.join(inst.run, 'mariadbd.own.pid')}`,
		`--log-error=${path.join(inst.run, 'mariadb.log')}`,
		// its temporary tables in the instance's folder: a sort of 100,000 rows failed when a file in /tmp vanished
		`--tmpdir=${inst.run}`,
		'--skip-name-resolve',
		'--skip-log-bin',
		'--character-set-server=utf8mb4',
		'--collation-server=utf8mb4_unicode_ci',
		// small and fast: the data are thrown away after each run
		'--innodb-buffer-pool-size=128M',
		'--innodb-log-file-size=16M',
		'--innodb-flush-log-at-trx-commit=2',
		'--innodb-doublewrite=0',
		'--innodb-use-native-aio=0',
		'--sync-binlog=0',
		'--max-connections=300',
	];
}

async function installDatadir(inst, log) {
	fs.rmSync(inst.db, { recursive: true, force: true });
	fs.mkdirSync(inst.db, { recursive: true });
	log(`mariadb-install-db --datadir=${inst.db}`);
	await mustExec('mariadb-install-db', which('mariadb-install-db'), [
		'--no-defaults',
		`--datadir=${inst.db}`,
		`--user=${os.userInfo().username}`,
		'--auth-root-authentication-method=normal',
		'--skip-test-db',
		'--innodb-log-file-size=16M',
	]);
}

async function startMariadb(inst, procs, log) {
	const port = await n8nEnv.freePort();
	fs.mkdirSync(inst.run, { recursive: true });
	const sock = path.join(inst.run, 'mysqld.sock');
	fs.rmSync(sock, { force: true });
	const logFile = path.join(inst.run, 'mariadb.log');
	const child = procs.start('mariadbd', which('mariadbd'), mariadbArgs(inst, port), {
		cwd: inst.run,
		logFile: path.join(inst.run, 'mariadbd.out'),
		pidFile: path.join(inst.run, 'mariadbd.pid'),
	});
	const started = Date.now();
	for (;;) {
		if (!procs.running(child))
			throw new Error(`mariadbd exited (${child.exitCode ?? child.signalCode}):\n${tail(logFile)}`);
		if (fs.existsSync(sock)) {
			const r = await exec(
				which('mariadb-admin'),
				['--no-defaults', `--socket=${sock}`, '-uroot', 'ping'],
				{ timeoutMs: 5000 },
			);
			if (r.code === 0) break;
		}
		// room for a 2-core machine with a load of 16 (a limit for a hang, not for a slow start)
		if (Date.now() - started > 180000)
			throw new Error(`mariadbd did not start within 180 s:\n${tail(logFile)}`);
		await sleep(50);
	}
	log(`MariaDB on 127.0.0.1:${port} (${Date.now() - started} ms)`);
	return { child, port, socket: sock };
}

function sql(db, statements) {
	return mustExec('mariadb', which('mariadb'), [
		'--no-defaults',
		`--socket=${db.socket}`,
		'-uroot',
		'-e',
		statements,
	]);
}

// ---------------------------------------------------------------------------------------------------------
// PHP

function phpArgs(inst) {
	return [
		'-d',
		'memory_limit=512M',
		'-d',
		`session.save_path=${inst.run}`,
		'-d',
		'display_errors=stderr',
		'-d',
		'date.timezone=UTC',
	];
}

/** PHP (the release's: php.js) with the instance's settings and `args`, run to its end; resolves {code, out, ms}. */
function execPhp(php, inst, args, opts) {
	return exec(...php.command([...phpArgs(inst), ...args]), opts);
}

async function setConfig(php, inst, changes) {
	const r = await execPhp(php, inst, [SET_CONFIG, inst.tree, JSON.stringify(changes)]);
	if (r.code !== 0)
		throw new Error(`set-config.php failed (exit ${r.code}):\n${r.out.slice(-3000)}`);
}

async function startPhp(php, inst, procs, log, wantedPort) {
	const port = wantedPort || (await n8nEnv.freePort());
	const origin = `http://127.0.0.1:${port}`;
	const logFile = path.join(inst.run, 'php-server.log');
	const child = procs.start(
		'php -S',
		...php.command([
			...phpArgs(inst),
			'-d',
			'opcache.enable=1',
			'-S',
			`127.0.0.1:${port}`,
			'-t',
			inst.tree,
			ROUTER,
		]),
		{
			cwd: inst.tree,
			// several workers: n8n sends requests in parallel
			env: { ...process.env, PHP_CLI_SERVER_WORKERS: process.env.ESPOCRM_PHP_WORKERS || '4' },
			logFile,
			pidFile: path.join(inst.run, 'php-server.pid'),
		},
	);
	return { child, port, origin, logFile };
}

async function waitForApi(api, child, procs, logFile) {
	const started = Date.now();
	for (;;) {
		if (!procs.running(child))
			throw new Error(`php -S exited (${child.exitCode ?? child.signalCode}):\n${tail(logFile)}`);
		try {
			const r = await api.get('/App/user');
			if (r.status === 200) return Date.now() - started;
			if (Date.now() - started > 120000)
				throw new Error(
					`GET /App/user as admin: ${r.status} ${r.reason || ''} ${String(r.text).slice(0, 300)}`,
				);
		} catch (e) {
			if (Date.now() - started > 120000)
				throw new Error(
					`EspoCRM's API did not answer within 120 s: ${e.message}\n${tail(logFile)}`,
				);
		}
		await sleep(100);
	}
}

/**
 * EspoCRM 9.3's allow-lists of internal addresses, in data/config.php (Administration has no field for them): a group
 * or personal e-mail account whose SMTP server is on an internal address is saved only when its `host:port` is in
 * emailServerAllowedAddressList (Classes/RecordHooks/EmailAccount/BeforeSaveValidateHosts), a webhook URL on one only
 * when in webhookAllowedAddressList (9.3.2 on, Classes/FieldValidators/Webhook/Url/NotInternal). Older versions ignore
 * both. ESPOCRM_ALLOW_LISTS=off leaves them out (null) at start, as on a 9.3 set up without them; the install always
 * has the SMTP sink's (its group e-mail account is made then).
 */
function allowLists({ smtpPort, webhookAddresses = [], install = false }) {
	if (!install && allowListsOff())
		return { emailServerAllowedAddressList: null, webhookAllowedAddressList: null };
	return {
		emailServerAllowedAddressList: [`127.0.0.1:${smtpPort}`],
		webhookAllowedAddressList: webhookAddresses,
	};
}

/** ESPOCRM_ALLOW_LISTS=off: EspoCRM started without 9.3's allow-lists (test:espocrm then runs what proves the node's messages). */
function allowListsOff() {
	return /^(off|0|false|no)$/i.test(process.env.ESPOCRM_ALLOW_LISTS || '');
}

// ---------------------------------------------------------------------------------------------------------
// Install (once)

async function installerStep(php, inst, action, params) {
	const data = new URLSearchParams(params).toString();
	const r = await execPhp(php, inst, ['install/cli.php', '-a', action, '-d', data], {
		cwd: inst.tree,
	});
	// it exits 0 even when a step failed, and prints "Error: ..."
	if (r.code !== 0 || /(^|\n)\s*Error:/.test(r.out) || /Fatal error|Uncaught/.test(r.out))
		throw new Error(
			`EspoCRM installer step ${action} failed (exit ${r.code}):\n${r.out.slice(-3000)}`,
		);
	return r;
}

function readMarker(L) {
	try {
		return JSON.parse(fs.readFileSync(L.marker, 'utf8'));
	} catch {
		return undefined;
	}
}

function markerValid(L, m) {
	return (
		m &&
		m.version === L.version &&
		m.recipe === RECIPE &&
		fs.existsSync(path.join(L.snapshot.db, 'mysql')) &&
		fs.existsSync(path.join(L.snapshot.data, 'config-internal.php')) &&
		fs.existsSync(path.join(L.test.tree, 'bootstrap.php'))
	);
}

/**
 * Installs the release ({tree, version}: findRelease) into the cache unless the marker says that version is there.
 * Resolves to the marker: {version, recipe, releaseTree, treeSha256, admin, apiKeyUser, hmacUser, roleId, timings}.
 */
async function ensureInstalled({ log = defaultLog, release } = {}) {
	release = withPhp(release);
	const L = layout(release.version);
	let marker = readMarker(L);
	if (markerValid(L, marker)) {
		await ensurePrerequisites(log, { php: release.php }); // a few milliseconds when PHP and MariaDB are there
		return marker;
	}

	await ensurePrerequisites(log, { php: release.php });

	const unlock = await acquireLock(L.installLock, {
		log,
		what: `the EspoCRM install in ${L.root}`,
	});
	try {
		marker = readMarker(L);
		if (markerValid(L, marker)) return marker; // another process installed it meanwhile
		return await install(L, release, log);
	} finally {
		unlock();
	}
}

async function install(L, release, log) {
	const started = Date.now();
	const timings = {};
	const lap = (name, since) => (timings[name] = Date.now() - since);
	const inst = L.test;
	const { php } = release;
	log(
		`installing EspoCRM ${L.version} from ${release.tree} into ${L.root} with PHP ${release.phpVersion} (once; about a minute)`,
	);

	// a half-finished earlier install is thrown away; so is a test instance (it runs under its lock)
	const releaseTest = await acquireLock(inst.lock, { log, what: 'the EspoCRM test instance' });
	const procs = new Processes(log);
	const onExit = () => procs.killAllSync();
	process.on('exit', onExit);
	try {
		await stopLeftovers(inst.run, L.root, log);
		await stopStrays([inst.tree, inst.db, inst.run, L.snapshot.dir], log);
		fs.rmSync(L.marker, { force: true });
		for (const d of [inst.tree, inst.db, inst.run, L.snapshot.dir])
			fs.rmSync(d, { recursive: true, force: true });
		fs.mkdirSync(inst.run, { recursive: true });

		let t = Date.now();
		// the given tree stays as it is: the installer writes into data/ and custom/ of the copy
		const { digest: treeSha256, pinned, matches } = compareWithPinned(release.tree, L.version);
		// another tree than the pinned one (a customised or patched release) is tested as given, and said so
		log(
			`copying ${release.tree} (tree SHA-256 ${treeSha256}: ${matches ? 'the release pinned in releases.json' : pinned ? `NOT the ${L.version} pinned in releases.json` : `no ${L.version} is pinned in releases.json`})`,
		);
		await copyTree(release.tree, inst.tree);
		lap('copy', t);

		t = Date.now();
		await installDatadir(inst, log);
		const db = await startMariadb(inst, procs, log);
		await sql(
			db,
			[
				`CREATE DATABASE \`${DB.name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;`,
				`CREATE USER '${DB.user}'@'127.0.0.1' IDENTIFIED BY '${DB.password}';`,
				`CREATE USER '${DB.user}'@'localhost' IDENTIFIED BY '${DB.password}';`,
				`GRANT ALL PRIVILEGES ON \`${DB.name}\`.* TO '${DB.user}'@'127.0.0.1';`,
				`GRANT ALL PRIVILEGES ON \`${DB.name}\`.* TO '${DB.user}'@'localhost';`,
				'FLUSH PRIVILEGES;',
			].join(' '),
		);
		lap('mariadb', t);

		t = Date.now();
		const group =
			spawnSync('id', ['-gn'], { encoding: 'utf8' }).stdout.trim() || os.userInfo().username;
		const steps = [
			['step1', { 'user-lang': 'en_US' }],
			[
				'setupConfirmation',
				{
					'db-platform': 'Mysql',
					'host-name': `127.0.0.1:${db.port}`,
					'db-name': DB.name,
					'db-user-name': DB.user,
					'db-user-password': DB.password,
				},
			],
			['checkPermission', {}],
			[
				'saveSettings',
				{
					'site-url': 'http://127.0.0.1',
					'default-permissions-user': os.userInfo().username,
					'default-permissions-group': group,
				},
			],
			['buildDatabase', {}],
			['createUser', { 'user-name': ADMIN.username, 'user-pass': ADMIN.password }],
			[
				'savePreferences',
				{
					timeZone: 'UTC',
					dateFormat: 'YYYY-MM-DD',
					timeFormat: 'HH:mm',
					weekStart: '1',
					defaultCurrency: 'USD',
					thousandSeparator: ',',
					decimalMark: '.',
					language: 'en_US',
				},
			],
			['finish', {}],
		];
		for (const [action, params] of steps) {
			const s = Date.now();
			await installerStep(php, inst, action, params);
			log(`  installer ${action} (${((Date.now() - s) / 1000).toFixed(1)}s)`);
		}
		const internal = fs.readFileSync(path.join(inst.tree, 'data', 'config-internal.php'), 'utf8');
		if (!/'isInstalled'\s*=>\s*true/.test(internal))
			throw new Error(
				`the installer finished, but data/config-internal.php has no 'isInstalled' => true`,
			);
		lap('installer', t);

		// as admin through the API: role, API users, mail
		t = Date.now();
		const smtp = await startSmtpSink({ port: 0 });
		let server;
		let setup;
		try {
			server = await startPhp(php, inst, procs, log);
			// EspoCRM 9.3 saves a group e-mail account with an SMTP server on an internal address only when it is listed
			await setConfig(php, inst, {
				'config.php': {
					siteUrl: server.origin,
					smtpPort: smtp.port,
					...allowLists({ smtpPort: smtp.port, install: true }),
				},
			});
			const admin = espoClient(server.origin, ADMIN);
			await waitForApi(admin, server.child, procs, server.logFile);
			setup = await setUpThroughApi(admin, smtp, log, L.version);
			// the mail settings work: one message through the sink
			const probe = await admin.post('/Email', {
				status: 'Sending',
				from: MAIL_FROM.address,
				to: 'install-check@espocrm.test',
				subject: 'rms install check',
				body: 'The test setup can send e-mail.',
				isHtml: false,
			});
			if (probe.status !== 200 || smtp.messages.length !== 1)
				throw new Error(
					`EspoCRM did not send e-mail through the sink: ${probe.status} ${probe.reason || ''} ${probe.text.slice(0, 300)}`,
				);
			await admin.ok('DELETE', `/Email/${probe.body.id}`);
		} finally {
			await smtp.close();
		}
		lap('api-setup', t);

		// snapshot: both servers stopped cleanly first
		t = Date.now();
		await procs.stopAll({ timeoutMs: 30000 });
		await copyTree(inst.db, L.snapshot.db);
		await copyTree(path.join(inst.tree, 'data'), L.snapshot.data);
		lap('snapshot', t);

		const marker = {
			version: L.version,
			recipe: RECIPE,
			releaseTree: release.tree,
			treeSha256,
			installedAt: new Date().toISOString(),
			phpVersion: release.phpVersion,
			installMs: Date.now() - started,
			timings,
			admin: ADMIN,
			...setup,
		};
		fs.writeFileSync(L.marker, JSON.stringify(marker, null, 2) + '\n');
		log(
			`EspoCRM ${L.version} installed in ${((Date.now() - started) / 1000).toFixed(0)}s (${Object.entries(
				timings,
			)
				.map(([k, v]) => `${k} ${(v / 1000).toFixed(1)}s`)
				.join(', ')})`,
		);
		return marker;
	} finally {
		await procs.stopAll();
		process.removeListener('exit', onExit);
		releaseTest();
	}
}

async function setUpThroughApi(admin, smtp, log, version) {
	const data = {};
	for (const s of ROLE_SCOPES) data[s] = RECORD_ACCESS;
	for (const s of ROLE_BOOLEAN_SCOPES) data[s] = true;
	const role = await admin.ok('POST', '/Role', {
		name: 'n8n tests',
		data,
		fieldData: {},
		assignmentPermission: 'all',
		userPermission: 'all',
		messagePermission: 'all',
		exportPermission: 'yes',
		massUpdatePermission: 'yes',
		followerManagementPermission: 'all',
		dataPrivacyPermission: 'yes',
		portalPermission: 'no',
		groupEmailAccountPermission: 'all',
	});
	log(`  role "n8n tests" ${role.id}`);
	const keyUser = await admin.ok('POST', '/User', {
		userName: 'n8n-api-key',
		type: 'api',
		authMethod: 'ApiKey',
		isActive: true,
		rolesIds: [role.id],
		emailAddress: 'n8n-api-key@espocrm.test',
	});
	if (!keyUser.apiKey)
		throw new Error(
			`POST /User (ApiKey) replied without apiKey: ${JSON.stringify(keyUser).slice(0, 300)}`,
		);
	const hmacUser = await admin.ok('POST', '/User', {
		userName: 'n8n-hmac',
		type: 'api',
		authMethod: 'Hmac',
		isActive: true,
		rolesIds: [role.id],
		emailAddress: 'n8n-hmac@espocrm.test',
	});
	const hmacFull = await admin.ok('GET', `/User/${hmacUser.id}`);
	if (!hmacFull.apiKey || !hmacFull.secretKey)
		throw new Error(`GET /User/${hmacUser.id} (Hmac) shows no apiKey/secretKey`);
	log(`  API users n8n-api-key ${keyUser.id}, n8n-hmac ${hmacUser.id}`);
	await admin.ok('PUT', '/Settings', {
		smtpServer: '127.0.0.1',
		smtpPort: smtp.port,
		smtpAuth: false,
		smtpSecurity: '',
		outboundEmailFromAddress: MAIL_FROM.address,
		outboundEmailFromName: MAIL_FROM.name,
		outboundEmailIsShared: true,
	});
	// EspoCRM 9 lets a user who is not an admin send from the system address only when a group e-mail account with SMTP
	// holds that address (Classes/RecordHooks/Email/CheckFromAddress): what an administrator sets up for API users
	// (README, "Compatibility"). 8.x sends through the system SMTP without it.
	let systemGroupAccountId;
	if (Number(version.split('.')[0]) >= 9) {
		const account = await admin.ok('POST', '/InboundEmail', {
			name: 'System address (tests)',
			emailAddress: MAIL_FROM.address,
			status: 'Active',
			useImap: false,
			useSmtp: true,
			smtpIsShared: true,
			smtpHost: '127.0.0.1',
			smtpPort: smtp.port,
			smtpAuth: false,
			smtpSecurity: '',
			fromName: MAIL_FROM.name,
		});
		systemGroupAccountId = account.id;
		log(`  group e-mail account for ${MAIL_FROM.address} ${account.id}`);
	}
	const adminUser = await admin.ok('GET', '/App/user');
	// the sandbox-like checks need the admin's own address for "from"
	await admin.ok('PUT', `/User/${adminUser.user.id}`, { emailAddress: 'admin@espocrm.test' });
	return {
		roleId: role.id,
		adminId: adminUser.user.id,
		apiKeyUser: { id: keyUser.id, userName: keyUser.userName, apiKey: keyUser.apiKey },
		hmacUser: {
			id: hmacUser.id,
			userName: hmacUser.userName,
			apiKey: hmacFull.apiKey,
			secretKey: hmacFull.secretKey,
		},
		mailFrom: MAIL_FROM,
		systemGroupAccountId,
	};
}

// ---------------------------------------------------------------------------------------------------------
// Start (each run)

/** Creates the dev copy once: tree hard-linked (data/ and custom code copied), data and database from the snapshot. */
async function ensureDevCopy(L, marker, log) {
	const inst = L.dev;
	const stampFile = path.join(inst.dir, 'created-from.json');
	let stamp;
	try {
		stamp = JSON.parse(fs.readFileSync(stampFile, 'utf8'));
	} catch {}
	if (
		stamp &&
		stamp.installedAt === marker.installedAt &&
		fs.existsSync(path.join(inst.tree, 'data', 'config-internal.php')) &&
		fs.existsSync(path.join(inst.db, 'mysql'))
	)
		return false;
	log(`creating the dev copy in ${inst.dir} (from the snapshot; kept between dev runs)`);
	fs.rmSync(stampFile, { force: true });
	try {
		await copyTree(L.test.tree, inst.tree, { link: true });
	} catch {
		await copyTree(L.test.tree, inst.tree); // another file system: a real copy
	}
	// what EspoCRM writes to (entity manager, layouts) must not be shared with the test tree
	for (const d of ['custom', path.join('client', 'custom')])
		await copyTree(path.join(L.test.tree, d), path.join(inst.tree, d));
	await copyTree(L.snapshot.data, path.join(inst.tree, 'data'));
	await copyTree(L.snapshot.db, inst.db);
	fs.writeFileSync(stampFile, JSON.stringify({ installedAt: marker.installedAt }) + '\n');
	return true;
}

/**
 * Starts EspoCRM: `instance` 'test' (restored from the snapshot: fresh data) or 'dev' (its kept copy; `fresh` restores
 * it). Starts MariaDB, PHP's server (workers) and the SMTP sink. Resolves to
 * {origin, apiBase, admin (client), keys, marker, smtp, runJob(name), timings, stop()}.
 */
async function startEspo({
	instance = 'test',
	fresh = instance === 'test',
	log = defaultLog,
	release,
	phpPort,
	webhookAddresses = [],
} = {}) {
	release = release || (await findRelease({ log }));
	if (!release)
		throw Object.assign(new Error(skipLine('npm run test:espocrm')), { userFacing: true });
	release = withPhp(release);
	const { php } = release;
	const marker = await ensureInstalled({ log, release });
	const L = layout(release.version);
	const inst = L[instance];
	const timings = {};
	const releaseLock = await acquireLock(inst.lock, {
		log,
		what: `the EspoCRM ${instance} instance`,
	});
	const procs = new Processes(log);
	const onExit = () => procs.killAllSync();
	process.on('exit', onExit);
	let smtp;
	let stopped = false;
	const stop = async () => {
		if (stopped) return;
		stopped = true;
		await procs.stopAll({ timeoutMs: 15000 });
		if (smtp) await smtp.close();
		process.removeListener('exit', onExit);
		releaseLock();
	};
	try {
		await stopLeftovers(inst.run, inst.dir, log);
		await stopStrays([inst.tree, inst.db, inst.run], log);
		fs.mkdirSync(inst.run, { recursive: true });
		let t = Date.now();
		if (instance === 'dev') {
			const created = await ensureDevCopy(L, marker, log);
			if (fresh && !created) {
				await copyTree(L.snapshot.data, path.join(inst.tree, 'data'));
				await copyTree(L.snapshot.db, inst.db);
			}
		} else if (fresh) {
			await Promise.all([
				copyTree(L.snapshot.data, path.join(inst.tree, 'data')),
				copyTree(L.snapshot.db, inst.db),
			]);
		}
		timings.restore = Date.now() - t;

		t = Date.now();
		smtp = await startSmtpSink({ port: 0 });
		const db = await startMariadb(inst, procs, log);
		const server = await startPhp(php, inst, procs, log, phpPort);
		const lists = allowLists({ smtpPort: smtp.port, webhookAddresses });
		await setConfig(php, inst, {
			'config.php': {
				siteUrl: server.origin,
				smtpServer: '127.0.0.1',
				smtpPort: smtp.port,
				...lists,
			},
			'config-internal.php': { database: { host: '127.0.0.1', port: String(db.port) } },
		});
		// the group account's SMTP is a record, not config: the sink of this run. Without the allow-lists, EspoCRM 9.3
		// refuses to save it (an SMTP server on an internal address): the install made it, so it is removed here.
		if (marker.systemGroupAccountId) {
			const change = lists.emailServerAllowedAddressList
				? `smtp_port = ${Number(smtp.port)}`
				: 'deleted = 1';
			await sql(
				db,
				`UPDATE \`${DB.name}\`.inbound_email SET ${change} WHERE id = '${marker.systemGroupAccountId}';`,
			);
		}
		const admin = espoClient(server.origin, { username: ADMIN.username, password: ADMIN.password });
		timings.firstRequest = await waitForApi(admin, server.child, procs, server.logFile);
		timings.start = Date.now() - t;
		log(
			`EspoCRM ${L.version} (${instance}${fresh ? ', fresh data' : ''}${lists.emailServerAllowedAddressList ? '' : ', without the allow-lists'}) on PHP ${release.phpVersion} at ${server.origin}: restore ${timings.restore} ms, start ${timings.start} ms`,
		);

		const keys = {
			admin: { ...ADMIN },
			apiKey: { ...marker.apiKeyUser },
			hmac: { ...marker.hmacUser },
		};
		return {
			version: L.version,
			/** Tables whose names differ between versions (9.x renamed Subscription to StreamSubscription). */
			tables: {
				subscription: Number(L.version.split('.')[0]) >= 9 ? 'stream_subscription' : 'subscription',
			},
			instance,
			origin: server.origin,
			apiBase: `${server.origin}/api/v1`,
			phpVersion: release.phpVersion,
			/** Whether EspoCRM 9.3's allow-lists hold the SMTP sink and `webhookAddresses` (ESPOCRM_ALLOW_LISTS=off: not). */
			allowLists: !!lists.emailServerAllowedAddressList,
			tree: inst.tree,
			admin,
			keys,
			marker,
			smtp,
			mailFrom: MAIL_FROM,
			db,
			timings,
			logs: { php: server.logFile, mariadb: path.join(inst.run, 'mariadb.log') },
			/** `php command.php run-job <Name>` in the tree (for example ProcessWebhookQueue). */
			runJob: async (name) => {
				const r = await execPhp(php, inst, ['command.php', 'run-job', name], {
					cwd: inst.tree,
					timeoutMs: 120000,
				});
				if (r.code !== 0)
					throw new Error(
						`php command.php run-job ${name} exited with ${r.code}:\n${r.out.slice(-2000)}`,
					);
				return r.out;
			},
			/**
			 * The rows of one SQL statement on EspoCRM's database, as objects of strings (null for NULL): what EspoCRM
			 * stored, beside what its API says (`mariadb --batch`, whose escapes are undone).
			 */
			query: async (statement) => {
				const r = await mustExec('mariadb', which('mariadb'), [
					'--no-defaults',
					`--socket=${db.socket}`,
					'-uroot',
					'--batch',
					DB.name,
					'-e',
					statement,
				]);
				const unescape = (v) =>
					v === 'NULL'
						? null
						: v.replace(/\\(.)/g, (_m, c) => ({ n: '\n', t: '\t', 0: '\0', '\\': '\\' })[c] ?? c);
				const [header, ...rows] = r.out.split('\n').filter((line) => line !== '');
				if (!header) return [];
				const columns = header.split('\t');
				return rows.map((row) =>
					Object.fromEntries(row.split('\t').map((v, i) => [columns[i], unescape(v)])),
				);
			},
			/** A client for the API as one of the users: 'admin' | 'apiKey' | 'hmac'. */
			client: (who) =>
				espoClient(
					server.origin,
					who === 'admin' ? ADMIN : who === 'hmac' ? keys.hmac : { apiKey: keys.apiKey.apiKey },
				),
			stop,
		};
	} catch (e) {
		await stop();
		throw e;
	}
}

module.exports = {
	ADMIN,
	cacheParent,
	layout,
	findRelease,
	releaseOrSkip,
	allowListsOff,
	ensureInstalled,
	startEspo,
	defaultLog,
};

if (require.main === module) {
	// node test/espocrm/rig/espocrm.js [--dev] : install if needed, start, print, wait for Ctrl-C
	const dev = process.argv.includes('--dev');
	releaseOrSkip('node test/espocrm/rig/espocrm.js')
		.then((release) => release && startEspo({ instance: dev ? 'dev' : 'test', release }))
		.then(
			(e) => {
				if (!e) return;
				console.log(
					JSON.stringify(
						{
							origin: e.origin,
							admin: e.keys.admin,
							apiKey: e.keys.apiKey.apiKey,
							hmac: e.keys.hmac,
							smtpPort: e.smtp.port,
							timings: e.timings,
						},
						null,
						2,
					),
				);
				const bye = () => e.stop().then(() => process.exit(0));
				process.on('SIGINT', bye);
				process.on('SIGTERM', bye);
			},
			(err) => {
				console.error(err.message);
				process.exit(1);
			},
		);
}
