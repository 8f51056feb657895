'use strict';
/**
 * Assertions on the tool definitions n8n sends to the model (OpenAI's `tools` of a chat completion request): every
 * tool named and described, and a JSON schema per parameter the model fills (`$fromAI`), none missing or untyped.
 *
 * expected: { <tool name>: { description: string | RegExp, parameters: { <name>: <JSON schema type> } } }
 */
function assertToolDefinitions(model, request, expected, assert) {
	const tools = model.tools(request);
	assert.deepEqual(
		Object.keys(tools).sort(),
		Object.keys(expected).sort(),
		'the tools offered to the model',
	);
	for (const [name, want] of Object.entries(expected)) {
		const { description, parameters } = tools[name];
		if (want.description instanceof RegExp)
			assert.match(description, want.description, `description of ${name}`);
		else assert.equal(description, want.description, `description of ${name}`);
		assert.equal(parameters.type, 'object', `${name}: parameters are an object schema`);
		assert.deepEqual(
			Object.keys(parameters.properties).sort(),
			Object.keys(want.parameters).sort(),
			`${name}: the parameters the model fills`,
		);
		assert.deepEqual(
			[...parameters.required].sort(),
			Object.keys(want.parameters).sort(),
			`${name}: every parameter is required`,
		);
		for (const [parameter, type] of Object.entries(want.parameters)) {
			const schema = parameters.properties[parameter];
			// $fromAI(..., 'json') is "an object or a list" (anyOf), the others a plain type
			const types = schema.type ? [schema.type] : (schema.anyOf || []).map((s) => s.type);
			assert.ok(types.length > 0, `${name}.${parameter} has no type: ${JSON.stringify(schema)}`);
			assert.deepEqual(types, [].concat(type), `${name}.${parameter}: type`);
			assert.ok(
				String(schema.description || '').length > 10,
				`${name}.${parameter} has no description: ${JSON.stringify(schema)}`,
			);
		}
	}
}

module.exports = { assertToolDefinitions };
