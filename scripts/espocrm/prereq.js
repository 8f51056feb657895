'use strict';
/*
 * PHP and MariaDB from Debian, installed with apt-get when missing: the PHP of the machine's Debian release (the
 * unversioned php-* packages depend on it: 8.2 on Debian 12, 8.4 on Debian 13). A PHP given at run time
 * (ESPOCRM_PHP, ESPOCRM_PHP_CHROOT: php.js) is only checked, never installed into; MariaDB is the host's either way.
 *
 * Another process may be installing Debian packages at the same time: apt-get waits for the dpkg lock
 * (DPkg::Lock::Timeout). `apt-get update` runs only when the install fails for lack of package lists.
 * Where apt-get cannot be used (not root, not Debian), it fails with the exact command to run.
 */

const fs = require('fs');
const { spawnSync, spawn } = require('child_process');

const { givenPhp, runPhp } = require('./php');

/** Debian's default PHP, whichever version its release has (php-cli depends on php8.2-cli on 12, php8.4-cli on 13). */
const PHP_PACKAGES = ['php-cli', 'php-mysql', 'php-mbstring', 'php-xml', 'php-zip', 'php-gd', 'php-curl', 'php-intl', 'php-bcmath'];
const MARIADB_PACKAGES = ['mariadb-server', 'mariadb-client'];
const PACKAGES = [...PHP_PACKAGES, ...MARIADB_PACKAGES];
/** PHP extensions EspoCRM needs (php -m names). */
const PHP_MODULES = ['pdo_mysql', 'mbstring', 'xml', 'zip', 'gd', 'curl', 'intl', 'bcmath', 'json', 'openssl'];
const APT_OPTS = ['-o', 'DPkg::Lock::Timeout=600', '-o', 'Acquire::Retries=3'];

/** The program's path, also from the sbin folders (mariadbd is in /usr/sbin, not on a normal user's PATH); '' if none. */
function which(cmd) {
	const PATH = [process.env.PATH || '', '/usr/local/sbin', '/usr/sbin', '/sbin'].filter(Boolean).join(':');
	const r = spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8', env: { ...process.env, PATH } });
	return r.status === 0 ? r.stdout.trim() : '';
}

/** What is missing: [] when PHP (`php`, see php.js; with every module) and MariaDB's programs are there. */
function missing(php = givenPhp()) {
	const out = [];
	if (!php.given && !which('php')) out.push('php');
	else {
		const r = runPhp(php, ['-m']);
		if (r.status !== 0) out.push(`php (${php.label} does not run: ${String(r.stderr || r.error || '').trim().slice(0, 200)})`);
		const mods = new Set((r.stdout || '').split('\n').map((l) => l.trim().toLowerCase()));
		if (r.status === 0) for (const m of PHP_MODULES) if (!mods.has(m)) out.push(`php module ${m}`);
	}
	for (const b of ['mariadbd', 'mariadb-install-db', 'mariadb']) if (!which(b)) out.push(b);
	return out;
}

function instructions(reason) {
	return [
		`EspoCRM tests need PHP and MariaDB (${reason}). Install them, then run again:`,
		'',
		`  sudo apt-get install -y ${PACKAGES.join(' ')}`,
		'',
		"(on Debian; elsewhere: the PHP CLI the release needs (8.3+ for EspoCRM 9.3) with the extensions pdo_mysql, mbstring,",
		' xml, zip, gd, curl, intl, bcmath, and MariaDB server and client programs mariadbd, mariadb-install-db and mariadb',
		' on PATH; another PHP than the one on PATH: ESPOCRM_PHP or ESPOCRM_PHP_CHROOT, see test/espocrm/README.md)',
	].join('\n');
}

/** An error whose message says it all (printed without a stack trace). */
function userFacing(message) {
	return Object.assign(new Error(message), { userFacing: true });
}

function aptGet(args, log) {
	return new Promise((resolve) => {
		const child = spawn('apt-get', [...APT_OPTS, ...args], {
			env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive', NEEDRESTART_MODE: 'a' },
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let out = '';
		child.stdout.on('data', (d) => (out += d));
		child.stderr.on('data', (d) => (out += d));
		const started = Date.now();
		const beat = setInterval(() => log(`  … apt-get ${args[0]} still running (${((Date.now() - started) / 1000).toFixed(0)}s)`), 30000);
		child.on('error', (e) => {
			clearInterval(beat);
			resolve({ code: -1, out: String(e) });
		});
		child.on('close', (code) => {
			clearInterval(beat);
			resolve({ code, out });
		});
	});
}

/**
 * Makes sure PHP and MariaDB are installed. Throws (with what to install) when they are not and cannot be. `php`: the
 * PHP given at run time (php.js); a given one is only checked: apt-get installs MariaDB beside it, never PHP.
 */
async function ensurePrerequisites(log = (m) => process.stderr.write(`${m}\n`), { php = givenPhp() } = {}) {
	let miss = missing(php);
	if (!miss.length) return { installed: false };
	const phpMissing = miss.filter((m) => m.startsWith('php'));
	if (php.given && phpMissing.length)
		throw userFacing(`The PHP given, ${php.label}, cannot run EspoCRM: missing ${phpMissing.join(', ')}. Give one with the extensions ${PHP_MODULES.join(', ')}.`);
	const packages = php.given || !phpMissing.length ? MARIADB_PACKAGES : PACKAGES;
	const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
	const isDebian = fs.existsSync('/etc/debian_version') && !!which('apt-get');
	if (!isRoot || !isDebian) {
		const why = [!isRoot && 'not running as root', !isDebian && 'not a Debian system with apt-get'].filter(Boolean).join(', ');
		throw userFacing(instructions(`missing: ${miss.join(', ')}; cannot install them here: ${why}`));
	}

	log(`installing ${packages === MARIADB_PACKAGES ? 'MariaDB' : 'PHP and MariaDB'} with apt-get (missing: ${miss.join(', ')}); about a minute`);
	const started = Date.now();
	let r = await aptGet(['install', '-y', '--no-install-recommends', ...packages], log);
	if (r.code !== 0 && /Unable to locate package|has no installation candidate|Failed to fetch|404\s+Not Found|E: Package .* has no/i.test(r.out)) {
		log('apt-get install failed for lack of package lists: apt-get update, then again');
		const u = await aptGet(['update'], log);
		if (u.code !== 0) throw userFacing(`apt-get update failed:\n${u.out.slice(-3000)}\n\n${instructions('apt-get update failed')}`);
		r = await aptGet(['install', '-y', '--no-install-recommends', ...packages], log);
	}
	if (r.code !== 0) throw userFacing(`apt-get install failed (exit ${r.code}):\n${r.out.slice(-3000)}\n\n${instructions('apt-get install failed')}`);
	miss = missing(php);
	if (miss.length) throw userFacing(instructions(`still missing after apt-get install: ${miss.join(', ')}`));
	log(`${packages === MARIADB_PACKAGES ? 'MariaDB' : 'PHP and MariaDB'} installed in ${((Date.now() - started) / 1000).toFixed(0)}s`);
	return { installed: true, ms: Date.now() - started };
}

module.exports = { ensurePrerequisites, missing, which, PACKAGES, instructions };

if (require.main === module) {
	ensurePrerequisites().then(
		(r) => console.log(JSON.stringify(r)),
		(e) => {
			console.error(e.message);
			process.exit(1);
		},
	);
}
