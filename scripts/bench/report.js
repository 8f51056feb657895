'use strict';
/*
 * The bench's printout: per job a table (Markdown, so that it can be pasted into docs/performance.md), then one line per goal.
 * Every figure is the median over the runs, with min–max; a ratio is taken within each run (the case against its
 * raw reference measured seconds apart, under the same machine load), then the median of those ratios.
 */

const os = require('os');

const median = (xs) => {
	const s = [...xs].sort((a, b) => a - b);
	const m = s.length >> 1;
	return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const stat = (xs) =>
	xs.length ? { med: median(xs), min: Math.min(...xs), max: Math.max(...xs), n: xs.length } : null;
const fmt = (s, f) => (!s ? '–' : s.n === 1 ? f(s.med) : `${f(s.med)} (${f(s.min)}–${f(s.max)})`);
const sec = (ms) => (ms / 1000).toFixed(2);
/** The median alone (for the columns that only explain). */
const med = (xs, f) => (xs.length ? f(median(xs)) : '–');
const x = (r) => `${r.toFixed(2)}x`;
const mb = (kb) => (kb / 1024).toFixed(0);

/** Per run, the ratio of case `a` to case `b` of the same job. */
function ratios(results, job, a, b) {
	const out = [];
	for (const ra of results.filter(
		(r) => r.job === job && r.key === a && r.ms !== undefined && !r.error,
	)) {
		const rb = results.find(
			(r) => r.job === job && r.key === b && r.run === ra.run && r.ms && !r.error,
		);
		if (rb) out.push(ra.ms / rb.ms);
	}
	return out;
}

function table(job, results) {
	const rows = [
		'| system | latency | requests | time s | ratio to raw | server span s | in flight mean / max | ms per request | peak RSS in node MB | process peak MB |',
		'| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
	];
	const keys = [...new Set(results.filter((r) => r.job === job.name).map((r) => r.key))];
	const notes = [];
	const timing = [];
	for (const key of keys) {
		const c = job.cases.find((k) => k.key === key);
		const rs = results.filter((r) => r.job === job.name && r.key === key);
		const ok = rs.filter((r) => !r.error);
		const vals = (f) => ok.map(f).filter((v) => v !== undefined && v !== null);
		const reqs = [...new Set(ok.map((r) => r.requests))].join('/');
		// with --latency, say which case (of its own latency) a row is
		const lat =
			`${[...new Set(rs.map((r) => r.latency))].join('/')} ms` +
			(rs.some((r) => r.latency !== c.latency) ? ` (the ${c.latency} ms case)` : '');
		const ratio = c.ref ? stat(ratios(results, job.name, key, c.ref)) : null;
		rows.push(
			`| ${c.label} | ${lat} | ${reqs || '–'} | ${fmt(stat(vals((r) => r.ms)), sec)} | ${c.ref ? fmt(ratio, x) : c.system === 'raw' ? 'reference' : '–'} | ` +
				`${fmt(stat(vals((r) => (r.requests ? r.spanMs : undefined))), sec)} | ` +
				`${med(
					vals((r) => r.meanInFlight),
					(v) => v.toFixed(1),
				)} / ${med(
					vals((r) => (r.requests ? r.maxInFlight : undefined)),
					String,
				)} | ` +
				`${med(
					vals((r) => r.meanServiceMs),
					(v) => v.toFixed(1),
				)} | ` +
				`${fmt(stat(vals((r) => r.peakNodeKb)), mb)} | ${fmt(stat(vals((r) => r.peakProcessKb)), mb)} |`,
		);
		// the check that executionTime is the node's time: the node's start to the first request the server saw, and the
		// last answer to the node's end
		const lead = stat(vals((r) => r.leadMs));
		if (c.system === 'n8n' && lead)
			timing.push(
				`${c.label} @${lat}: first request ${fmt(lead, (v) => v.toFixed(0))} ms after the node started, node done ${fmt(stat(vals((r) => r.tailMs)), (v) => v.toFixed(0))} ms after the last answer`,
			);
		for (const r of rs) {
			if (r.error)
				notes.push(
					`- ${c.label}, run ${r.run}: FAILED: ${r.error.split('\n').slice(0, 6).join(' / ')}`,
				);
			else if (r.problems && r.problems.length)
				notes.push(`- ${c.label}, run ${r.run}: ${r.problems.join('; ')}`);
			if (r.note) notes.push(`- ${c.label}, run ${r.run}: ${r.note}`);
		}
	}
	return [
		...rows,
		...notes,
		...(timing.length
			? [
					'',
					"Timing check (server clock against the node's startTime + executionTime):",
					...timing.map((t) => `- ${t}`),
				]
			: []),
	].join('\n');
}

/** One line per goal: met / not met, with the figures. */
function goalLines(job, results, opts) {
	const lines = [];
	const label = (k) => job.cases.find((c) => c.key === k).label;
	const problemsOf = (k) =>
		results
			.filter((r) => r.job === job.name && r.key === k)
			.flatMap((r) =>
				r.error ? [`run ${r.run} failed`] : r.problems.map((p) => `run ${r.run}: ${p}`),
			);
	for (const g of job.goals) {
		const keys = g.ratio || g.memory;
		const latencyNote =
			opts.latency !== undefined &&
			keys.some((k) => job.cases.find((c) => c.key === k).latency !== opts.latency)
				? ` [measured at --latency ${opts.latency} ms, not the goal's]`
				: '';
		const problems = keys.flatMap(problemsOf);
		let verdict;
		let figures;
		if (g.ratio) {
			const s = stat(ratios(results, job.name, ...g.ratio));
			const times = keys.map(
				(k) =>
					`${label(k)} ${sec(median(results.filter((r) => r.job === job.name && r.key === k && r.ms).map((r) => r.ms)) || 0)} s`,
			);
			if (s) {
				figures = `${x(s.med)} (${x(s.min)}–${x(s.max)} over ${s.n} runs; median times: ${times.join(', ')})`;
				verdict = g.max !== undefined ? s.med <= g.max : s.med < g.below;
			}
		} else {
			const peak = (k) =>
				stat(
					results
						.filter((r) => r.job === job.name && r.key === k && r.peakNodeKb)
						.map((r) => r.peakNodeKb),
				);
			const [a, b] = keys.map(peak);
			const base = peak('empty');
			if (a && b) {
				figures = `${label(keys[0])} ${mb(a.med)} MB, ${label(keys[1])} ${mb(b.med)} MB (peak RSS while the nodes ran, median${base ? `; n8n alone ${mb(base.med)} MB` : ''})`;
				verdict = a.med <= b.med;
			}
		}
		if (problems.length) verdict = false;
		const word = verdict === undefined ? 'NOT MEASURED' : verdict ? 'met' : 'NOT MET';
		lines.push(
			`GOAL ${word.padEnd(12)} ${g.text}: ${figures || 'no figures'}${problems.length ? `; problems: ${problems.join('; ')}` : ''}${latencyNote}`,
		);
	}
	return lines;
}

function report({ jobs, results, opts, machine }) {
	const out = [];
	out.push('');
	out.push(`# npm run bench — ${machine.startedAt.toISOString()}`);
	out.push('');
	out.push(
		`n8n ${machine.n8nVersion} on Node ${process.versions.node} (raw client: same Node), ${os.cpus().length} cores (${os.cpus()[0].model.trim()}), ` +
			`${opts.runs} run(s) per case; load average (1, 5, 15 min) at the start ${machine.loadStart}, at the end ${machine.loadEnd}`,
	);
	const extra = Object.entries(opts.n8nEnv || {}).map(([k, v]) => `${k}=${v}`);
	if (extra.length) out.push(`n8n environment: ${extra.join(' ')}`);
	if (opts.busy)
		out.push(
			`${opts.busy} busy loop(s) beside every case (--busy): a machine whose cores n8n shares`,
		);
	out.push(
		"Time: n8n cases = the node's own executionTime from the run data (memory job: the Execute Workflow node around the sub-workflow); raw cases = the whole job in the bench process.",
	);
	out.push('Figures: median (min–max) over the runs; ratios are taken within each run.');
	for (const job of jobs) {
		out.push('');
		out.push(`## ${job.title}`);
		out.push('');
		out.push(table(job, results));
	}
	out.push('');
	out.push('## Goals');
	out.push('');
	for (const job of jobs) out.push(...goalLines(job, results, opts));
	out.push('');
	return out.join('\n');
}

module.exports = { report, median, stat, fmt };
