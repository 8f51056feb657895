'use strict';
/*
 * PHP 8.2 and MariaDB from Debian, installed with apt-get when missing.
 *
 * Another process may be installing Debian packages at the same time: apt-get waits for the dpkg lock
 * (DPkg::Lock::Timeout). `apt-get update` runs only when the install fails for lack of package lists.
 * Where apt-get cannot be used (not root, not Debian), it fails with the exact command to run.
 */

const fs = require('fs');
const { spawnSync, spawn } = require('child_process');

const PACKAGES = [
	'php8.2-cli',
	'php8.2-mysql',
	'php8.2-mbstring',
	'php8.2-xml',
	'php8.2-zip',
	'php8.2-gd',
	'php8.2-curl',
	'php8.2-intl',
	'php8.2-bcmath',
	'mariadb-server',
	'mariadb-client',
];
/** PHP extensions EspoCRM 8.1 needs (php -m names). */
const PHP_MODULES = ['pdo_mysql', 'mbstring', 'xml', 'zip', 'gd', 'curl', 'intl', 'bcmath', 'json', 'openssl'];
const APT_OPTS = ['-o', 'DPkg::Lock::Timeout=600', '-o', 'Acquire::Retries=3'];

/** The program's path, also from the sbin folders (mariadbd is in /usr/sbin, not on a normal user's PATH); '' if none. */
function which(cmd) {
	const PATH = [process.env.PATH || '', '/usr/local/sbin', '/usr/sbin', '/sbin'].filter(Boolean).join(':');
	const r = spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8', env: { ...process.env, PATH } });
	return r.status === 0 ? r.stdout.trim() : '';
}

/** What is missing: [] when PHP (with every module) and MariaDB's programs are there. */
function missing() {
	const out = [];
	const php = which('php');
	if (!php) out.push('php');
	else {
		const r = spawnSync(php, ['-m'], { encoding: 'utf8' });
		const mods = new Set((r.stdout || '').split('\n').map((l) => l.trim().toLowerCase()));
		for (const m of PHP_MODULES) if (!mods.has(m)) out.push(`php module ${m}`);
	}
	for (const b of ['mariadbd', 'mariadb-install-db', 'mariadb']) if (!which(b)) out.push(b);
	return out;
}

function instructions(reason) {
	return [
		`EspoCRM tests need PHP 8.2 and MariaDB (${reason}). Install them, then run again:`,
		'',
		`  sudo apt-get install -y ${PACKAGES.join(' ')}`,
		'',
		'(on Debian 12; elsewhere: PHP 8.1+ CLI with the extensions pdo_mysql, mbstring, xml, zip, gd, curl, intl,',
		' bcmath, and MariaDB 10.x server and client programs mariadbd, mariadb-install-db and mariadb on PATH)',
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
 * Makes sure PHP and MariaDB are installed. Throws (with what to install) when they are not and cannot be.
 */
async function ensurePrerequisites(log = (m) => process.stderr.write(`${m}\n`)) {
	let miss = missing();
	if (!miss.length) return { installed: false };
	const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
	const isDebian = fs.existsSync('/etc/debian_version') && !!which('apt-get');
	if (!isRoot || !isDebian) {
		const why = [!isRoot && 'not running as root', !isDebian && 'not a Debian system with apt-get'].filter(Boolean).join(', ');
		throw userFacing(instructions(`missing: ${miss.join(', ')}; cannot install them here: ${why}`));
	}

	log(`installing PHP and MariaDB with apt-get (missing: ${miss.join(', ')}); about a minute`);
	const started = Date.now();
	let r = await aptGet(['install', '-y', '--no-install-recommends', ...PACKAGES], log);
	if (r.code !== 0 && /Unable to locate package|has no installation candidate|Failed to fetch|404\s+Not Found|E: Package .* has no/i.test(r.out)) {
		log('apt-get install failed for lack of package lists: apt-get update, then again');
		const u = await aptGet(['update'], log);
		if (u.code !== 0) throw userFacing(`apt-get update failed:\n${u.out.slice(-3000)}\n\n${instructions('apt-get update failed')}`);
		r = await aptGet(['install', '-y', '--no-install-recommends', ...PACKAGES], log);
	}
	if (r.code !== 0) throw userFacing(`apt-get install failed (exit ${r.code}):\n${r.out.slice(-3000)}\n\n${instructions('apt-get install failed')}`);
	miss = missing();
	if (miss.length) throw userFacing(instructions(`still missing after apt-get install: ${miss.join(', ')}`));
	log(`PHP and MariaDB installed in ${((Date.now() - started) / 1000).toFixed(0)}s`);
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
