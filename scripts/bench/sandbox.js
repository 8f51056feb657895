'use strict';
/*
 * The bench's handle on the sandbox process (scripts/bench/sandbox-server.js): fork it, send it commands, stop it.
 */

const path = require('path');
const { fork } = require('child_process');

/**
 * Forks the sandbox server and resolves once it listens: { origin, baseUrl, call(cmd, args), close() }.
 * `registry.add(child)` lets the bench's clean-up stop it on failure and Ctrl-C.
 */
function startSandboxProcess(registry) {
	const child = fork(path.join(__dirname, 'sandbox-server.js'), [], {
		stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
		// the bench's own flags (for example --max-old-space-size) are not the server's
		execArgv: [],
	});
	registry.add(child);
	let nextId = 1;
	const pending = new Map();
	return new Promise((resolve, reject) => {
		const failAll = (why) => {
			for (const p of pending.values()) p.reject(new Error(why));
			pending.clear();
		};
		child.once('error', reject);
		child.once('exit', (code, signal) => {
			registry.delete(child);
			const why = `the sandbox process exited (${signal || code})`;
			failAll(why);
			reject(new Error(why));
		});
		child.on('message', (msg) => {
			if (msg.ready) {
				resolve({
					origin: msg.origin,
					baseUrl: msg.baseUrl,
					listOrigin: msg.listOrigin,
					listBaseUrl: msg.listBaseUrl,
					keysOrigin: msg.keysOrigin,
					keysBaseUrl: msg.keysBaseUrl,
					secondOrigin: msg.secondOrigin,
					secondBaseUrl: msg.secondBaseUrl,
					pid: child.pid,
					call(cmd, args = {}) {
						const id = nextId++;
						return new Promise((res, rej) => {
							pending.set(id, { resolve: res, reject: rej });
							child.send({ id, cmd, ...args });
						});
					},
					close() {
						if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
						return new Promise((res) => {
							child.once('exit', () => res());
							child.disconnect();
							setTimeout(() => child.kill('SIGKILL'), 3000).unref();
						});
					},
				});
				return;
			}
			const p = pending.get(msg.id);
			if (!p) return;
			pending.delete(msg.id);
			if (msg.error) p.reject(new Error(`sandbox: ${msg.error}`));
			else p.resolve(msg.result);
		});
	});
}

module.exports = { startSandboxProcess };
