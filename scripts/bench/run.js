#!/usr/bin/env node
'use strict';
/*
 * npm run bench [-- --runs N] [--latency MS] [--only job,job] [--no-build] [--keep] [--json FILE] [--n8n-env K=V]
 *
 * Times the node through the real n8n CLI against the sandbox server, next to a raw client and n8n's HTTP Request
 * node, and says for each goal whether it is met. See scripts/bench/README.md for what is measured and why.
 *
 *   --runs N        repetitions of every case (default 3); the table gives the median, min and max
 *   --latency MS    the server's latency for every case (default: each goal's own, 20 or 0 ms)
 *   --only a,b      only these jobs: create, createSecondServer, massUpdate, massDelete, returnAll, memory, upsert,
 *                   createServerCpu
 *   --no-build      use dist/ as it is
 *   --keep          keep the scratch folder (n8n user folder, logs)
 *   --json FILE     also write every measurement to FILE
 *   --n8n-env K=V   an environment variable for n8n (repeatable), e.g. N8N_EXPRESSION_ENGINE=legacy
 *   --busy N        N processes that keep a core busy each, beside every case: a machine whose cores n8n shares
 *                   (or a slower one), where each item's CPU weighs more (issue 31, point 6)
 */

const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawn } = require('child_process');
const env = require('../../test/lib/n8n-env');
const { Processes } = require('../../test/lib/n8n-server');
const { startSandboxProcess } = require('./sandbox');
const { setupN8n, measure, onNode24 } = require('./n8n');
const workflows = require('./workflows');
const { JOBS, CREATES, MASS_IDS, UPSERTS } = require('./jobs');
const { report } = require('./report');

function parseArgs(argv) {
	const o = {
		runs: 3,
		latency: undefined,
		only: undefined,
		build: true,
		keep: false,
		json: undefined,
		n8nEnv: {},
		busy: 0,
	};
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		const value = () => {
			const v = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i];
			if (v === undefined) throw new Error(`${a} needs a value`);
			return v;
		};
		if (/^--runs(=|$)/.test(a)) o.runs = Number(value());
		else if (/^--latency(=|$)/.test(a)) o.latency = Number(value());
		else if (/^--only(=|$)/.test(a))
			o.only = value()
				.split(',')
				.map((s) => s.trim());
		else if (/^--busy(=|$)/.test(a)) o.busy = Number(value());
		else if (/^--json(=|$)/.test(a)) o.json = path.resolve(value());
		else if (/^--n8n-env(=|$)/.test(a)) {
			const [k, ...v] = value().split('=');
			o.n8nEnv[k] = v.join('=');
		} else if (a === '--no-build') o.build = false;
		else if (a === '--keep') o.keep = true;
		else throw new Error(`unknown option ${a} (see the top of scripts/bench/run.js)`);
	}
	if (!Number.isInteger(o.runs) || o.runs < 1) throw new Error('--runs wants a whole number ≥ 1');
	if (o.latency !== undefined && !(o.latency >= 0))
		throw new Error('--latency wants milliseconds ≥ 0');
	if (!Number.isInteger(o.busy) || o.busy < 0) throw new Error('--busy wants a whole number ≥ 0');
	const names = JOBS.map((j) => j.name);
	for (const n of o.only || [])
		if (!names.includes(n)) throw new Error(`no job "${n}" (jobs: ${names.join(', ')})`);
	return o;
}

/** One case once: the server prepared, the system run and timed, the server's counts, the checks. */
async function runCase({ job, c, latency, sandbox, n8n, measured }) {
	const r = {};
	await job.prepare(sandbox, { ...c, latency });
	await sandbox.call('mark');
	if (c.system === 'raw') {
		// the garbage of parsing n8n's printed run (up to a few hundred MB) must not be collected while the raw
		// client is being timed
		global.gc();
		const out = await c.raw(
			{ list: sandbox.listBaseUrl, keys: sandbox.keysBaseUrl, second: sandbox.secondBaseUrl }[
				c.server
			] || sandbox.baseUrl,
		);
		r.ms = out.ms;
		if (out.records !== undefined) r.output = { records: out.records, unique: out.unique };
	} else {
		const names = measured[c.workflow];
		const result = await n8n.execute(c.workflow);
		const m = measure(result, names);
		const last = m.outputs[names[names.length - 1]];
		Object.assign(r, {
			ms: m.ms,
			nodeStart: m.start,
			nodeEnd: m.end,
			peakNodeKb: m.peakNodeKb,
			peakProcessKb: m.peakProcessKb,
			// the records that came out; a sub-workflow's Summarize gives their count and distinct count
			output:
				last.length === 1 && 'count_id' in last[0]
					? { records: last[0].count_id, unique: last[0].unique_count_id }
					: { records: last.length, unique: new Set(last.map((j) => j.id)).size },
			note: result.note,
		});
	}
	const st = await sandbox.call('stats');
	Object.assign(r, {
		requests: st.count,
		servers: st.servers,
		byStatus: st.byStatus,
		connection: st.connection,
		maxInFlight: st.maxInFlight,
		spanMs: st.count ? st.lastEndedAt - st.firstStartedAt : 0,
		meanInFlight: st.count ? st.busyMs / (st.lastEndedAt - st.firstStartedAt) : undefined,
		meanServiceMs: st.count ? st.busyMs / st.count : undefined,
		// the node's start to the first request the server saw, and the last answer to the node's end
		leadMs: r.nodeStart && st.count ? st.firstStartedAt - r.nodeStart : undefined,
		tailMs: r.nodeEnd && st.count ? r.nodeEnd - st.lastEndedAt : undefined,
	});
	r.problems = c.noCheck
		? []
		: [...(await job.check(r, sandbox)), ...(c.check ? await c.check(r, sandbox) : [])];
	for (const other of Object.keys(st.servers).filter(
		(server) => server !== (c.server || 'sandbox'),
	)) {
		if (st.servers[other])
			r.problems.push(`${st.servers[other]} requests went to the ${other} server`);
	}
	return r;
}

const load = () =>
	os
		.loadavg()
		.map((l) => l.toFixed(2))
		.join(' ');
const secs = (ms) => `${(ms / 1000).toFixed(2)} s`;

async function main() {
	let opts;
	try {
		opts = parseArgs(process.argv.slice(2));
	} catch (e) {
		console.error(`npm run bench: ${e.message}`);
		return 2;
	}
	if (!(await onNode24(__filename))) return;

	// a job marked `onlyWhenAsked` (an investigation, not a goal of docs/performance.md's table) runs only when --only names it
	const jobs = JOBS.filter((j) => (opts.only ? opts.only.includes(j.name) : !j.onlyWhenAsked));
	const startedAt = new Date();
	const loadStart = load();

	// Everything started is stopped again, whatever happens: n8n processes (Processes, by process group), the
	// sandbox process, the scratch folder. Ctrl-C: handleSignals() stops them and exits 130.
	const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rms-bench-'));
	const procs = new Processes({ log: env.log });
	const children = new Set();
	let sandbox;
	const removeWorkDir = () => {
		if (opts.keep) return;
		try {
			fs.rmSync(workDir, { recursive: true, force: true });
		} catch {}
	};
	process.on('exit', () => {
		for (const c of children) c.kill('SIGKILL');
		removeWorkDir();
	});
	procs.handleSignals({
		beforeExit: async () => {
			if (sandbox) await sandbox.close();
			removeWorkDir();
		},
	});

	try {
		if (opts.build) {
			env.log('npm run build');
			await env.runNpm(['run', 'build']);
		}
		sandbox = await startSandboxProcess(children);
		// --busy: loops at the machine's normal priority, as other work on a shared machine; stopped with the bench
		for (let i = 0; i < opts.busy; i++) {
			const loop = spawn(process.execPath, ['-e', 'for (;;);'], { stdio: 'ignore' });
			children.add(loop);
		}
		if (opts.busy) env.log(`${opts.busy} busy loop(s) beside the bench`);
		env.log(
			`sandbox at ${sandbox.baseUrl} (pid ${sandbox.pid}), list server at ${sandbox.listBaseUrl}`,
		);
		const wfs = workflows.build({
			baseUrl: sandbox.baseUrl,
			listBaseUrl: sandbox.listBaseUrl,
			secondBaseUrl: sandbox.secondBaseUrl,
			creates: CREATES,
			massIds: MASS_IDS,
			upserts: UPSERTS,
		});
		const measured = Object.fromEntries(wfs.map((w) => [w.id, w.measured]));
		const n8n = await setupN8n({
			procs,
			workDir,
			credentials: workflows.credentials(sandbox),
			workflows: wfs,
			extraEnv: opts.n8nEnv,
		});

		const results = [];
		for (const job of jobs) {
			if (job.setup) {
				env.log(`${job.name}: preparing the server`);
				await job.setup(sandbox);
			}
			for (let run = 1; run <= opts.runs; run++) {
				// the cases of a run one after another, so that a change of machine load meets all of them alike
				for (const c of job.cases) {
					const latency = opts.latency !== undefined ? opts.latency : c.latency;
					const r = { job: job.name, key: c.key, run, latency };
					results.push(r);
					try {
						Object.assign(r, await runCase({ job, c, latency, sandbox, n8n, measured }));
					} catch (e) {
						r.error = String((e && e.message) || e);
					}
					env.log(
						`${job.name} run ${run}/${opts.runs}: ${c.label} @${latency} ms: ` +
							(r.error
								? `FAILED: ${r.error.split('\n')[0]}`
								: `${secs(r.ms)}, ${r.requests} requests${r.peakNodeKb ? `, peak ${(r.peakNodeKb / 1024).toFixed(0)} MB` : ''}${r.problems.length ? `; ${r.problems.join('; ')}` : ''}`),
					);
				}
			}
		}

		const text = report({
			jobs,
			results,
			opts,
			machine: { startedAt, loadStart, loadEnd: load(), n8nVersion: env.N8N_VERSION },
		});
		console.log(text);
		if (opts.json)
			fs.writeFileSync(
				opts.json,
				JSON.stringify({ opts, startedAt, loadStart, loadEnd: load(), results }, null, 2),
			);
		return results.some((r) => r.error) ? 1 : 0;
	} finally {
		if (sandbox) await sandbox.close();
		for (const c of children) c.kill('SIGKILL');
		await procs.stopAll();
		if (opts.keep) env.log(`scratch folder kept: ${workDir}`);
		removeWorkDir();
	}
}

main().then(
	(code) => {
		if (code !== undefined) process.exit(code);
	},
	(e) => {
		console.error(`bench failed: ${(e && e.stack) || e}`);
		process.exit(1);
	},
);
