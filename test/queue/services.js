'use strict';
/*
 * Redis and Postgres for queue mode, as private instances of Debian's packages: on 127.0.0.1, on free ports, with
 * their data in a scratch folder, started and stopped by the runner (never the system services).
 *
 *   ensureDebianPackages(log)       apt-get install -y redis-server postgresql when their binaries are missing
 *   startRedis({ procs, dir, log }) redis-server --port <free> --bind 127.0.0.1 --dir <dir> (no persistence)
 *   startPostgres({ procs, dir, log })
 *                                   initdb + postgres -D <dir> -p <free> -k <dir> as the user "postgres"
 *                                   (Postgres refuses to run as root), database "n8n", user "n8n" with a password
 */

const fs = require('fs');
const path = require('path');
const crypto = require('crypto');
const { spawn, spawnSync } = require('child_process');
const net = require('net');
const { freePort, waitFor } = require('../lib/n8n-server');

const PACKAGES = ['redis-server', 'postgresql'];
const REDIS_BIN = '/usr/bin/redis-server';

/** The newest /usr/lib/postgresql/<version>/bin that holds postgres and initdb, or undefined. */
function postgresBinDir() {
	const root = '/usr/lib/postgresql';
	let versions = [];
	try {
		versions = fs.readdirSync(root).filter((v) => /^\d+$/.test(v));
	} catch {}
	versions.sort((a, b) => Number(b) - Number(a));
	for (const v of versions) {
		const dir = path.join(root, v, 'bin');
		if (['postgres', 'initdb', 'psql'].every((b) => fs.existsSync(path.join(dir, b)))) return dir;
	}
	return undefined;
}

function missingPackages() {
	const missing = [];
	if (!fs.existsSync(REDIS_BIN)) missing.push('redis-server');
	if (!postgresBinDir()) missing.push('postgresql');
	return missing;
}

/** Runs a command to its end, output collected; resolves { code, out }. */
function runCollect(cmd, args, { env, uid, gid, cwd } = {}) {
	return new Promise((resolve) => {
		let out = '';
		const child = spawn(cmd, args, {
			env: env || process.env,
			cwd,
			stdio: ['ignore', 'pipe', 'pipe'],
			...(uid !== undefined ? { uid, gid } : {}),
		});
		child.stdout.on('data', (d) => (out += d));
		child.stderr.on('data', (d) => (out += d));
		child.on('error', (e) => resolve({ code: -1, out: `${out}\n${e.message}` }));
		child.on('close', (code) => resolve({ code, out }));
	});
}

/**
 * Installs Debian's redis-server and postgresql when their binaries are missing. Needs root and apt-get; waits up
 * to 10 minutes for another dpkg/apt run to finish (DPkg::Lock::Timeout); runs `apt-get update` only when the
 * install fails for lack of package lists. Throws a message that says what to do otherwise.
 */
async function ensureDebianPackages(log) {
	const missing = missingPackages();
	if (!missing.length) return { installed: [] };
	const manual = `Install them yourself (Debian/Ubuntu: apt-get install -y ${missing.join(' ')}) and run again.`;
	if (
		!fs.existsSync('/etc/debian_version') ||
		spawnSync('sh', ['-c', 'command -v apt-get']).status !== 0
	)
		throw new Error(
			`${missing.join(' and ')} missing, and this is not a Debian system with apt-get. ${manual}`,
		);
	if (typeof process.getuid === 'function' && process.getuid() !== 0)
		throw new Error(
			`${missing.join(' and ')} missing, and installing Debian packages needs root (running as uid ${process.getuid()}). ${manual}`,
		);
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	const install = () =>
		runCollect(
			'apt-get',
			['install', '-y', '--no-install-recommends', '-o', 'DPkg::Lock::Timeout=600', ...missing],
			{ env },
		);
	log(`apt-get install -y ${missing.join(' ')} (may wait for another apt/dpkg run to finish)`);
	let r = await install();
	if (
		r.code !== 0 &&
		/Unable to locate package|has no installation candidate|is not available|Failed to fetch|404\s+Not Found/i.test(
			r.out,
		)
	) {
		log('package lists missing or stale: apt-get update');
		const u = await runCollect('apt-get', ['update', '-o', 'DPkg::Lock::Timeout=600'], { env });
		if (u.code !== 0)
			throw new Error(`apt-get update failed (exit ${u.code}):\n${u.out.slice(-3000)}`);
		r = await install();
	}
	if (r.code !== 0)
		throw new Error(
			`apt-get install ${missing.join(' ')} failed (exit ${r.code}):\n${r.out.slice(-3000)}\n${manual}`,
		);
	const still = missingPackages();
	if (still.length)
		throw new Error(
			`after apt-get install, still missing: ${still.join(', ')} (${REDIS_BIN}, /usr/lib/postgresql/*/bin)`,
		);
	return { installed: missing };
}

function tcpOpen(port, host = '127.0.0.1') {
	return new Promise((resolve) => {
		const s = net.connect({ port, host });
		s.once('connect', () => {
			s.destroy();
			resolve(true);
		});
		s.once('error', () => resolve(false));
	});
}

/** Sends one inline command to Redis and resolves the first reply line (e.g. '+PONG'). */
function redisCommand(port, command, host = '127.0.0.1') {
	return new Promise((resolve, reject) => {
		const s = net.connect({ port, host });
		let buf = '';
		s.setTimeout(3000, () => s.destroy(new Error('redis timeout')));
		s.once('connect', () => s.write(`${command}\r\n`));
		s.on('data', (d) => {
			buf += d;
			if (buf.includes('\r\n')) {
				s.destroy();
				resolve(buf.split('\r\n')[0]);
			}
		});
		s.once('error', reject);
	});
}

/** A private redis-server; resolves { host, port, proc }. */
async function startRedis({ procs, dir, log }) {
	fs.mkdirSync(dir, { recursive: true });
	const port = await freePort();
	const proc = procs.spawn(
		'redis',
		REDIS_BIN,
		[
			'--port',
			String(port),
			'--bind',
			'127.0.0.1',
			'--dir',
			dir,
			'--save',
			'',
			'--appendonly',
			'no',
			'--daemonize',
			'no',
			'--protected-mode',
			'yes',
			'--logfile',
			'',
		],
		{ logFile: path.join(dir, 'redis.log'), stopLast: true },
	);
	await waitFor('redis-server PING', async () => (await redisCommand(port, 'PING')) === '+PONG', {
		timeoutMs: 60000,
		proc,
	});
	log(`redis-server on 127.0.0.1:${port} (pid ${proc.pid}, data ${dir})`);
	return { host: '127.0.0.1', port, proc };
}

/** The uid/gid to run Postgres as: ourselves when not root, else the system user "postgres" (created if missing). */
function postgresUser() {
	if (typeof process.getuid !== 'function' || process.getuid() !== 0)
		return { uid: undefined, gid: undefined, name: require('os').userInfo().username };
	const id = (flag) => spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
	if (id('-u').status !== 0) {
		// Debian's postgresql package creates it; a system without it gets a system user of the same name
		const r = spawnSync(
			'useradd',
			['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres'],
			{ encoding: 'utf8' },
		);
		if (r.status !== 0)
			throw new Error(
				`Postgres refuses to run as root and there is no user "postgres"; useradd failed: ${r.stderr}`,
			);
	}
	return {
		uid: Number(id('-u').stdout.trim()),
		gid: Number(id('-g').stdout.trim()),
		name: 'postgres',
	};
}

/**
 * A private Postgres cluster in `dir`: initdb (superuser "n8n", password auth), postgres in the foreground on
 * 127.0.0.1:<free port> with its socket in `dir`, settings for a throwaway test database (no fsync), then
 * CREATE DATABASE n8n. Resolves { host, port, user, password, database, proc, version }.
 */
async function startPostgres({ procs, dir, log }) {
	const bin = postgresBinDir();
	if (!bin) throw new Error('Postgres binaries not found under /usr/lib/postgresql/*/bin');
	const user = postgresUser();
	const dataDir = path.join(dir, 'data');
	fs.mkdirSync(dir, { recursive: true });
	if (user.uid !== undefined) {
		// the user "postgres" must reach the folder: every parent needs search permission for others
		for (let d = path.dirname(dir); d !== path.dirname(d); d = path.dirname(d)) {
			if ((fs.statSync(d).mode & 0o001) === 0)
				throw new Error(
					`${d} is not searchable by other users, so the user "postgres" cannot reach ${dir}: choose a scratch folder elsewhere (RMS_QUEUE_DIR)`,
				);
		}
		fs.chownSync(dir, user.uid, user.gid);
	}
	fs.chmodSync(dir, 0o700); // its socket lives here: no other local user reaches it
	const password = crypto.randomBytes(12).toString('hex');
	const pwFile = path.join(dir, 'pw');
	fs.writeFileSync(pwFile, `${password}\n`, { mode: 0o600 });
	if (user.uid !== undefined) fs.chownSync(pwFile, user.uid, user.gid);
	const pgEnv = { PATH: process.env.PATH, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', HOME: dir };
	const init = await runCollect(
		path.join(bin, 'initdb'),
		[
			'-D',
			dataDir,
			'-U',
			'n8n',
			`--pwfile=${pwFile}`,
			'--auth=scram-sha-256',
			'-E',
			'UTF8',
			'--no-sync',
		],
		{ env: pgEnv, uid: user.uid, gid: user.gid, cwd: dir },
	);
	fs.rmSync(pwFile, { force: true });
	if (init.code !== 0)
		throw new Error(
			`initdb failed (exit ${init.code}, as ${user.name}):\n${init.out.slice(-3000)}`,
		);
	const port = await freePort();
	const proc = procs.spawn(
		'postgres',
		path.join(bin, 'postgres'),
		[
			'-D',
			dataDir,
			'-p',
			String(port),
			'-k',
			dir,
			'-c',
			'listen_addresses=127.0.0.1',
			'-c',
			'max_connections=60',
			'-c',
			'shared_buffers=64MB',
			// a throwaway database: durability is not wanted, speed is
			'-c',
			'fsync=off',
			'-c',
			'synchronous_commit=off',
			'-c',
			'full_page_writes=off',
		],
		{
			env: pgEnv,
			uid: user.uid,
			gid: user.gid,
			cwd: dir,
			logFile: path.join(dir, 'postgres.log'),
			stopSignal: 'SIGINT',
			stopLast: true,
		},
	);
	if (user.uid !== undefined) fs.chownSync(path.join(dir, 'postgres.log'), user.uid, user.gid);
	const psql = (sql, db = 'postgres') =>
		runCollect(
			path.join(bin, 'psql'),
			[
				'-h',
				'127.0.0.1',
				'-p',
				String(port),
				'-U',
				'n8n',
				'-d',
				db,
				'-v',
				'ON_ERROR_STOP=1',
				'-tAc',
				sql,
			],
			{
				env: { ...pgEnv, PGPASSWORD: password, PGCONNECT_TIMEOUT: '3' },
			},
		);
	await waitFor(
		'postgres accepting connections',
		async () => (await tcpOpen(port)) && (await psql('SELECT 1')).code === 0,
		{
			timeoutMs: 120000,
			proc,
		},
	);
	const c = await psql('CREATE DATABASE n8n');
	if (c.code !== 0) throw new Error(`CREATE DATABASE n8n failed:\n${c.out}`);
	const version = (await psql('SHOW server_version')).out.trim();
	log(
		`postgres ${version} on 127.0.0.1:${port} (pid ${proc.pid}, as ${user.name}, data ${dataDir})`,
	);
	return { host: '127.0.0.1', port, user: 'n8n', password, database: 'n8n', proc, version, psql };
}

module.exports = {
	ensureDebianPackages,
	missingPackages,
	postgresBinDir,
	startRedis,
	startPostgres,
	redisCommand,
};
