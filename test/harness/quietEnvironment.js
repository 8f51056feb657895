// @ts-check
'use strict';

/**
 * The jest environment of the tests: what n8n's engine logs while a test runs (it logs every failed request, and
 * the tests fail many on purpose) is kept back, and printed only for a test that fails. Set RMS_TEST_LOGS=1 to
 * see everything as it happens.
 */
const { TestEnvironment } = require('jest-environment-node');

class QuietEnvironment extends TestEnvironment {
	/** @param {any} config @param {any} context */
	constructor(config, context) {
		super(config, context);
		/** @type {string[]} */
		this.kept = [];
	}

	/** Jest sets the test file's console after the environment is made: it is replaced when the tests start. */
	keepConsole() {
		if (process.env.RMS_TEST_LOGS || this.global.console.__kept) return;
		const keep =
			(/** @type {string} */ level) =>
			(/** @type {unknown[]} */ ...args) => {
				this.kept.push(
					`[${level}] ${args.map((arg) => (typeof arg === 'string' ? arg : safeInspect(arg))).join(' ')}`,
				);
			};
		const quiet = Object.create(this.global.console);
		for (const level of ['log', 'info', 'warn', 'error', 'debug']) quiet[level] = keep(level);
		// n8n's logger (winston) writes to the console's streams directly when it finds them.
		quiet._stdout = {
			write: (/** @type {unknown} */ chunk) => this.kept.push(String(chunk).trimEnd()),
		};
		quiet._stderr = quiet._stdout;
		quiet.__kept = true;
		this.global.console = quiet;
	}

	/** @param {{ name: string, test?: { name: string, errors: unknown[] } }} event */
	handleTestEvent(event) {
		if (event.name === 'run_start' || event.name === 'test_start') this.keepConsole();
		if (event.name === 'test_start') this.kept = [];
		if (
			event.name === 'test_done' &&
			event.test &&
			event.test.errors.length > 0 &&
			this.kept.length > 0
		) {
			process.stderr.write(
				`\nWhat n8n logged during "${event.test.name}":\n${this.kept.join('\n')}\n`,
			);
		}
	}
}

/** @param {unknown} value */
function safeInspect(value) {
	try {
		return require('node:util').inspect(value, { depth: 3 });
	} catch {
		return String(value);
	}
}

module.exports = QuietEnvironment;
