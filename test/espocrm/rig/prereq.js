'use strict';
/*
 * PHP and MariaDB from Debian, installed with apt-get when missing: the PHP of the machine's Debian release (the
 * unversioned php-* packages depend on it: 8.2 on Debian 12, 8.4 on Debian 13). A PHP given at run time
 * (ESPOCRM_PHP, ESPOCRM_PHP_CHROOT: php.js) is only checked, never installed into; MariaDB is the host's either way.
 *
 * Another process may be installing Debian packages at the same time: apt-get waits for the dpkg lock
 * (DPkg::Lock::Timeout; test/lib/apt.js). Where apt-get cannot be used (not root, not Debian), it fails with the
 * exact command to run.
 */

const { ensureDebianPackages, which, userFacing } = require('../../lib/apt');
const { givenPhp, runPhp } = require('./php');

/** Debian's default PHP, whichever version its release has (php-cli depends on php8.2-cli on 12, php8.4-cli on 13). */
const PHP_PACKAGES = [
	'php-cli',
	'php-mysql',
	'php-mbstring',
	'php-xml',
	'php-zip',
	'php-gd',
	'php-curl',
	'php-intl',
	'php-bcmath',
];
const MARIADB_PACKAGES = ['mariadb-server', 'mariadb-client'];
const PACKAGES = [...PHP_PACKAGES, ...MARIADB_PACKAGES];
/** PHP extensions EspoCRM needs (php -m names). */
const PHP_MODULES = [
	'pdo_mysql',
	'mbstring',
	'xml',
	'zip',
	'gd',
	'curl',
	'intl',
	'bcmath',
	'json',
	'openssl',
];

/** What is missing: [] when PHP (`php`, see php.js; with every module) and MariaDB's programs are there. */
function missing(php = givenPhp()) {
	const out = [];
	if (!php.given && !which('php')) out.push('php');
	else {
		const r = runPhp(php, ['-m']);
		if (r.status !== 0)
			out.push(
				`php (${php.label} does not run: ${String(r.stderr || r.error || '')
					.trim()
					.slice(0, 200)})`,
			);
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
		'(on Debian; elsewhere: the PHP CLI the release needs (8.3+ for EspoCRM 9.3) with the extensions pdo_mysql, mbstring,',
		' xml, zip, gd, curl, intl, bcmath, and MariaDB server and client programs mariadbd, mariadb-install-db and mariadb',
		' on PATH; another PHP than the one on PATH: ESPOCRM_PHP or ESPOCRM_PHP_CHROOT, see test/espocrm/README.md)',
	].join('\n');
}

/**
 * Makes sure PHP and MariaDB are installed. Throws (with what to install) when they are not and cannot be. `php`: the
 * PHP given at run time (php.js); a given one is only checked: apt-get installs MariaDB beside it, never PHP.
 */
async function ensurePrerequisites(
	log = (m) => process.stderr.write(`${m}\n`),
	{ php = givenPhp() } = {},
) {
	const phpMissing = missing(php).filter((m) => m.startsWith('php'));
	if (php.given && phpMissing.length)
		throw userFacing(
			`The PHP given, ${php.label}, cannot run EspoCRM: missing ${phpMissing.join(', ')}. Give one with the extensions ${PHP_MODULES.join(', ')}.`,
		);
	// A given PHP is never installed into: only MariaDB then, beside it.
	const onlyMariaDb = php.given || !phpMissing.length;
	return await ensureDebianPackages({
		what: `${onlyMariaDb ? 'MariaDB' : 'PHP and MariaDB'} (about a minute)`,
		packages: onlyMariaDb ? MARIADB_PACKAGES : PACKAGES,
		missing: () => missing(php),
		instructions,
		log,
	});
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
