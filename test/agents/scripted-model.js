// @ts-check
'use strict';
/*
 * A scripted stand-in for OpenAI's chat completions API (`POST /v1/chat/completions`), on 127.0.0.1, for n8n's
 * OpenAI Chat Model node: no network, no real model. It answers each request with the next turn of a script and
 * records every request it got, so that a test can check what n8n sent to the model (the tool definitions, the tool
 * results) as well as what the tools did.
 *
 *   const model = await startScriptedModel();
 *   model.baseUrl                      // http://127.0.0.1:<port>/v1, the OpenAI credential's "Base URL"
 *   model.play([turn, turn, ...])      // the script of the next execution (earlier requests are forgotten)
 *   model.requests                     // [{ body, headers, turn }] of this script, in arrival order
 *
 * A turn is the model's answer to one request: { toolCalls: [{ name, args }] } (one or several tool calls at once),
 * { text } (the final answer), or a function (request, model) => one of those, that reads what came back from the
 * tools (model.toolResults(request)) as a real model would, e.g. to pass on a record ID it found. A request after
 * the script has ended gets a final answer saying so and is counted in `model.overruns`, which a check asserts is 0.
 * Answers are streamed (server-sent events) when the request asks for `stream: true`.
 */
const http = require('node:http');

/** @typedef {{ name: string, args: Record<string, unknown> }} ToolCall */
/** @typedef {{ toolCalls: ToolCall[] } | { text: string }} Answer */
/** @typedef {{ body: any, headers: http.IncomingHttpHeaders, turn: number }} ModelRequest */
/** @typedef {Answer | ((request: ModelRequest, model: ScriptedModel) => Answer)} Turn */

class ScriptedModel {
	/** @param {http.Server} server */
	constructor(server) {
		this.server = server;
		/** @type {Turn[]} */
		this.turns = [];
		/** @type {ModelRequest[]} */
		this.requests = [];
		/** Requests that came after the script's last turn. */
		this.overruns = 0;
		/** Requests to anything but POST /v1/chat/completions. */
		this.unexpected = /** @type {string[]} */ ([]);
		this.callNumber = 0;
	}

	get baseUrl() {
		const address = /** @type {import('node:net').AddressInfo} */ (this.server.address());
		return `http://127.0.0.1:${address.port}/v1`;
	}

	/** The script of the next execution; forgets the requests of the one before. @param {Turn[]} turns */
	play(turns) {
		this.turns = [...turns];
		this.requests = [];
		this.overruns = 0;
		this.unexpected = [];
	}

	/** The tool definitions of a request, by name: { description, parameters (JSON schema) }. @param {ModelRequest} request */
	tools(request) {
		/** @type {Record<string, { description: string, parameters: any }>} */
		const byName = {};
		for (const tool of request.body.tools || [])
			byName[tool.function.name] = {
				description: tool.function.description,
				parameters: tool.function.parameters,
			};
		return byName;
	}

	/**
	 * What came back from the tools, as the request carries it: the `tool` messages, each with the name of the tool
	 * that was called (from the assistant message that called it) and its content parsed as JSON where it is JSON.
	 * @param {ModelRequest} request
	 */
	toolResults(request) {
		const messages = request.body.messages || [];
		/** @type {Record<string, string>} */
		const names = {};
		for (const m of messages)
			for (const call of m.tool_calls || []) names[call.id] = call.function.name;
		return messages
			.filter((m) => m.role === 'tool')
			.map((m) => {
				const text = typeof m.content === 'string' ? m.content : JSON.stringify(m.content);
				let json;
				try {
					json = JSON.parse(text);
				} catch {
					json = undefined;
				}
				return { id: m.tool_call_id, name: names[m.tool_call_id], text, json };
			});
	}

	/** The last tool result of a request (what the turn answers to). @param {ModelRequest} request */
	lastToolResult(request) {
		const results = this.toolResults(request);
		return results[results.length - 1];
	}

	/** @param {ModelRequest} request @returns {Answer} */
	answer(request) {
		const turn = this.turns[request.turn];
		if (turn === undefined) {
			this.overruns++;
			return {
				text: `(the scripted model has no turn ${request.turn + 1}: the script has ${this.turns.length})`,
			};
		}
		return typeof turn === 'function' ? turn(request, this) : turn;
	}

	/** The chat completion of an answer, in OpenAI's form. @param {Answer} answer @param {string} model */
	completion(answer, model) {
		const id = `chatcmpl-scripted-${++this.callNumber}`;
		const message =
			'toolCalls' in answer
				? {
						role: 'assistant',
						content: null,
						tool_calls: answer.toolCalls.map((call, index) => ({
							id: `call_${this.callNumber}_${index + 1}`,
							type: 'function',
							function: { name: call.name, arguments: JSON.stringify(call.args) },
						})),
					}
				: { role: 'assistant', content: answer.text };
		return {
			id,
			object: 'chat.completion',
			created: Math.floor(Date.now() / 1000),
			model,
			choices: [
				{
					index: 0,
					message,
					logprobs: null,
					finish_reason: 'toolCalls' in answer ? 'tool_calls' : 'stop',
				},
			],
			usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
		};
	}

	/** The same completion as server-sent events of chat.completion.chunk. @param {ReturnType<ScriptedModel['completion']>} completion */
	chunks(completion) {
		const { message, finish_reason: finishReason } = completion.choices[0];
		const base = {
			id: completion.id,
			object: 'chat.completion.chunk',
			created: completion.created,
			model: completion.model,
		};
		const delta = message.tool_calls
			? {
					role: 'assistant',
					content: null,
					tool_calls: message.tool_calls.map((call, index) => ({ index, ...call })),
				}
			: { role: 'assistant', content: message.content };
		return [
			{ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: null }] },
			{
				...base,
				choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: finishReason }],
				usage: completion.usage,
			},
		];
	}

	/** @param {http.IncomingMessage} req @param {http.ServerResponse} res */
	async handle(req, res) {
		let raw = '';
		for await (const chunk of req) raw += chunk;
		if (req.method !== 'POST' || (req.url || '').split('?')[0] !== '/v1/chat/completions') {
			this.unexpected.push(`${req.method} ${req.url}`);
			res.writeHead(404, { 'content-type': 'application/json' });
			res.end(
				JSON.stringify({
					error: {
						message: `The scripted model only answers POST /v1/chat/completions, not ${req.method} ${req.url}`,
					},
				}),
			);
			return;
		}
		/** @type {ModelRequest} */
		const request = { body: JSON.parse(raw), headers: req.headers, turn: this.requests.length };
		this.requests.push(request);
		let completion;
		try {
			completion = this.completion(this.answer(request), request.body.model);
		} catch (error) {
			// a turn that could not read what it expected: the check shows this text in the agent's answer
			completion = this.completion(
				{
					text: `(scripted turn ${request.turn + 1} failed: ${error instanceof Error ? error.message : error})`,
				},
				request.body.model,
			);
			this.overruns++;
		}
		if (request.body.stream) {
			res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
			for (const chunk of this.chunks(completion)) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
			res.end('data: [DONE]\n\n');
			return;
		}
		res.writeHead(200, { 'content-type': 'application/json' });
		res.end(JSON.stringify(completion));
	}

	/** @returns {Promise<void>} */
	close() {
		return new Promise((resolve) => this.server.close(() => resolve()));
	}
}

/** @returns {Promise<ScriptedModel>} */
async function startScriptedModel() {
	/** @type {ScriptedModel} */
	let model;
	const server = http.createServer((req, res) => {
		model.handle(req, res).catch((error) => {
			res.writeHead(500, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ error: { message: String(error) } }));
		});
	});
	model = new ScriptedModel(server);
	await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
	return model;
}

module.exports = { startScriptedModel, ScriptedModel };
