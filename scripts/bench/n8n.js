'use strict';
/*
 * The real n8n CLI for the bench: the cached Node 24 + n8n 2.41.1 of the end-to-end tests (test/lib/n8n-env.js),
 * a scratch user folder with this package as a community package, `n8n execute --id=…` with its memory watched.
 */

const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawn } = require('child_process');
const env = require('../../test/lib/n8n-env');
const { runN8nCommand } = require('../../test/lib/n8n-server');
const { parseRun, errorText } = require('../../test/lib/e2e-runner');

/**
 * A copy of the package as built now (package.json + dist/), linked as the community package: other engineers
 * build in this checkout while the bench runs (the build empties dist/ first), and every `n8n execute` loads the
 * package again. node_modules points at the checkout's, where the node's peer dependency n8n-workflow is.
 */
function snapshotPackage(workDir) {
	const dir = path.join(workDir, 'package');
	fs.mkdirSync(dir, { recursive: true });
	fs.copyFileSync(path.join(env.REPO_ROOT, 'package.json'), path.join(dir, 'package.json'));
	fs.cpSync(path.join(env.REPO_ROOT, 'dist'), path.join(dir, 'dist'), { recursive: true });
	fs.symlinkSync(path.join(env.REPO_ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
	const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
	for (const f of [...pkg.n8n.nodes, ...pkg.n8n.credentials])
		if (!fs.existsSync(path.join(dir, f)))
			throw new Error(`${f} is missing from dist/ (did the build fail?)`);
	return dir;
}

/**
 * Sets up n8n: user folder, credentials and workflows imported. Resolves { execute(workflowId) }.
 * `procs` (test/lib/n8n-server.js Processes) stops every n8n process on failure and Ctrl-C.
 */
async function setupN8n({ procs, workDir, credentials, workflows, extraEnv = {} }) {
	const p = await env.ensureN8n();
	const userFolder = path.join(workDir, 'user-folder');
	fs.mkdirSync(userFolder, { recursive: true });
	env.prepareUserFolder(userFolder, { repoRoot: snapshotPackage(workDir) });
	const n8nEnv = env.n8nEnv(userFolder, {
		// the execution is not written to the database (100,000 records would be): `execute` prints it all the same
		EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'none',
		// sub-workflows (the memory job) must be published: `publish:workflow` sets the workflow's active version,
		// which n8n reads without its publication service (that one is fed by a running `n8n start` only)
		N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'false',
		...extraEnv,
	});

	const importDir = path.join(workDir, 'import');
	fs.mkdirSync(path.join(importDir, 'workflows'), { recursive: true });
	fs.writeFileSync(path.join(importDir, 'credentials.json'), JSON.stringify(credentials));
	for (const wf of workflows)
		fs.writeFileSync(path.join(importDir, 'workflows', `${wf.id}.json`), JSON.stringify(wf));
	for (const args of [
		['import:credentials', `--input=${path.join(importDir, 'credentials.json')}`],
		['import:workflow', '--separate', `--input=${path.join(importDir, 'workflows')}`],
		// sub-workflows: n8n 2.x calls only published ones (takes effect at each `execute`, which starts n8n anew)
		...workflows.filter((wf) => wf.publish).map((wf) => ['publish:workflow', `--id=${wf.id}`]),
	]) {
		env.log(`n8n ${args[0]}`);
		const r = await runN8nCommand({ procs, p, env: n8nEnv, args });
		if (r.code !== 0)
			throw new Error(`n8n ${args[0]} failed (${r.code}):\n${r.output.slice(-3000)}`);
	}

	let runNo = 0;
	/** Runs one workflow; resolves { run (the run data n8n printed), samples (memory), note, wallMs }. */
	async function execute(workflowId, { timeoutMs = 20 * 60 * 1000 } = {}) {
		const logFile = path.join(workDir, `execute-${++runNo}.log`);
		const e = { ...n8nEnv, N8N_RUNNERS_BROKER_PORT: String(await env.freePort()) };
		const proc = procs.spawn(
			`n8n execute ${workflowId}`,
			p.nodeBin,
			[p.n8nBin, 'execute', `--id=${workflowId}`],
			{
				env: e,
				cwd: userFolder,
				logFile,
			},
		);
		const memory = watchMemory(proc.pid);
		const timer = setTimeout(() => proc.stop({ timeoutMs: 5000 }), timeoutMs);
		const code = await proc.exited;
		clearTimeout(timer);
		const samples = memory.stop();
		const output = fs.readFileSync(logFile, 'utf8');
		fs.rmSync(logFile, { force: true });
		const res = { stdout: output, stderr: '' };
		const run = parseRun(output);
		// n8n sometimes dies on its way out (SIGSEGV while shutting down, seen with n8n 2.41.1 on this machine) after
		// printing a complete, successful run: the run counts, with a note.
		if (!run)
			throw new Error(
				`n8n execute exited with ${code}, without a successful run: ${failureOf(output) || errorText(res)}`,
			);
		const note =
			code !== 0 ? `n8n exited with ${code} after printing the successful run` : undefined;
		return { run, samples, note, wallMs: Date.now() - proc.startedAt };
	}
	return { execute };
}

/** A failed execution: n8n prints "Execution error:", a line of "=" and the run as JSON; its error, in one line. */
function failureOf(output) {
	const at = output.indexOf('Execution was NOT successful');
	if (at < 0) return undefined;
	const lines = output.slice(at).split('\n');
	const start = lines.findIndex((l) => l.startsWith('{'));
	const end = lines.findIndex((l, i) => i > start && l === '}');
	try {
		const { resultData } = JSON.parse(lines.slice(start, end + 1).join('\n')).data;
		const e = resultData.error || {};
		const node = (e.node && e.node.name) || resultData.lastNodeExecuted;
		return `node "${node}": ${e.message}${e.description ? ` (${e.description})` : ''}`;
	} catch {
		return undefined;
	}
}

// ---------------------------------------------------------------------------------------------------------
// Memory: resident set of the n8n process and its children (the task runner that runs Code nodes)

const SAMPLE_MS = 25;

function readKb(file, field) {
	try {
		const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync(file, 'utf8'));
		return m ? Number(m[1]) : 0;
	} catch {
		return 0; // the process is gone
	}
}

/** The process and its descendants, from /proc/<pid>/task/<tid>/children. */
function tree(pid, out = []) {
	out.push(pid);
	let tids = [];
	try {
		tids = fs.readdirSync(`/proc/${pid}/task`);
	} catch {
		return out;
	}
	for (const tid of tids) {
		let kids = '';
		try {
			kids = fs.readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8');
		} catch {}
		for (const k of kids.split(' ').filter(Boolean)) tree(Number(k), out);
	}
	return out;
}

/**
 * Samples VmRSS of the whole tree every SAMPLE_MS: [{t (ms since epoch), kb (the sum)}].
 * Polling can miss a spike shorter than the interval; with 25 ms it sees the pages of a Return All pile up.
 */
function watchMemory(pid) {
	const samples = [];
	const sample = () => {
		let kb = 0;
		for (const p of tree(pid)) kb += readKb(`/proc/${p}/status`, 'VmRSS');
		if (kb) samples.push({ t: Date.now(), kb });
	};
	sample();
	const timer = setInterval(sample, SAMPLE_MS);
	return {
		stop() {
			clearInterval(timer);
			return samples;
		},
	};
}

/**
 * What the bench reads from a run: for the named nodes, their own execution time (the `executionTime` of each node's
 * task in the run data: n8n's clock around the node's execute(), n8n's start-up and the other nodes excluded),
 * their output item count, and the memory peak while they ran.
 */
function measure(result, nodeNames) {
	const runData = result.run.data.resultData.runData;
	let start = Infinity;
	let end = -Infinity;
	let ms = 0;
	const outputs = {};
	for (const name of nodeNames) {
		const tasks = runData[name];
		if (!tasks)
			throw new Error(`node "${name}" did not run (ran: ${Object.keys(runData).join(', ')})`);
		for (const task of tasks) {
			if (task.error)
				throw new Error(
					`node "${name}" failed: ${task.error.message}${task.error.description ? ` (${task.error.description})` : ''}`,
				);
			ms += task.executionTime;
			start = Math.min(start, task.startTime);
			end = Math.max(end, task.startTime + task.executionTime);
		}
		const last = tasks[tasks.length - 1];
		outputs[name] = (((last.data || {}).main || [])[0] || []).map((i) => i.json);
	}
	// samples taken while the nodes ran, up to one interval after (a node faster than the interval may have none:
	// then the first sample after its start)
	let inWindow = result.samples.filter((s) => s.t >= start && s.t <= end + SAMPLE_MS);
	if (!inWindow.length) inWindow = result.samples.filter((s) => s.t >= start).slice(0, 1);
	const peak = (list, key) => list.reduce((m, s) => Math.max(m, s[key]), 0);
	return {
		ms,
		start,
		end,
		outputs,
		peakNodeKb: peak(inWindow, 'kb'),
		peakProcessKb: peak(result.samples, 'kb'),
		// the memory while the nodes ran, for --json
		samples: inWindow.map((s) => ({ ms: s.t - start, kb: s.kb })),
	};
}

/**
 * A bench's raw client runs in the bench's own process: it must run on the Node that runs n8n (24), not on the machine's Node that
 * `npm run` used, so the bench (`script`) starts itself again with the cached Node 24 (and --expose-gc) and waits for it.
 */
async function onNode24(script) {
	if (process.versions.node.split('.')[0] === '24' && global.gc) return true;
	const p = await env.ensureN8n();
	// --expose-gc: a full collection before each raw measurement (see below)
	const child = spawn(p.nodeBin, ['--expose-gc', script, ...process.argv.slice(2)], {
		stdio: 'inherit',
	});
	// Ctrl-C reaches both processes (same process group); other signals are passed on. The child cleans up.
	for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'])
		process.on(sig, () => sig !== 'SIGINT' && child.kill(sig));
	child.on('exit', (code, sig) =>
		process.exit(code === null ? 128 + (os.constants.signals[sig] || 1) : code),
	);
	return false;
}

module.exports = { setupN8n, measure, onNode24, SAMPLE_MS };
