'use strict';
/*
 * Long-running n8n processes for tests: `n8n start` (main), `n8n worker` (queue mode), `n8n webhook`, with their
 * environment, health checks, the owner account, workflow activation and production webhooks; and a small process
 * registry that stops exactly what it started (process groups), also on failure and on Ctrl-C / SIGTERM.
 *
 * Used by test/queue/run.js (npm run test:queue: main + two workers in queue mode) and meant for the
 * webhook-trigger end-to-end tests (n8n start with an active workflow). Plain Node (>= 18), no dependency:
 * n8n itself comes from test/lib/n8n-env.js (`ensureN8n()` gives `p` = { nodeBin, n8nBin, ... }).
 *
 *   const env = require('../lib/n8n-env');       // from a suite's folder, test/<suite>/
 *   const srv = require('../lib/n8n-server');
 *
 *   const procs = new srv.Processes({ log: env.log });
 *   procs.handleSignals({ beforeExit: async () => {} });  // Ctrl-C, SIGTERM, SIGHUP: stop all, exit 130/143/129
 *   try {
 *     const p = await env.ensureN8n();
 *     srv.snapshotPackage(env.REPO_ROOT, '/tmp/x/package');          // the built package, copied (optional)
 *     const userFolder = env.prepareUserFolder('/tmp/x/main', { repoRoot: '/tmp/x/package' });
 *     const e = env.n8nEnv(userFolder, { ...moreEnv });             // queue mode: ...srv.queueEnv({ redis, postgres })
 *     await srv.runN8nCommand({ procs, p, env: e, args: ['import:workflow', '--input=wf.json'] });
 *     const main = await srv.startN8n({ procs, p, role: 'main', env: e, logFile: '/tmp/x/main.log',
 *                                       expectPackage: env.PACKAGE_NAME });   // resolves once ready
 *     const { cookie } = await srv.setupOwner(main.baseUrl);         // owner account (first start) + login cookie
 *     await srv.activateWorkflow(main.baseUrl, cookie, 'myWorkflowId');       // publish, as the editor does
 *     await srv.waitForWebhook(main.baseUrl, 'my-path', { method: 'POST' });  // production webhook registered
 *     const r = await srv.request('POST', `${main.baseUrl}/webhook/my-path`, { body: { a: 1 } });
 *     const executions = await srv.listExecutions(main.baseUrl, cookie, { workflowId: 'myWorkflowId' });
 *   } finally {
 *     await procs.stopAll();          // each process group: SIGTERM (Postgres SIGINT), SIGKILL after the grace period
 *   }
 *
 * Exports:
 *   Processes            registry: spawn(name, cmd, args, {env, cwd, logFile, uid, gid, stopSignal, stopTimeoutMs,
 *                        stopLast})
 *                        → Proc { name, pid, exited, running(), stop(), kill(sig), tail(n), logText() };
 *                        stopAll(reason); handleSignals({ beforeExit }); list; signalled
 *   startN8n(opts)       an n8n process: role 'main' | 'worker' | 'webhook', own ports, waits for readiness
 *                        → { name, role, pid, proc, env, port, baseUrl, healthUrl, ports, readyMs, ready(), stop(),
 *                        tail(), logText() }
 *   waitForN8n(n8n)      readiness of a process started with wait: false
 *   runN8nCommand(opts)  one CLI command (import:*, publish:workflow, ...) → { code, output, ms }
 *   queueEnv(services)   the variables of queue mode (Redis, Postgres, binary data)
 *   snapshotPackage(repo, dest)  the built package copied, its listed files checked
 *   setupOwner(baseUrl, owner?), login(baseUrl, owner?) → { cookie, owner }; DEFAULT_OWNER
 *   getWorkflow, activateWorkflow, deactivateWorkflow (baseUrl, cookie, id)
 *   publicationStatus(baseUrl, cookie, id), waitForPublication(baseUrl, cookie, id, { published, timeoutMs, proc }):
 *                        publishing and unpublishing take effect asynchronously in 2.41.1 (see there)
 *   waitForWebhook(baseUrl, path, { method, timeoutMs, proc }) → { url, waitedMs }
 *   listExecutions(baseUrl, cookie, { workflowId, max }) → [{ id, status, ... }]
 *   getExecution(baseUrl, cookie, id, { n8nBin }) → { id, status, mode, finished, data }: one execution with its run
 *                        data (n8n stores it `flatted`; n8nBin = p.n8nBin finds n8n's own copy of that module)
 *   request(method, url, { body, cookie, headers, timeoutMs, agent }) → { status, headers, text, json, ms }
 *   n8nRequest(method, url, options, { timeoutMs, proc }): request() to n8n, made again while n8n answers 503 or
 *                        refuses or resets the connection (up to UNAVAILABLE_TIMEOUT_MS); every REST call below uses it
 *   waitFor(what, fn, { timeoutMs, intervalMs, proc }), freePort(), isListening(port), sleep(ms), tailFile(file, n)
 *
 * Timeouts: generous on purpose (n8n's start 10 to 60 s, a REST answer several seconds, publishing up to a minute on a
 * 2-core machine with a load of 8 to 16). They only bound a wait for something that happens anyway; a passing run
 * never waits for one. Every wait polls for the state it needs instead of sleeping a fixed time.
 *
 * What n8n 2.41.1 does that these helpers account for:
 * - `/healthz` answers before the REST API is mounted (until then every path gets the editor's HTML): startN8n()
 *   waits for `/rest/settings` to answer 200 with JSON on a main instance, and for `/healthz/readiness` (database
 *   connected and migrated, Redis connected, queue consumer set up) on a worker (QUEUE_HEALTH_CHECK_ACTIVE=true).
 * - n8n 2.x "publishes" a workflow: `POST /rest/workflows/:id/activate` with the `versionId` to publish
 *   (`active: true` in an imported file is ignored). The CLI equivalent `n8n publish:workflow --id=<id>` only writes
 *   the database and takes effect at the next start.
 * - Production webhooks are looked up in the database table `webhook_entity`; after a start n8n adds the webhooks
 *   of published workflows some seconds after the REST API is up. waitForWebhook() polls with an `OPTIONS` request
 *   carrying an `Origin` header: n8n answers it from the same lookup (`Access-Control-Allow-Methods` lists the
 *   registered methods of the path) without starting an execution.
 * - Every n8n process starts a task broker (N8N_RUNNERS_BROKER_PORT, default 5679) and a task-runner child in its
 *   process group; a worker with health checks listens on QUEUE_HEALTH_CHECK_PORT (default 5678, the same as
 *   N8N_PORT): startN8n() gives each process free ports of its own unless the env sets them.
 * - Once ready, n8n can still answer 503 for a while: "Database is not ready!" whenever a ping of its database times
 *   out (it reconnects by itself; seen at a load of 8 to 9 on 2 cores). Every REST call here goes through
 *   n8nRequest(), which makes the call again until n8n serves it.
 */

const fs = require('fs');
const os = require('os');
const path = require('path');
const net = require('net');
const http = require('http');
const { spawn } = require('child_process');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A TCP port that is free now on 127.0.0.1 (the OS picks it). */
function freePort() {
	return new Promise((resolve, reject) => {
		const srv = net.createServer();
		srv.once('error', reject);
		srv.listen(0, '127.0.0.1', () => {
			const { port } = srv.address();
			srv.close(() => resolve(port));
		});
	});
}

/** Whether something accepts TCP connections on host:port now. */
function isListening(port, host = '127.0.0.1') {
	return new Promise((resolve) => {
		const s = net.connect({ port, host });
		s.setTimeout(2000, () => {
			s.destroy();
			resolve(false);
		});
		s.once('connect', () => {
			s.destroy();
			resolve(true);
		});
		s.once('error', () => resolve(false));
	});
}

/** Last `n` lines of a file ('' when it cannot be read). */
function tailFile(file, n = 40) {
	try {
		return fs.readFileSync(file, 'utf8').split('\n').slice(-n).join('\n');
	} catch {
		return '';
	}
}

// ---------------------------------------------------------------------------------------------------------
// Processes

/**
 * A registry of long-running children, each in its own process group (so stopping one also stops what it started,
 * such as n8n's task runner). Only the processes started through it are ever signalled, by their group id.
 */
class Processes {
	/** @param {{ log?: (msg: string) => void }} [options] */
	constructor({ log = (m) => process.stderr.write(`${m}\n`) } = {}) {
		this.log = log;
		/** @type {Proc[]} */
		this.list = [];
		this.stopping = null;
		this.signalled = null;
		// last resort when the runner dies without stopAll() (an uncaught exception, process.exit()):
		// SIGKILL to every group still running. 'exit' handlers must be synchronous.
		this.onExit = () => {
			for (const pr of this.list) if (pr.running()) pr.kill('SIGKILL');
		};
		process.on('exit', this.onExit);
	}

	/**
	 * Starts `cmd args` detached (own process group), stdout and stderr appended to `logFile` (or ignored).
	 * @param {string} name
	 * @param {string} cmd
	 * @param {string[]} args
	 * @param {{ env?: NodeJS.ProcessEnv, cwd?: string, logFile?: string, uid?: number, gid?: number,
	 *           stopSignal?: NodeJS.Signals, stopTimeoutMs?: number, stopLast?: boolean }} [options]
	 *   stopSignal: what stop() sends to the group first (default SIGTERM; Postgres wants SIGINT, its "fast" shutdown);
	 *   stopTimeoutMs: how long stop() waits before SIGKILL (default 20 s);
	 *   stopLast: stopAll() stops it after all the others (a database or queue they use).
	 * @returns {Proc}
	 */
	spawn(name, cmd, args, options = {}) {
		if (this.stopping) throw new Error(`not starting ${name}: stopping`);
		const {
			env,
			cwd,
			logFile,
			uid,
			gid,
			stopSignal = 'SIGTERM',
			stopTimeoutMs = 20000,
			stopLast = false,
		} = options;
		const out = logFile ? fs.openSync(logFile, 'a') : 'ignore';
		let child;
		try {
			child = spawn(cmd, args, {
				env: env || process.env,
				cwd,
				stdio: ['ignore', out, out],
				detached: true,
				...(uid !== undefined ? { uid } : {}),
				...(gid !== undefined ? { gid } : {}),
			});
		} finally {
			if (typeof out === 'number') fs.closeSync(out);
		}
		const pr = new Proc(this, name, child, { logFile, stopSignal, stopTimeoutMs });
		pr.stopLast = stopLast;
		this.list.push(pr);
		return pr;
	}

	/**
	 * Stops every process still running: all at once, except those spawned with `stopLast` (the databases the
	 * others use), which are stopped once the others have exited. Safe to call more than once.
	 */
	stopAll(reason) {
		if (this.stopping) return this.stopping;
		this.stopping = (async () => {
			const t = Date.now();
			if (reason) this.log(reason);
			await Promise.all(this.list.filter((pr) => !pr.stopLast).map((pr) => pr.stop()));
			await Promise.all(this.list.filter((pr) => pr.stopLast).map((pr) => pr.stop()));
			this.stoppedMs = Date.now() - t;
		})();
		return this.stopping;
	}

	/**
	 * Ctrl-C, SIGTERM, SIGHUP: stopAll(), then `beforeExit(signal)` (optional, async: close servers, remove scratch
	 * folders), then exit with 128 + the signal number.
	 */
	handleSignals({ beforeExit } = {}) {
		const codes = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };
		for (const sig of Object.keys(codes)) {
			process.on(sig, () => {
				if (this.signalled) return; // a second Ctrl-C while stopping: keep stopping
				this.signalled = sig;
				this.stopAll(`${sig}: stopping everything that was started`)
					.then(() => beforeExit && beforeExit(sig))
					.catch((e) => this.log(`while stopping: ${e && e.message}`))
					.finally(() => process.exit(codes[sig]));
			});
		}
	}
}

/** One started process. */
class Proc {
	constructor(owner, name, child, { logFile, stopSignal, stopTimeoutMs }) {
		this.owner = owner;
		this.name = name;
		this.child = child;
		this.pid = child.pid;
		this.logFile = logFile;
		this.stopSignal = stopSignal;
		this.stopTimeoutMs = stopTimeoutMs;
		this.startedAt = Date.now();
		this.stopRequested = false;
		this.done = false;
		/** @type {Promise<number | string>} exit code, or the signal's name */
		this.exited = new Promise((resolve) => {
			child.once('exit', (code, sig) => {
				// what it started and left behind (n8n's task runner) is still in its group, which therefore still
				// exists: kill it now, then never signal this group id again (it could be reused once empty)
				this.kill('SIGKILL');
				this.done = true;
				resolve(code === null ? sig : code);
			});
			child.once('error', (e) => {
				this.spawnError = e;
				this.done = true;
				resolve('spawn-error');
			});
		});
		this.exited.then(() => {
			this.exitedAt = Date.now();
		});
	}

	running() {
		return (
			this.pid !== undefined &&
			this.child.exitCode === null &&
			this.child.signalCode === null &&
			!this.spawnError
		);
	}

	/** Sends a signal to the process group (the process and what it started); nothing once it has exited. */
	kill(signal) {
		if (this.pid === undefined || this.done) return;
		try {
			process.kill(-this.pid, signal);
		} catch {}
	}

	/**
	 * Stops the group: stopSignal, then SIGKILL after stopTimeoutMs. When the process exits, whatever is left in its
	 * group is killed (see the constructor). Resolves once it has exited.
	 */
	async stop({ timeoutMs = this.stopTimeoutMs, signal = this.stopSignal } = {}) {
		this.stopRequested = true;
		if (!this.running()) return;
		this.kill(signal);
		const done = await Promise.race([
			this.exited.then(() => true),
			sleep(timeoutMs).then(() => false),
		]);
		if (!done) {
			this.owner.log(
				`${this.name} (pid ${this.pid}) did not stop within ${timeoutMs / 1000} s: SIGKILL`,
			);
			this.kill('SIGKILL');
			await Promise.race([this.exited, sleep(5000)]);
		}
	}

	tail(n = 40) {
		return this.logFile ? tailFile(this.logFile, n) : '';
	}

	logText() {
		try {
			return this.logFile ? fs.readFileSync(this.logFile, 'utf8') : '';
		} catch {
			return '';
		}
	}
}

/**
 * Polls `fn` every `intervalMs` until it returns a truthy value (which is returned). Exceptions count as "not yet".
 * Fails when `timeoutMs` passes, or at once when `proc` (a Proc, optional) exits meanwhile.
 */
async function waitFor(what, fn, { timeoutMs = 180000, intervalMs = 300, proc } = {}) {
	const t0 = Date.now();
	let lastError;
	for (;;) {
		if (proc && !proc.running()) {
			throw new Error(
				`${proc.name} exited (${await proc.exited}) while waiting for ${what}. Last lines of its log:\n${proc.tail(30)}`,
			);
		}
		try {
			const v = await fn();
			if (v) return v;
		} catch (e) {
			lastError = e;
		}
		if (Date.now() - t0 > timeoutMs) {
			const tail = proc ? `\nLast lines of ${proc.name}'s log:\n${proc.tail(30)}` : '';
			throw new Error(
				`timed out after ${timeoutMs / 1000} s waiting for ${what}${lastError ? ` (last error: ${lastError.message})` : ''}${tail}`,
			);
		}
		await sleep(intervalMs);
	}
}

// ---------------------------------------------------------------------------------------------------------
// HTTP

const BROWSER_ID = 'rms-n8n-server-script';

/**
 * Minimal HTTP/1.1 client. Resolves { status, headers, text, json, ms }; rejects only on network errors and timeouts.
 * body: an object (sent as JSON) or a string/Buffer (sent as is). cookie: a Cookie header value.
 */
function request(method, url, { body, cookie, headers = {}, timeoutMs = 120000, agent } = {}) {
	return new Promise((resolve, reject) => {
		const started = Date.now();
		const data =
			body === undefined
				? undefined
				: Buffer.isBuffer(body) || typeof body === 'string'
					? Buffer.from(body)
					: Buffer.from(JSON.stringify(body));
		const req = http.request(
			url,
			{
				method,
				agent,
				headers: {
					accept: 'application/json',
					...(data ? { 'content-type': 'application/json', 'content-length': data.length } : {}),
					...(cookie ? { cookie } : {}),
					// n8n binds its auth cookie to this header (validateBrowserId): send the same one with every call
					'browser-id': BROWSER_ID,
					...headers,
				},
				timeout: timeoutMs,
			},
			(res) => {
				const chunks = [];
				res.on('data', (c) => chunks.push(c));
				res.on('end', () => {
					const text = Buffer.concat(chunks).toString();
					let json;
					try {
						json = JSON.parse(text);
					} catch {}
					resolve({
						status: res.statusCode,
						headers: res.headers,
						text,
						json,
						ms: Date.now() - started,
					});
				});
				res.on('error', reject);
			},
		);
		req.on('timeout', () =>
			req.destroy(new Error(`timeout after ${timeoutMs} ms: ${method} ${url}`)),
		);
		req.on('error', reject);
		if (data) req.write(data);
		req.end();
	});
}

/**
 * How long a call to n8n waits out n8n not serving it (see n8nRequest). As generous as the other waits of this file,
 * for a 2-core machine at a load of 8 to 16: n8n lost its database for a moment there ("Database ping failed (1):
 * Database connection timed out") and answered 503 until it had reconnected. A passing run never waits this long.
 */
const UNAVAILABLE_TIMEOUT_MS = 180000;

/** Connection errors of a request that never reached n8n's routes: refused, or reset before an answer. */
const NOT_SERVED = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE']);

/**
 * request() to n8n (its REST API, its webhooks), made again while n8n does not serve it: a 503 (n8n answers every
 * path but /healthz with 503 "Database is not ready!" while its database connection is down, until it has
 * reconnected by itself), a refused or reset connection. Resolves n8n's first other answer, whatever its
 * status (the caller judges it); rejects with the last 503 or connection error after `timeoutMs`, and at once on any
 * other error or when `proc` (the n8n Proc, optional) exits.
 */
async function n8nRequest(
	method,
	url,
	options = {},
	{ timeoutMs = UNAVAILABLE_TIMEOUT_MS, proc } = {},
) {
	const outcome = await waitFor(
		`n8n to serve ${method} ${url.split('?')[0]}`,
		async () => {
			let answer;
			try {
				answer = await request(method, url, options);
			} catch (error) {
				if (NOT_SERVED.has(error.code)) throw error;
				return { error };
			}
			if (answer.status === 503) throw new Error(`503 ${answer.text.slice(0, 300)}`);
			return { answer };
		},
		{ timeoutMs, intervalMs: 500, proc },
	);
	if (outcome.error) throw outcome.error;
	return outcome.answer;
}

// ---------------------------------------------------------------------------------------------------------
// The package under test

/**
 * Copies the built package (package.json and dist/) of `repoRoot` into `dest`, with `dest/node_modules` a symlink
 * to the repository's node_modules (n8n-workflow, as npm installs the peer dependency next to a community package).
 * Link n8n user folders to the copy (env.prepareUserFolder(folder, { repoRoot: dest })): a rebuild of dist/ while
 * n8n processes start (another terminal, npm run build) then cannot leave one process without the node.
 * Throws when a file that package.json lists under "n8n" is missing (an incomplete build).
 * Returns { dest, nodes, credentials } (the files listed).
 */
function snapshotPackage(repoRoot, dest) {
	const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
	fs.mkdirSync(dest, { recursive: true });
	fs.copyFileSync(path.join(repoRoot, 'package.json'), path.join(dest, 'package.json'));
	fs.cpSync(path.join(repoRoot, 'dist'), path.join(dest, 'dist'), { recursive: true });
	fs.symlinkSync(path.join(repoRoot, 'node_modules'), path.join(dest, 'node_modules'), 'dir');
	const listed = [
		...((pkg.n8n && pkg.n8n.nodes) || []),
		...((pkg.n8n && pkg.n8n.credentials) || []),
	];
	const missing = listed.filter((f) => !fs.existsSync(path.join(dest, f)));
	if (missing.length)
		throw new Error(
			`the build of ${repoRoot} is incomplete: ${missing.join(', ')} missing (listed in package.json "n8n")`,
		);
	return {
		dest,
		nodes: (pkg.n8n && pkg.n8n.nodes) || [],
		credentials: (pkg.n8n && pkg.n8n.credentials) || [],
	};
}

// ---------------------------------------------------------------------------------------------------------
// n8n processes

/**
 * Environment for one n8n process of a queue-mode setup (add it to env.n8nEnv(userFolder, ...)):
 *   EXECUTIONS_MODE=queue                       main enqueues executions in Redis (Bull), workers take them
 *   QUEUE_BULL_REDIS_HOST / _PORT               the Redis every process shares
 *   DB_TYPE=postgresdb, DB_POSTGRESDB_*         the database every process shares (SQLite cannot be shared)
 *   N8N_DEFAULT_BINARY_DATA_MODE=database       binary data in the shared database: 'filesystem' is per machine
 *                                               (2.41.1 defaults to 'database' in queue mode; set explicitly here)
 * N8N_ENCRYPTION_KEY must be the same in every process (env.n8nEnv() sets one), or the workers cannot decrypt
 * the credentials the main instance stored.
 * @param {{ redis: { host: string, port: number }, postgres: { host: string, port: number, user: string,
 *           password: string, database: string }, binaryDataMode?: string }} services
 */
function queueEnv({ redis, postgres, binaryDataMode = 'database' }) {
	return {
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_REDIS_HOST: redis.host,
		QUEUE_BULL_REDIS_PORT: String(redis.port),
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: postgres.host,
		DB_POSTGRESDB_PORT: String(postgres.port),
		DB_POSTGRESDB_USER: postgres.user,
		DB_POSTGRESDB_PASSWORD: postgres.password,
		DB_POSTGRESDB_DATABASE: postgres.database,
		N8N_DEFAULT_BINARY_DATA_MODE: binaryDataMode,
	};
}

/**
 * Starts one n8n process and waits until it is ready.
 *   role 'main'    `n8n start`: N8N_PORT (free port unless set), listening on 127.0.0.1; ready when /healthz and
 *                  the REST API (/rest/settings) answer.
 *   role 'worker'  `n8n worker`: QUEUE_HEALTH_CHECK_ACTIVE=true on QUEUE_HEALTH_CHECK_PORT (free port unless set),
 *                  N8N_WORKER_SERVER_ADDRESS=127.0.0.1; ready when /healthz/readiness answers 200.
 *   role 'webhook' `n8n webhook`: like main (N8N_PORT), ready when /healthz answers.
 * expectPackage: a community package name; readiness fails when the process logged that it could not load it.
 * Every role gets its own N8N_RUNNERS_BROKER_PORT unless the env sets one.
 * @param {{ procs: Processes, p: { nodeBin: string, n8nBin: string }, role: 'main'|'worker'|'webhook',
 *           env: NodeJS.ProcessEnv, logFile: string, name?: string, args?: string[], timeoutMs?: number,
 *           wait?: boolean, expectPackage?: string }} options
 *   args: extra CLI arguments (e.g. ['--concurrency=5'] for a worker); wait: false returns before readiness
 *   (then call n8n.ready()).
 * @returns {Promise<N8nProcess>} { name, role, pid, proc, env, port, baseUrl, healthUrl, logFile, ready(), stop(), tail() }
 */
async function startN8n({
	procs,
	p,
	role,
	env,
	logFile,
	name = role,
	args = [],
	timeoutMs = 480000,
	wait = true,
	expectPackage,
}) {
	const command = { main: 'start', worker: 'worker', webhook: 'webhook' }[role];
	if (!command) throw new Error(`unknown n8n role "${role}"`);
	const e = { ...env };
	if (!e.N8N_RUNNERS_BROKER_PORT) e.N8N_RUNNERS_BROKER_PORT = String(await freePort());
	if (!e.N8N_LOG_OUTPUT) e.N8N_LOG_OUTPUT = 'console';
	let port;
	let healthUrl;
	let baseUrl;
	if (role === 'worker') {
		e.QUEUE_HEALTH_CHECK_ACTIVE = 'true';
		if (!e.QUEUE_HEALTH_CHECK_PORT) e.QUEUE_HEALTH_CHECK_PORT = String(await freePort());
		if (!e.N8N_WORKER_SERVER_ADDRESS) e.N8N_WORKER_SERVER_ADDRESS = '127.0.0.1';
		port = Number(e.QUEUE_HEALTH_CHECK_PORT);
		baseUrl = `http://127.0.0.1:${port}`;
		healthUrl = `${baseUrl}/healthz/readiness`;
	} else {
		if (!e.N8N_PORT) e.N8N_PORT = String(await freePort());
		if (!e.N8N_LISTEN_ADDRESS) e.N8N_LISTEN_ADDRESS = '127.0.0.1';
		port = Number(e.N8N_PORT);
		e.N8N_HOST = e.N8N_HOST || '127.0.0.1';
		e.N8N_PROTOCOL = e.N8N_PROTOCOL || 'http';
		baseUrl = `http://127.0.0.1:${port}`;
		e.N8N_EDITOR_BASE_URL = e.N8N_EDITOR_BASE_URL || baseUrl;
		e.WEBHOOK_URL = e.WEBHOOK_URL || `${baseUrl}/`;
		healthUrl = `${baseUrl}/healthz`;
	}
	const proc = procs.spawn(name, p.nodeBin, [p.n8nBin, command, ...args], {
		env: e,
		cwd: e.N8N_USER_FOLDER || process.cwd(),
		logFile,
		// n8n finishes running executions on SIGTERM for up to N8N_GRACEFUL_SHUTDOWN_TIMEOUT (default 30 s)
		stopTimeoutMs: (Number(e.N8N_GRACEFUL_SHUTDOWN_TIMEOUT) || 30) * 1000 + 10000,
	});
	const n8n = {
		name,
		role,
		pid: proc.pid,
		proc,
		env: e,
		port,
		baseUrl,
		healthUrl,
		logFile,
		/** Every TCP port this process listens on (its HTTP server or health server, its task broker). */
		ports: [port, Number(e.N8N_RUNNERS_BROKER_PORT)],
		/** Resolves once the process is ready (see above); rejects when it exits or the timeout passes. */
		ready: () => waitForN8n(n8n, { timeoutMs, expectPackage }),
		stop: (opts) => proc.stop(opts),
		tail: (n) => proc.tail(n),
		logText: () => proc.logText(),
	};
	if (wait) await n8n.ready();
	return n8n;
}

/**
 * Runs one n8n CLI command to its end (import:credentials, import:workflow, publish:workflow, ...) as a process of
 * `procs`, so that stopAll() and the signal handlers stop it too. Output goes to `logFile` (default: none kept
 * but the last 64 KiB in memory). Resolves { code, output, ms }; never rejects on an exit code.
 */
async function runN8nCommand({
	procs,
	p,
	env,
	args,
	logFile,
	name = `n8n ${args[0]}`,
	timeoutMs = 5 * 60 * 1000,
}) {
	const e = { ...env };
	if (!e.N8N_RUNNERS_BROKER_PORT) e.N8N_RUNNERS_BROKER_PORT = String(await freePort());
	const file = logFile || path.join(os.tmpdir(), `rms-n8n-cmd-${process.pid}-${Date.now()}.log`);
	const proc = procs.spawn(name, p.nodeBin, [p.n8nBin, ...args], {
		env: e,
		cwd: e.N8N_USER_FOLDER || process.cwd(),
		logFile: file,
	});
	const timer = setTimeout(() => proc.stop({ timeoutMs: 5000 }), timeoutMs);
	const code = await proc.exited;
	clearTimeout(timer);
	const output = proc.logText().slice(-65536);
	if (!logFile) fs.rmSync(file, { force: true });
	return { code, output, ms: Date.now() - proc.startedAt };
}

/**
 * Waits until an n8n process from startN8n() is ready. expectPackage: the name of a community package that must
 * have loaded: n8n starts without a package it failed to load (it only logs `Failed to load package "<name>"`,
 * and its executions then fail with "Unrecognized node type").
 */
async function waitForN8n(n8n, { timeoutMs = 480000, expectPackage } = {}) {
	const t0 = Date.now();
	if (n8n.role === 'worker') {
		await waitFor(
			`${n8n.name} ${n8n.healthUrl}`,
			async () => (await request('GET', n8n.healthUrl, { timeoutMs: 5000 })).status === 200,
			{
				timeoutMs,
				proc: n8n.proc,
			},
		);
	} else {
		await waitFor(
			`${n8n.name} ${n8n.healthUrl}`,
			async () => (await request('GET', n8n.healthUrl, { timeoutMs: 5000 })).status === 200,
			{
				timeoutMs,
				proc: n8n.proc,
			},
		);
		if (n8n.role === 'main') {
			// /healthz answers before the REST API is mounted (until then every path gets the editor's HTML)
			await waitFor(
				`${n8n.name} REST API`,
				async () => {
					const settings = await request('GET', `${n8n.baseUrl}/rest/settings`, {
						timeoutMs: 5000,
					});
					return settings.status === 200 && settings.json;
				},
				{
					timeoutMs: Math.max(10000, timeoutMs - (Date.now() - t0)),
					proc: n8n.proc,
				},
			);
		}
	}
	n8n.readyMs = Date.now() - n8n.proc.startedAt;
	if (expectPackage) {
		const text = n8n.logText();
		const at = text.indexOf(`Failed to load package "${expectPackage}"`);
		if (at >= 0)
			throw new Error(
				`${n8n.name} started without the package ${expectPackage}:\n${text.slice(at, at + 1500)}`,
			);
	}
	return n8n;
}

// ---------------------------------------------------------------------------------------------------------
// REST API: owner, login, workflows, executions

const DEFAULT_OWNER = {
	email: 'owner@example.com',
	firstName: 'Test',
	lastName: 'Owner',
	password: 'Test-Owner-Pass-1',
};

/** The Cookie header value of a response's Set-Cookie headers. */
function cookieOf(res) {
	return (res.headers['set-cookie'] || []).map((c) => c.split(';')[0]).join('; ');
}

/** Logs in; resolves { cookie }. */
async function login(baseUrl, owner = DEFAULT_OWNER) {
	const r = await n8nRequest('POST', `${baseUrl}/rest/login`, {
		body: { emailOrLdapLoginId: owner.email, password: owner.password },
	});
	if (r.status !== 200)
		throw new Error(`n8n login as ${owner.email} failed: ${r.status} ${r.text.slice(0, 300)}`);
	return { cookie: cookieOf(r), owner };
}

/**
 * Creates the owner account when n8n asks for it (first start on a database), then logs in. Resolves { cookie, owner }.
 * owner: { email, firstName, lastName, password } (the password needs 8+ characters, a digit and a capital letter).
 */
async function setupOwner(baseUrl, owner = DEFAULT_OWNER) {
	const settings = await n8nRequest('GET', `${baseUrl}/rest/settings`);
	const um = settings.json && settings.json.data && settings.json.data.userManagement;
	if (um && um.showSetupOnFirstLoad) {
		const r = await n8nRequest('POST', `${baseUrl}/rest/owner/setup`, { body: owner });
		if (r.status !== 200)
			throw new Error(`n8n owner setup failed: ${r.status} ${r.text.slice(0, 300)}`);
	}
	return login(baseUrl, owner);
}

/** GET /rest/workflows/:id → the workflow (data). */
async function getWorkflow(baseUrl, cookie, id) {
	const r = await n8nRequest('GET', `${baseUrl}/rest/workflows/${encodeURIComponent(id)}`, {
		cookie,
	});
	if (r.status !== 200 || !r.json)
		throw new Error(`GET workflow ${id}: ${r.status} ${r.text.slice(0, 300)}`);
	return r.json.data || r.json;
}

/**
 * Publishes ("activates") a workflow as the editor does: POST /rest/workflows/:id/activate with its current versionId.
 * Its triggers and production webhooks are then set up by the main instance. Resolves the workflow returned.
 */
async function activateWorkflow(baseUrl, cookie, id) {
	const wf = await getWorkflow(baseUrl, cookie, id);
	const r = await n8nRequest(
		'POST',
		`${baseUrl}/rest/workflows/${encodeURIComponent(id)}/activate`,
		{
			cookie,
			body: { versionId: wf.versionId },
		},
	);
	if (r.status !== 200)
		throw new Error(`activating workflow ${id} failed: ${r.status} ${r.text.slice(0, 500)}`);
	return (r.json && r.json.data) || r.json;
}

/** Unpublishes a workflow: POST /rest/workflows/:id/deactivate. */
async function deactivateWorkflow(baseUrl, cookie, id) {
	const r = await n8nRequest(
		'POST',
		`${baseUrl}/rest/workflows/${encodeURIComponent(id)}/deactivate`,
		{ cookie, body: {} },
	);
	if (r.status !== 200)
		throw new Error(`deactivating workflow ${id} failed: ${r.status} ${r.text.slice(0, 500)}`);
	return (r.json && r.json.data) || r.json;
}

/**
 * GET /rest/workflows/:id/publication-status (n8n 2.41.1): publishing is carried out asynchronously by the main
 * instance (the "workflow publication service": an outbox in the database, drained on a wake-up through Redis or
 * every 15 s), so the activate and deactivate calls return before the triggers are set up or removed.
 * Resolves { status: 'in_progress' | 'not_published' | 'published' | 'partial' | 'failed', liveVersionId,
 * pendingVersionId, triggers: [{ nodeId, status, errorMessage }] }.
 */
async function publicationStatus(baseUrl, cookie, id) {
	const r = await n8nRequest(
		'GET',
		`${baseUrl}/rest/workflows/${encodeURIComponent(id)}/publication-status`,
		{ cookie },
	);
	if (r.status !== 200 || !r.json)
		throw new Error(`GET publication-status of ${id}: ${r.status} ${r.text.slice(0, 300)}`);
	return r.json.data || r.json;
}

/**
 * Waits until a workflow's triggers are set up (`published: true`, status 'published') or removed (`published:
 * false`, status 'not_published'); fails at once on 'failed' or 'partial', with the triggers' error messages.
 * Resolves the status and how long it took.
 */
async function waitForPublication(
	baseUrl,
	cookie,
	id,
	{ published = true, timeoutMs = 180000, proc } = {},
) {
	const t0 = Date.now();
	const wanted = published ? 'published' : 'not_published';
	let last;
	await waitFor(
		`workflow ${id} ${wanted}`,
		async () => {
			try {
				last = await publicationStatus(baseUrl, cookie, id);
			} catch (e) {
				return false;
			}
			if (published && (last.status === 'failed' || last.status === 'partial')) return true;
			return last.status === wanted;
		},
		{ timeoutMs, intervalMs: 200, proc },
	);
	if (last.status !== wanted) {
		const why = (last.triggers || [])
			.map((t) => `${t.nodeId}: ${t.status}${t.errorMessage ? ` (${t.errorMessage})` : ''}`)
			.join('; ');
		throw new Error(`publishing workflow ${id} ended "${last.status}": ${why}`);
	}
	return { ...last, waitedMs: Date.now() - t0 };
}

/**
 * Waits until the production webhook `path` (as set in the Webhook node; `/webhook/` is added) answers `method`.
 * Polls with OPTIONS + Origin, which n8n answers from its webhook registry without running anything.
 */
async function waitForWebhook(baseUrl, path, { method = 'POST', timeoutMs = 180000, proc } = {}) {
	const url = `${baseUrl}/webhook/${path.replace(/^\/+/, '')}`;
	const t0 = Date.now();
	await waitFor(
		`production webhook ${method} ${url}`,
		async () => {
			const r = await request('OPTIONS', url, { headers: { origin: baseUrl }, timeoutMs: 5000 });
			const allowed = String(r.headers['access-control-allow-methods'] || '')
				.split(',')
				.map((s) => s.trim().toUpperCase());
			return allowed.includes(method.toUpperCase());
		},
		{ timeoutMs, intervalMs: 250, proc },
	);
	return { url, waitedMs: Date.now() - t0 };
}

/**
 * Executions from the REST API, newest first, all pages (n8n 2.41.1 serves at most 100 per page and pages with
 * the `cursor` it returns as `nextCursor`; the first page also lists the running ones):
 * [{ id, workflowId, status, mode, startedAt, stoppedAt, ... }].
 * status: 'success' | 'error' | 'crashed' | 'running' | 'new' | 'waiting' | 'canceled' | 'unknown'.
 * workflowId: only that workflow's; max: stop after that many.
 */
async function listExecutions(baseUrl, cookie, { workflowId, max = 10000 } = {}) {
	const filter = encodeURIComponent(JSON.stringify(workflowId ? { workflowId } : {}));
	const byId = new Map();
	let cursor;
	for (;;) {
		const url = `${baseUrl}/rest/executions?filter=${filter}&limit=100${cursor ? `&cursor=${cursor}` : ''}`;
		const r = await n8nRequest('GET', url, { cookie });
		if (r.status !== 200 || !r.json)
			throw new Error(`GET /rest/executions: ${r.status} ${r.text.slice(0, 300)}`);
		const d = r.json.data || r.json;
		for (const e of d.results || []) if (!byId.has(String(e.id))) byId.set(String(e.id), e);
		cursor = d.nextCursor;
		if (!cursor || byId.size >= max) break;
	}
	return [...byId.values()];
}

/**
 * One execution as n8n recorded it: GET /rest/executions/:id, its run data parsed with the `flatted` module of the
 * n8n install (`n8nBin`: p.n8nBin of ensureN8n()). Resolves { id, status, mode, finished, startedAt, stoppedAt,
 * data: { resultData: { runData, error, lastNodeExecuted }, ... } }: `data.resultData.runData[node][run].data.main`
 * holds each output's items, as `n8n execute` prints them.
 */
async function getExecution(baseUrl, cookie, id, { n8nBin } = {}) {
	const r = await n8nRequest('GET', `${baseUrl}/rest/executions/${encodeURIComponent(id)}`, {
		cookie,
	});
	if (r.status !== 200 || !r.json)
		throw new Error(`GET /rest/executions/${id}: ${r.status} ${r.text.slice(0, 300)}`);
	const e = r.json.data || r.json;
	let data = e.data || {};
	if (typeof data === 'string') {
		if (!n8nBin)
			throw new Error(
				'getExecution: n8nBin is needed to parse the run data (n8n stores it with `flatted`)',
			);
		data = require(path.resolve(n8nBin, '..', '..', '..', 'flatted')).parse(data);
	}
	return {
		id: String(e.id),
		status: e.status,
		mode: e.mode,
		finished: e.finished,
		startedAt: e.startedAt,
		stoppedAt: e.stoppedAt,
		data,
	};
}

module.exports = {
	Processes,
	Proc,
	freePort,
	isListening,
	waitFor,
	sleep,
	tailFile,
	request,
	n8nRequest,
	UNAVAILABLE_TIMEOUT_MS,
	queueEnv,
	startN8n,
	waitForN8n,
	runN8nCommand,
	snapshotPackage,
	DEFAULT_OWNER,
	setupOwner,
	login,
	getWorkflow,
	activateWorkflow,
	deactivateWorkflow,
	publicationStatus,
	waitForPublication,
	waitForWebhook,
	listExecutions,
	getExecution,
};
