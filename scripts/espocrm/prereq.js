'use strict';
/*
 * PHP 8.2 and MariaDB from Debian, installed with apt-get when missing.
 *
 * Another process may be installing Debian packages at the same time: apt-get waits for the dpkg lock
 * (DPkg::Lock::Timeout; scripts/lib/apt.js). Where apt-get cannot be used (not root, not Debian), it fails with the
 * exact command to run.
 */

const { spawnSync } = require('child_process');
const { ensureDebianPackages, which } = require('../lib/apt');

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

/**
 * Makes sure PHP and MariaDB are installed. Throws (with what to install) when they are not and cannot be.
 */
async function ensurePrerequisites(log = (m) => process.stderr.write(`${m}\n`)) {
	return await ensureDebianPackages({ what: 'PHP and MariaDB (about a minute)', packages: PACKAGES, missing, instructions, log });
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
