'use strict';
/*
 * What the two webhook-trigger phases share (test/e2e/webhook/ against the sandbox, test/espocrm/webhook/ against
 * EspoCRM): an n8n main (`n8n start`) in a user folder of its own holding the run's imported database, its owner,
 * publishing the trigger's workflow, waiting for its executions, and EspoCRM's delivery signature.
 */
const fs = require('fs');
const path = require('path');
const crypto = require('crypto');
const assert = require('assert/strict');
const env = require('./n8n-env');
const srv = require('./n8n-server');

/** X-Signature as EspoCRM 8.1.5 signs a delivery: base64("<webhookId>:" + raw HMAC-SHA256 of the body with the secret). */
function espoSignature(webhookId, secret, body) {
	return Buffer.concat([
		Buffer.from(`${webhookId}:`),
		crypto.createHmac('sha256', secret).update(body).digest(),
	]).toString('base64');
}

/** The json of a node's items in an execution recorded by n8n (first run, output 0). */
function itemsOf(execution, node) {
	const runs =
		(execution.data.resultData &&
			execution.data.resultData.runData &&
			execution.data.resultData.runData[node]) ||
		[];
	assert.ok(runs.length, `execution ${execution.id}: node "${node}" did not run`);
	return ((runs[0].data && runs[0].data.main && runs[0].data.main[0]) || []).map((i) => i.json);
}

/**
 * Starts n8n main for a phase and publishes `workflow` (its trigger node named `trigger`) as the editor does.
 * ctx: the runner's phase context (p, n8nEnv, databaseFiles, packageRoot, workDir, keep, log); `folder`: the phase's
 * folder under workDir; `label`: its name in the log; `port`: n8n's port, when the server that calls the webhook must
 * know it beforehand (EspoCRM 9.3's webhookAllowedAddressList); `publish: false` leaves publishing to the caller.
 * Returns { url, cookie, main, logFile, mark, executions, nthExecution, unpublish, stop }; call stop(ok) in a finally:
 * it stops n8n, logs the timings and keeps the folder unless ok.
 */
async function startPhaseN8n(ctx, { folder, label, workflow, trigger, port, publish = true }) {
	const { p, n8nEnv, databaseFiles, packageRoot, workDir, keep, log } = ctx;
	const t0 = Date.now();
	const dir = path.join(workDir, folder);
	fs.rmSync(dir, { recursive: true, force: true });
	const userFolder = path.join(dir, 'user-folder');
	env.prepareUserFolder(userFolder, { repoRoot: packageRoot });
	for (const f of databaseFiles)
		fs.copyFileSync(f, path.join(userFolder, '.n8n', path.basename(f)));
	const logFile = path.join(dir, 'n8n.log');
	// stop() below; on Ctrl-C the runner kills the process groups of its children, this n8n included
	const procs = new srv.Processes({ log });
	const timings = {};
	const mark = (what) => (timings[what] = Date.now() - t0);
	const stop = async (ok) => {
		await procs.stopAll();
		mark('n8n stopped');
		log(
			`${label}: ${Object.entries(timings)
				.map(([k, ms]) => `${k} ${(ms / 1000).toFixed(1)}s`)
				.join(', ')}`,
		);
		if (ok && !keep) fs.rmSync(dir, { recursive: true, force: true });
		else log(`${label}: n8n user folder and log kept in ${dir}`);
	};
	try {
		// the environment of the workflows' n8n processes, with this user folder
		const main = await srv.startN8n({
			procs,
			p,
			role: 'main',
			env: { ...n8nEnv, N8N_USER_FOLDER: userFolder, ...(port ? { N8N_PORT: String(port) } : {}) },
			logFile,
			expectPackage: env.PACKAGE_NAME,
		});
		mark('n8n ready');
		const { cookie } = await srv.setupOwner(main.baseUrl);
		const webhookId = workflow.nodes.find((n) => n.name === trigger).webhookId;
		if (publish) {
			await srv.activateWorkflow(main.baseUrl, cookie, workflow.id);
			await srv.waitForPublication(main.baseUrl, cookie, workflow.id, { proc: main.proc });
			mark('published');
		}

		const executions = async () =>
			srv.listExecutions(main.baseUrl, cookie, { workflowId: workflow.id });
		const finished = (e) => ['success', 'error', 'crashed', 'canceled'].includes(e.status);
		/** Waits for the `n`-th execution to finish; returns it with its run data, checked to be a successful webhook run. */
		const nthExecution = async (n) => {
			const list = await srv.waitFor(
				`execution ${n} of the webhook trigger`,
				async () => {
					const l = await executions();
					return l.length >= n && l.every(finished) ? l : undefined;
				},
				{ timeoutMs: 180000, intervalMs: 200, proc: main.proc },
			);
			assert.equal(list.length, n, `${list.length} executions, expected ${n}`);
			const newest = list.sort((a, b) => Number(b.id) - Number(a.id))[0];
			const e = await srv.getExecution(main.baseUrl, cookie, newest.id, { n8nBin: p.n8nBin });
			assert.equal(
				e.status,
				'success',
				`execution ${e.id}: ${e.status} ${JSON.stringify(e.data.resultData && e.data.resultData.error)}`,
			);
			assert.equal(e.mode, 'webhook');
			return e;
		};
		const unpublish = async () => {
			await srv.deactivateWorkflow(main.baseUrl, cookie, workflow.id);
			await srv.waitForPublication(main.baseUrl, cookie, workflow.id, {
				published: false,
				proc: main.proc,
			});
			mark('unpublished');
		};
		return {
			main,
			cookie,
			logFile,
			url: `${main.baseUrl}/webhook/${webhookId}/webhook`,
			/** Resolves once n8n serves the production webhook (n8n 2.x registers it some seconds after publishing). */
			webhookServed: () =>
				srv.waitForWebhook(main.baseUrl, `${webhookId}/webhook`, { proc: main.proc }),
			mark,
			executions,
			nthExecution,
			unpublish,
			stop,
		};
	} catch (e) {
		await stop(false);
		const problem = e instanceof Error ? e : new Error(String(e));
		problem.lines = problem.lines || logTail(logFile);
		throw problem;
	}
}

/** The last lines of the phase's n8n log, for a failure's report. */
function logTail(logFile, n = 25) {
	return [
		`      last lines of ${logFile}:`,
		...srv
			.tailFile(logFile, n)
			.split('\n')
			.map((l) => `        ${l}`),
	];
}

module.exports = { espoSignature, itemsOf, startPhaseN8n, logTail };
