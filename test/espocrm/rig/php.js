'use strict';
/*
 * The PHP that runs EspoCRM here (its installer, PHP's built-in server, command.php, set-config.php, unpacking a zip),
 * given at run time:
 *
 *   ESPOCRM_PHP=<program>         a php binary (php8.3, /opt/php/bin/php) or any wrapper that takes php's arguments
 *   ESPOCRM_PHP_CHROOT=<folder>   a root file system holding `php` (Debian 13 made by debootstrap has PHP 8.4): PHP runs
 *                                 there (chroot), in a mount namespace of its own (unshare; root only) into which /tmp,
 *                                 /proc, /dev and the folders PHP reads (the EspoCRM cache, this repository, a given
 *                                 zip's folder) are bind-mounted at their own paths. Nothing stays mounted afterwards;
 *                                 MariaDB stays the host's, reached over 127.0.0.1.
 *   neither                       `php` on PATH (Debian's: test/espocrm/rig/prereq.js installs it when missing)
 *
 * A release says which PHP it needs in vendor/composer/platform_check.php (`PHP_VERSION_ID >= 80300` for 9.3): a
 * command that needs a release and gets a PHP older than that says so in one line and is skipped (releaseOrSkip in
 * espocrm.js), as it is when no release is given.
 */

const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');

const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');

/**
 * Runs `php` inside the chroot given as $1, with the folders up to `--` bind-mounted at their own paths, from the
 * caller's working directory (every exec keeps the pid, so the pid spawned is php's own and its process group is the
 * one to stop).
 */
const CHROOT_SCRIPT = [
	'root=$1; shift',
	'while [ "$1" != -- ]; do mkdir -p "$root$1" && mount --rbind "$1" "$root$1" || exit 97; shift; done; shift',
	'exec chroot "$root" /bin/sh -c \'cd "$0" && exec php "$@"\' "$PWD" "$@"',
].join('\n');

/** The PHP given in the environment: {label, command(args) -> [program, args], given}. */
function givenPhp({ cacheParent, zip } = {}) {
	const chroot = process.env.ESPOCRM_PHP_CHROOT;
	if (chroot) {
		const root = path.resolve(chroot);
		if (
			!fs.existsSync(path.join(root, 'usr', 'bin', 'php')) &&
			!fs.existsSync(path.join(root, 'usr', 'local', 'bin', 'php'))
		)
			throw userFacing(`ESPOCRM_PHP_CHROOT=${chroot}: no usr/bin/php in that folder`);
		const binds = [
			...new Set(
				[
					'/tmp',
					'/proc',
					'/dev',
					os.tmpdir(),
					REPO_ROOT,
					cacheParent,
					zip && path.dirname(path.resolve(zip)),
				].filter(Boolean),
			),
		];
		return {
			label: `php in the chroot ${root} (ESPOCRM_PHP_CHROOT)`,
			given: true,
			command: (args) => [
				'unshare',
				[
					'--mount',
					'--propagation',
					'private',
					'--',
					'sh',
					'-c',
					CHROOT_SCRIPT,
					'php-chroot',
					root,
					...binds,
					'--',
					...args,
				],
			],
		};
	}
	const program = process.env.ESPOCRM_PHP;
	if (program)
		return { label: `${program} (ESPOCRM_PHP)`, given: true, command: (args) => [program, args] };
	return { label: 'php', given: false, command: (args) => ['php', args] };
}

/** Runs the PHP to its end, synchronously: {status, stdout, stderr}. */
function runPhp(php, args, options = {}) {
	const [program, fullArgs] = php.command(args);
	return spawnSync(program, fullArgs, { encoding: 'utf8', ...options });
}

/** The PHP's version ('8.4.27'), or undefined when it does not run. */
function phpVersion(php) {
	const r = runPhp(php, ['-r', 'echo PHP_VERSION;']);
	return r.status === 0 && /^\d+\.\d+\.\d+/.test(r.stdout) ? r.stdout.trim() : undefined;
}

/** The PHP a release tree needs ('8.3.0'), from vendor/composer/platform_check.php; undefined when it says nothing. */
function requiredPhp(tree) {
	let text;
	try {
		text = fs.readFileSync(path.join(tree, 'vendor', 'composer', 'platform_check.php'), 'utf8');
	} catch {
		return undefined;
	}
	const m = /PHP_VERSION_ID\s*>=\s*(\d+)/.exec(text);
	if (!m) return undefined;
	const id = Number(m[1]);
	return `${Math.floor(id / 10000)}.${Math.floor(id / 100) % 100}.${id % 100}`;
}

function versionId(version) {
	const [major, minor, patch] = version.split('.').map((n) => parseInt(n, 10) || 0);
	return major * 10000 + minor * 100 + patch;
}

/**
 * The PHP for a release: {php, version, needs} or {missing: '<what is missing, in words>'} when it cannot run the
 * release (the one line of a skipped command says it).
 */
function phpForRelease(release, { cacheParent, zip } = {}) {
	const php = givenPhp({ cacheParent, zip });
	const needs = requiredPhp(release.tree);
	const version = phpVersion(php);
	const howTo = `ESPOCRM_PHP=<php ${needs || '8.1'} or later> or ESPOCRM_PHP_CHROOT=<a root file system holding one>`;
	if (!version)
		return {
			missing: `EspoCRM ${release.version} needs PHP${needs ? ` ${needs} or later` : ''} and ${php.label} does not run (${howTo})`,
		};
	if (needs && versionId(version) < versionId(needs))
		return {
			missing: `EspoCRM ${release.version} needs PHP ${needs} or later (its vendor/composer/platform_check.php) and ${php.label} is ${version} (${howTo})`,
		};
	return { php, version, needs };
}

function userFacing(message) {
	return Object.assign(new Error(message), { userFacing: true });
}

module.exports = { givenPhp, runPhp, phpVersion, requiredPhp, phpForRelease };
