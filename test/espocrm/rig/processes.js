'use strict';
/*
 * The long-running processes a script starts (MariaDB, PHP's server), each in its own session and process group
 * (`setsid`, Node's `detached`), so that stopping one stops what it forked (PHP's server workers) and nothing else.
 *
 * A pid file per process in the instance's run folder lets the next run stop what a killed run left behind, after
 * checking that the process is really one of ours (its command line names the instance's folder).
 */

const fs = require('fs');
const path = require('path');
const { spawn } = require('child_process');

const { alive, sleep } = require('../../lib/lock');

function cmdline(pid) {
	try {
		return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
	} catch {
		return '';
	}
}

function killGroup(pid, signal) {
	try {
		process.kill(-pid, signal);
		return true;
	} catch {
		try {
			process.kill(pid, signal);
			return true;
		} catch {
			return false;
		}
	}
}

class Processes {
	constructor(log = () => {}) {
		this.log = log;
		this.list = [];
	}

	/**
	 * Starts a child in its own session. `pidFile`: written with its pid (removed when it stops).
	 * Output goes to `logFile` (appended).
	 */
	start(name, cmd, args, { cwd, env, logFile, pidFile } = {}) {
		const out = logFile ? fs.openSync(logFile, 'a') : 'ignore';
		const child = spawn(cmd, args, {
			cwd,
			env: env || process.env,
			stdio: ['ignore', out, out],
			detached: true,
		});
		if (typeof out === 'number') fs.closeSync(out);
		child.procName = name;
		child.pidFile = pidFile;
		child.logFile = logFile;
		child.exited = new Promise((resolve) => {
			child.once('exit', (code, signal) => resolve(code === null ? signal : code));
			child.once('error', (e) => resolve(`error: ${e.message}`));
		});
		if (pidFile && child.pid) fs.writeFileSync(pidFile, String(child.pid));
		this.list.push(child);
		return child;
	}

	running(child) {
		return child.exitCode === null && child.signalCode === null;
	}

	/** SIGTERM to its group, SIGKILL after `timeoutMs`. */
	async stop(child, { timeoutMs = 10000, signal = 'SIGTERM' } = {}) {
		if (this.running(child)) {
			killGroup(child.pid, signal);
			const done = await Promise.race([
				child.exited.then(() => true),
				sleep(timeoutMs).then(() => false),
			]);
			if (!done) {
				this.log(
					`${child.procName} (pid ${child.pid}) did not stop within ${timeoutMs / 1000} s: SIGKILL`,
				);
				killGroup(child.pid, 'SIGKILL');
				await child.exited;
			}
		}
		// what it forked (PHP's server workers) stays in its group after it exited: that too
		killGroup(child.pid, 'SIGKILL');
		if (child.pidFile) fs.rmSync(child.pidFile, { force: true });
		this.list = this.list.filter((c) => c !== child);
	}

	async stopAll(opts) {
		for (const c of [...this.list].reverse()) await this.stop(c, opts);
	}

	/** For process.on('exit'): no waiting possible, so SIGKILL every group still there. */
	killAllSync() {
		for (const c of this.list) {
			killGroup(c.pid, 'SIGKILL');
			if (c.pidFile) fs.rmSync(c.pidFile, { force: true });
		}
		this.list = [];
	}
}

/**
 * Stops what an earlier run left running in `runDir` (its pid files), when the process's command line still
 * names `mustMention` (so that a reused pid of some other process is never touched).
 */
async function stopLeftovers(runDir, mustMention, log) {
	let files = [];
	try {
		files = fs.readdirSync(runDir).filter((f) => f.endsWith('.pid'));
	} catch {
		return;
	}
	for (const f of files) {
		const file = path.join(runDir, f);
		const pid = Number(fs.readFileSync(file, 'utf8').trim());
		if (pid && alive(pid) && cmdline(pid).includes(mustMention)) {
			log(`stopping ${f.replace(/\.pid$/, '')} (pid ${pid}) left running by an earlier run`);
			killGroup(pid, 'SIGKILL');
			for (let i = 0; i < 50 && alive(pid); i++) await sleep(100);
		}
		fs.rmSync(file, { force: true });
	}
}

const OUR_COMMANDS = new Set([
	'mariadbd',
	'mysqld',
	'php',
	'tar',
	'cp',
	'mariadb-install-db',
	'mariadb',
	'mariadb-admin',
	'gzip',
]);

/**
 * Stops processes a killed earlier run left behind that its pid files do not name (a `tar` still extracting, a `cp`
 * still copying): only programs this setup runs, and only when their command line names one of `paths` (folders
 * private to this setup, such as the instance's tree and datadir). Call it while holding the instance's lock.
 */
async function stopStrays(paths, log) {
	let entries = [];
	try {
		entries = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d));
	} catch {
		return;
	}
	const killed = [];
	for (const d of entries) {
		const pid = Number(d);
		if (pid === process.pid) continue;
		const args = cmdline(pid).split(' ');
		const prog = path.basename(args[0] || '');
		if (!OUR_COMMANDS.has(prog)) continue;
		const text = ` ${args.join(' ')} `;
		if (
			!paths.some((p) => text.includes(`${p}/`) || text.includes(`${p} `) || text.includes(`=${p}`))
		)
			continue;
		log(`stopping ${prog} (pid ${pid}) left running by an earlier run`);
		killGroup(pid, 'SIGKILL');
		killed.push(pid);
	}
	for (const pid of killed) for (let i = 0; i < 50 && alive(pid); i++) await sleep(100);
}

module.exports = { Processes, stopLeftovers, stopStrays, alive, killGroup, sleep };
