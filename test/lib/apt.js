'use strict';
/*
 * Debian packages a test needs, installed with apt-get when missing (test/espocrm/rig/prereq.js: PHP and MariaDB;
 * test/editor/run.js: Chromium).
 *
 * Another process may be installing Debian packages at the same time: apt-get waits for the dpkg lock
 * (DPkg::Lock::Timeout). `apt-get update` runs only when the install fails for lack of package lists.
 * Where apt-get cannot be used (not root, not Debian), it fails with the exact command to run.
 */

const fs = require('fs');
const { spawnSync, spawn } = require('child_process');

const APT_OPTS = ['-o', 'DPkg::Lock::Timeout=600', '-o', 'Acquire::Retries=3'];

/** The program's path, also from the sbin folders (mariadbd is in /usr/sbin, not on a normal user's PATH); '' if none. */
function which(cmd) {
	const PATH = [process.env.PATH || '', '/usr/local/sbin', '/usr/sbin', '/sbin']
		.filter(Boolean)
		.join(':');
	const r = spawnSync('sh', ['-c', `command -v ${cmd}`], {
		encoding: 'utf8',
		env: { ...process.env, PATH },
	});
	return r.status === 0 ? r.stdout.trim() : '';
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
		const beat = setInterval(
			() =>
				log(
					`  … apt-get ${args[0]} still running (${((Date.now() - started) / 1000).toFixed(0)}s)`,
				),
			30000,
		);
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
 * Installs `packages` with apt-get unless `missing()` returns [] (what is missing, in words). `what` names them in the
 * log; `instructions(reason)` is the text for the person when they cannot be installed here. Throws a userFacing error
 * when they are missing and cannot be installed. Resolves { installed, ms }.
 */
async function ensureDebianPackages({
	what,
	packages,
	missing,
	instructions,
	log = (m) => process.stderr.write(`${m}\n`),
}) {
	let miss = missing();
	if (!miss.length) return { installed: false };
	const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
	const isDebian = fs.existsSync('/etc/debian_version') && !!which('apt-get');
	if (!isRoot || !isDebian) {
		const why = [!isRoot && 'not running as root', !isDebian && 'not a Debian system with apt-get']
			.filter(Boolean)
			.join(', ');
		throw userFacing(instructions(`missing: ${miss.join(', ')}; cannot install them here: ${why}`));
	}

	log(`installing ${what} with apt-get (missing: ${miss.join(', ')})`);
	const started = Date.now();
	let r = await aptGet(['install', '-y', '--no-install-recommends', ...packages], log);
	if (
		r.code !== 0 &&
		/Unable to locate package|has no installation candidate|Failed to fetch|404\s+Not Found|E: Package .* has no/i.test(
			r.out,
		)
	) {
		log('apt-get install failed for lack of package lists: apt-get update, then again');
		const u = await aptGet(['update'], log);
		if (u.code !== 0)
			throw userFacing(
				`apt-get update failed:\n${u.out.slice(-3000)}\n\n${instructions('apt-get update failed')}`,
			);
		r = await aptGet(['install', '-y', '--no-install-recommends', ...packages], log);
	}
	if (r.code !== 0)
		throw userFacing(
			`apt-get install failed (exit ${r.code}):\n${r.out.slice(-3000)}\n\n${instructions('apt-get install failed')}`,
		);
	miss = missing();
	if (miss.length)
		throw userFacing(instructions(`still missing after apt-get install: ${miss.join(', ')}`));
	log(`${what} installed in ${((Date.now() - started) / 1000).toFixed(0)}s`);
	return { installed: true, ms: Date.now() - started };
}

module.exports = { ensureDebianPackages, which, userFacing };
