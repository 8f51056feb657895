#!/usr/bin/env node
'use strict';
/*
 * The EspoCRM release the real-server tests run on, given at run time. EspoCRM is third-party code (AGPL-3.0): nothing
 * of it is committed, neither the release nor anything built from it. The person or the CI job running the tests says
 * where a release is:
 *
 *   ESPOCRM_TREE=<folder>   a complete release tree (index.php, application/, client/, vendor/, install/cli.php), or a
 *                           folder holding exactly one such tree (a checkout whose release sits in EspoCRM-9.1.7/)
 *   ESPOCRM_ZIP=<file>      an official release zip (EspoCRM-<version>.zip), unpacked once into the EspoCRM cache
 *
 * The version is read from the tree (application/Espo/Resources/defaults/config.php). Without either variable, the
 * commands that need a release print one line (skipLine) and exit 0.
 *
 *   node test/espocrm/rig/release.js digest <tree or zip>   the tree's SHA-256 (what releases.json pins) and version
 *   node test/espocrm/rig/release.js check <tree or zip>    exit 1 unless the tree's digest is the one pinned for its version;
 *                                                          a version listed with `treeSha256: null` only prints it
 *
 * The tree's digest: SHA-256 over the sorted lines "<path relative to the tree>\0<SHA-256 of the file>\n" of every
 * regular file. It ignores what a zip or a git checkout does not keep alike (empty folders, modes, times), so a tree
 * unpacked from the official zip and one checked out of a repository holding that release give the same digest.
 */

const fs = require('fs');
const path = require('path');
const crypto = require('crypto');
const { givenPhp, runPhp } = require('./php');

/** The releases the tests were run on, with the digest of their trees (releases.json: version -> {treeSha256, zip}). */
const PINNED = require('./releases.json');

const REQUIRED = [
	'index.php',
	'bootstrap.php',
	'application',
	'client',
	'vendor',
	path.join('install', 'cli.php'),
];

function isReleaseTree(dir) {
	return REQUIRED.every((p) => fs.existsSync(path.join(dir, p)));
}

/** The release tree in `dir`: `dir` itself, or its one subfolder that is one; undefined if neither. */
function releaseTreeIn(dir) {
	if (isReleaseTree(dir)) return dir;
	let inner = [];
	try {
		inner = fs
			.readdirSync(dir, { withFileTypes: true })
			.filter((e) => e.isDirectory() && isReleaseTree(path.join(dir, e.name)))
			.map((e) => path.join(dir, e.name));
	} catch {}
	return inner.length === 1 ? inner[0] : undefined;
}

/** The version a release tree declares ('9.1.7'). */
function readVersion(tree) {
	const file = path.join(tree, 'application', 'Espo', 'Resources', 'defaults', 'config.php');
	const m = /'version'\s*=>\s*'([^']+)'/.exec(fs.readFileSync(file, 'utf8'));
	if (!m) throw new Error(`${file} names no version`);
	return m[1];
}

function treeDigest(tree) {
	const lines = [];
	const walk = (rel) => {
		for (const e of fs.readdirSync(path.join(tree, rel), { withFileTypes: true })) {
			const r = rel ? `${rel}/${e.name}` : e.name;
			if (e.isDirectory()) walk(r);
			else if (e.isFile())
				lines.push(
					`${r}\0${crypto
						.createHash('sha256')
						.update(fs.readFileSync(path.join(tree, r)))
						.digest('hex')}\n`,
				);
		}
	};
	walk('');
	lines.sort();
	return crypto.createHash('sha256').update(lines.join('')).digest('hex');
}

function fileDigest(file) {
	return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

function userFacing(message) {
	return Object.assign(new Error(message), { userFacing: true });
}

/**
 * Unpacks a release zip into `<into>/<its SHA-256>/` once (PHP's ZipArchive: PHP's zip module is among the
 * prerequisites, and the machine needs no unzip program), and returns the release tree inside. `php`: php.js.
 */
function unpackZip(zip, into, log, php = givenPhp({ zip })) {
	const sum = fileDigest(zip);
	const dir = path.join(into, sum.slice(0, 16));
	const done = path.join(dir, '.unpacked');
	if (!fs.existsSync(done)) {
		log(`unpacking ${zip} into ${dir}`);
		fs.rmSync(dir, { recursive: true, force: true });
		fs.mkdirSync(dir, { recursive: true });
		const r = runPhp(php, [
			'-r',
			'$z = new ZipArchive(); if ($z->open($argv[1]) !== true || !$z->extractTo($argv[2])) { fwrite(STDERR, "cannot unpack\\n"); exit(1); }',
			zip,
			dir,
		]);
		if (r.status !== 0)
			throw userFacing(
				`Could not unpack ${zip} (ESPOCRM_ZIP): ${(r.stderr || r.error || '').toString().trim()}`,
			);
		fs.writeFileSync(done, `${sum}\n`);
	}
	const tree = releaseTreeIn(dir);
	if (!tree)
		throw userFacing(
			`${zip} (ESPOCRM_ZIP) holds no EspoCRM release tree (index.php, application/, client/, vendor/, install/cli.php)`,
		);
	return tree;
}

/**
 * The release given in the environment: {tree, version, source} or undefined when none is given. A given one that is
 * not a release throws a message saying what is wrong. `zipCache`: where a zip is unpacked (needs PHP, see prereq.js).
 */
function givenRelease({ zipCache, log = () => {}, php } = {}) {
	const treeVar = process.env.ESPOCRM_TREE;
	const zipVar = process.env.ESPOCRM_ZIP;
	if (treeVar) {
		const dir = path.resolve(treeVar);
		if (!fs.existsSync(dir)) throw userFacing(`ESPOCRM_TREE=${treeVar}: no such folder`);
		const tree = releaseTreeIn(dir);
		if (!tree)
			throw userFacing(
				`ESPOCRM_TREE=${treeVar} holds no EspoCRM release tree (index.php, application/, client/, vendor/, install/cli.php)`,
			);
		return { tree, version: readVersion(tree), source: `ESPOCRM_TREE=${treeVar}` };
	}
	if (zipVar) {
		const zip = path.resolve(zipVar);
		if (!fs.existsSync(zip)) throw userFacing(`ESPOCRM_ZIP=${zipVar}: no such file`);
		if (!zipCache) throw new Error('givenRelease: a zip needs a folder to unpack into');
		const tree = unpackZip(zip, zipCache, log, php);
		return { tree, version: readVersion(tree), source: `ESPOCRM_ZIP=${zipVar}` };
	}
	return undefined;
}

/**
 * The one line a command that needs a release prints when it cannot run (it then exits 0); `command` as typed. Without
 * `missing`, no release was given; otherwise `missing` says what else is (a PHP the release runs on: php.js).
 */
function skipLine(command, missing) {
	if (missing) return `${command}: skipped, ${missing}; see test/espocrm/README.md`;
	const known = Object.keys(PINNED).join(', ');
	return `${command}: skipped, no EspoCRM release given. To run it: ESPOCRM_TREE=<folder holding an EspoCRM release tree: ${known}> (or ESPOCRM_ZIP=<EspoCRM-<version>.zip>) ${command}; see test/espocrm/README.md`;
}

/** What the digest of a tree says next to the pinned one: {digest, pinned, matches}. */
function compareWithPinned(tree, version) {
	const digest = treeDigest(tree);
	const pinned = PINNED[version] && PINNED[version].treeSha256;
	return { digest, pinned, matches: !!pinned && pinned === digest };
}

module.exports = {
	givenRelease,
	releaseTreeIn,
	readVersion,
	treeDigest,
	skipLine,
	compareWithPinned,
	PINNED,
};

if (require.main === module) {
	const [cmd, target] = process.argv.slice(2);
	if (!['digest', 'check'].includes(cmd) || !target) {
		console.error(
			'usage: node test/espocrm/rig/release.js digest|check <release tree folder or zip>',
		);
		process.exit(2);
	}
	const os = require('os');
	let tree = releaseTreeIn(path.resolve(target));
	if (!tree && fs.statSync(target).isFile()) {
		const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'espocrm-zip-'));
		process.on('exit', () => fs.rmSync(scratch, { recursive: true, force: true }));
		tree = unpackZip(path.resolve(target), scratch, console.error);
	}
	if (!tree) {
		console.error(`${target} holds no EspoCRM release tree`);
		process.exit(1);
	}
	const version = readVersion(tree);
	const { digest, pinned, matches } = compareWithPinned(tree, version);
	console.log(`EspoCRM ${version} tree ${tree}: SHA-256 ${digest}`);
	if (cmd === 'check') {
		if (!PINNED[version]) {
			console.error(`EspoCRM ${version} is not in test/espocrm/rig/releases.json`);
			process.exit(1);
		}
		if (!pinned) {
			// A version listed without a digest (releases.json says why): its CI job prints the digest for a maintainer to
			// pin, and goes on.
			console.log(
				`no digest is pinned for ${version} yet (${PINNED[version].digest}): to pin this tree, set its treeSha256 in test/espocrm/rig/releases.json to ${digest}`,
			);
			// On GitHub Actions, also on the run's summary page.
			if (process.env.GITHUB_ACTIONS === 'true')
				console.log(`::notice title=EspoCRM ${version}: tree digest to pin::${digest}`);
			process.exit(0);
		}
		if (!matches) {
			console.error(
				`does not match the digest pinned for ${version} (${pinned}): not the release the tests were written for`,
			);
			process.exit(1);
		}
		console.log(`matches the digest pinned for ${version}`);
	}
}
