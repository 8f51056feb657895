'use strict';
/*
 * A lock between processes of this repository that install into or run from one shared folder (the n8n cache, the
 * EspoCRM install and its test instances): a folder holding its owner's pid, taken over when the owner is gone.
 */

const fs = require('fs');
const path = require('path');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Whether a process with this pid exists (EPERM: it does, under another user). */
function alive(pid) {
	try {
		process.kill(pid, 0);
		return true;
	} catch (e) {
		return e.code === 'EPERM';
	}
}

/**
 * A lock folder holding the pid of its owner; a lock whose owner is gone is taken over.
 * Resolves to a release function (also called on process exit).
 */
async function acquireLock(dir, { log = () => {}, what = 'it' } = {}) {
	fs.mkdirSync(path.dirname(dir), { recursive: true });
	let warned = false;
	for (;;) {
		try {
			fs.mkdirSync(dir);
			fs.writeFileSync(path.join(dir, 'pid'), String(process.pid));
			const release = () => fs.rmSync(dir, { recursive: true, force: true });
			process.once('exit', release);
			return () => {
				process.removeListener('exit', release);
				release();
			};
		} catch (e) {
			if (e.code !== 'EEXIST') throw e;
			let pid = 0;
			try {
				pid = Number(fs.readFileSync(path.join(dir, 'pid'), 'utf8'));
			} catch {}
			if (!pid) {
				// just created by another process, pid not written yet (or a crash between the two)
				let age = 0;
				try {
					age = Date.now() - fs.statSync(dir).mtimeMs;
				} catch {}
				if (age > 10000) fs.rmSync(dir, { recursive: true, force: true });
				else await sleep(200);
				continue;
			}
			if (!alive(pid) || pid === process.pid) {
				fs.rmSync(dir, { recursive: true, force: true });
				continue;
			}
			if (!warned) log(`another process (pid ${pid}) is using ${what}; waiting for it`);
			warned = true;
			await sleep(1000);
		}
	}
}

module.exports = { acquireLock, alive, sleep };
