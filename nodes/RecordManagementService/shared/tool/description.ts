import type { INodeProperties } from 'n8n-workflow';

/**
 * What the tool's description says, made from the node's own parameters as saved (`$rawParameter`: a parameter the
 * model fills is never evaluated here, where n8n has no arguments yet): the entity type, what the operation does with
 * which fields (and the allowed values of the mapped fields that have a list, which the field mapper keeps in its saved
 * schema: n8n's $fromAI cannot put them in the tool's schema), and what comes back. Two Create tools then differ for the
 * model ("Create one Task record …" and "Create one Lead record …"), where n8n's own description is the same for both.
 *
 * n8n runs it as an expression (`GENERATED_DESCRIPTION`, its source as compiled): plain JavaScript with no comment or
 * import inside, which n8n's expression engine accepts. n8n also resolves it with the other parameters when a routed
 * operation (Get) runs as a tool: it must never throw. The form's notices show what it says (`describedShapes`).
 */
// `p`: the tool's parameters as n8n saved them, of whatever shape a user wrote.
export const describeTool = (p: any): string => {
	try {
		const fixed = (v: unknown) => typeof v === 'string' && v.trim() !== '' && !v.startsWith('=');
		const list = (names: unknown[]) => names.filter(fixed).join(', ');
		const chosen = p.entityType === 'custom' ? p.customEntityType : p.entityType;
		const type = fixed(chosen) ? chosen + ' record' : 'record (of the type in the arguments)';
		const rows: any[] = (p.customFields && p.customFields.field) || [];
		const fields =
			p.bodyMode === 'json'
				? ''
				: list(
						p.bodyMode === 'mapper'
							? Object.keys((p.columns && p.columns.value) || {})
							: Object.keys(p.fields || {}).concat(rows.map((r) => r.name)),
					);
		const mapped = (p.columns && p.columns.value) || {};
		const allowed =
			p.bodyMode === 'mapper'
				? ((p.columns && p.columns.schema) || [])
						.filter(
							(f: any) =>
								f.options &&
								f.options.length &&
								mapped[f.id] !== undefined &&
								mapped[f.id] !== null &&
								mapped[f.id] !== '',
						)
						.map((f: any) => f.id + ': ' + f.options.map((o: any) => o.value).join(' | '))
				: [];
		const sets =
			(fields ? ' Fields it sets: ' + fields + '.' : '') +
			(allowed.length ? ' Allowed values: ' + allowed.join('; ') + '.' : '') +
			' A value outside the allowed values of a field is refused with the list of them.';
		const conditions = ((p.conditions && p.conditions.condition) || []).map(
			(c: any) => c.attribute + ' ' + c.operator,
		);
		const select =
			p.listOptions && p.listOptions.select ? [].concat(p.listOptions.select).filter(fixed) : [];
		const selected = select.length ? 'their ID and ' + select.join(', ') : 'their fields';
		const limit = p.returnAll
			? ''
			: ' (at most ' + (fixed(String(p.limit)) ? p.limit : 'the number in the arguments') + ')';
		const link = p.link === 'custom' ? p.customLink : p.link;
		const related = fixed(link)
			? 'records of its relationship "' + link + '"'
			: 'records of the relationship in the arguments';
		const operation = p.resource + '.' + p.operation;
		const described: Record<string, string> = {
			'record.create':
				'Create one ' +
				type +
				' in the CRM.' +
				sets +
				' Returns the new record with its ID; when it looks like an existing record, nothing is created and the error names the existing record and its ID.',
			'record.update':
				'Update one ' + type + ' in the CRM, by its ID.' + sets + ' Returns the record as changed.',
			'record.upsert':
				'Create one ' +
				type +
				' in the CRM, or update the one whose ' +
				(fixed(p.matchField) ? p.matchField : 'match field') +
				' matches.' +
				sets +
				' Returns the record.',
			'record.get': 'Get one ' + type + ' from the CRM by its ID.',
			'record.delete': 'Delete one ' + type + ' from the CRM by its ID.',
			'record.getMany':
				'Find ' +
				type +
				's in the CRM' +
				(conditions.length ? ' by ' + conditions.join(', ') : '') +
				limit +
				'. Returns ' +
				selected +
				', "found: 0" when none match, and how many matched in all when there are more.',
			'relationship.getManyRelated':
				'List the ' + related + ', linked to one ' + type + limit + '. Returns ' + selected + '.',
			'relationship.link': 'Link one ' + type + ' to ' + related + ', by their IDs.',
			'relationship.unlink': 'Unlink one ' + type + ' from ' + related + ', by their IDs.',
			'stream.post':
				'Post a note (Markdown) to the stream of one ' +
				type +
				', by its ID, where the team sees it. Returns the note.',
			'stream.getStream':
				'List the notes of the stream of one ' + type + ', newest first' + limit + '.',
		};
		return (
			described[operation] ||
			'Record Management Service (CRM): ' + p.resource + ', ' + p.operation + '.'
		);
	} catch (error) {
		return 'Record Management Service (CRM)';
	}
};

/** `describeTool` as an expression's code, on one line. */
const DESCRIBE_TOOL = `(${describeTool.toString().replace(/\s*\n\s*/g, ' ')})`;

/** The generated description as n8n evaluates it: `describeTool` over the parameters as saved. */
const GENERATED_DESCRIPTION = `={{ ${DESCRIBE_TOOL}($rawParameter) }}`;

const from = (version: number) => [{ _cnd: { gte: version } }];

/**
 * Version 1 and 1.1: the description is the parameter itself, its default the generated description as an expression
 * (which the form shows as code). The model reads what n8n resolves it to, or the author's own text.
 */
const toolDescriptionV1: INodeProperties = {
	displayName: 'Tool Description',
	name: 'toolDescription',
	type: 'string',
	typeOptions: { rows: 3 },
	default: GENERATED_DESCRIPTION,
	description:
		'What the AI model reads about this tool. The default describes it from its settings (entity type, operation, fields set, conditions, what comes back); replace it with your own text to say when to use the tool.',
	hint: 'Name the entity type and what the tool returns, so that the model tells tools apart. For a field with a fixed list of values (a status) not set through the Field Mapper, list the values in its $fromAI description: n8n gives the model no list.',
	displayOptions: { show: { '@tool': [true], '@version': [1, 1.1] } },
};

/**
 * From version 1.2, as n8n's own tools offer it: Set Automatically (the generated description, never shown as code)
 * or Set Manually (the author's words, as plain text). Not n8n's own `descriptionType`, whose "auto" makes n8n
 * replace the description with its generic one ("Create a record from the given fields in …"). The model reads
 * `toolDescription`, hidden from 1.2 on, whose default picks one or the other: the author's words live in a parameter
 * of their own, so that choosing Set Automatically again gives the generated text (n8n keeps a value by its name
 * whichever declaration shows it: words typed into `toolDescription` itself would stay after the switch back).
 */
const toolDescriptionType: INodeProperties = {
	displayName: 'Tool Description',
	name: 'toolDescriptionType',
	type: 'options',
	noDataExpression: true,
	options: [
		{
			name: 'Set Automatically',
			value: 'auto',
			description:
				'Made from the settings below: what the tool does, on which entity type, with which fields, and what it returns',
		},
		{
			name: 'Set Manually',
			value: 'manual',
			description: 'Your own words: what the tool does and when the model should use it',
		},
	],
	default: 'auto',
	displayOptions: { show: { '@tool': [true], '@version': from(1.2) } },
};

const toolDescriptionChosen: INodeProperties = {
	displayName: 'Tool Description as the Model Reads It',
	name: 'toolDescription',
	type: 'hidden',
	default: `={{ $parameter.toolDescriptionType === 'manual' ? $parameter.toolDescriptionText : ${DESCRIBE_TOOL}($rawParameter) }}`,
	displayOptions: { show: { '@tool': [true], '@version': from(1.2) } },
};

const toolDescriptionText: INodeProperties = {
	displayName: 'Description',
	name: 'toolDescriptionText',
	type: 'string',
	typeOptions: { rows: 4 },
	required: true,
	default: '',
	placeholder:
		'e.g. Find a contact by e-mail address. Use it first, before creating a lead for the sender.',
	description: 'What the AI model reads about this tool: what it does, and when to use it',
	hint: 'Name the entity type and what the tool returns, so that the model tells tools apart. For a field with a fixed list of values (a status), list the values here or in its $fromAI description: n8n gives the model no list.',
	displayOptions: {
		show: { '@tool': [true], '@version': from(1.2), toolDescriptionType: ['manual'] },
	},
};

/** Values that read as the blanks of a generated description: what the form's notice shows for each operation. */
const BLANKS = {
	entityType: '‹entity type›',
	fields: { '‹the fields set below›': '' },
	matchField: '‹match field›',
	conditions: { condition: [{ attribute: '‹field›', operator: '‹operator›' }] },
	limit: '‹limit›',
	link: '‹relationship›',
};

/**
 * One notice per operation under Set Automatically: the description the model reads, in words, its blanks filled from
 * the settings below. n8n 2.41's form cannot show a text computed from the settings outside an expression (a notice,
 * a hint and an option's description are fixed texts), so the notice shows the sentence with its blanks named.
 */
function describedShapes(operationSelectors: INodeProperties[]): INodeProperties[] {
	return operationSelectors.flatMap((selector) =>
		(selector.options ?? []).map((option) => {
			const resource = String(selector.displayOptions?.show?.resource?.[0]);
			const operation = String((option as { value: unknown }).value);
			const generated = describeTool({ ...BLANKS, resource, operation });
			const mapperNote = ['create', 'update', 'upsert'].includes(operation)
				? ' With the Field Mapper, the allowed values of the mapped fields that have a list follow the fields.'
				: '';
			const ownWords = generated.startsWith('Record Management Service (CRM)')
				? ' Choose Set Manually to say what the tool does and when to use it.'
				: '';
			return {
				displayName: `The model reads: “${generated}”${mapperNote}${ownWords}`,
				name: `toolDescriptionNotice_${resource}_${operation}`,
				type: 'notice',
				default: '',
				displayOptions: {
					show: {
						'@tool': [true],
						'@version': from(1.2),
						toolDescriptionType: ['auto'],
						resource: [resource],
						operation: [operation],
					},
				},
			} satisfies INodeProperties;
		}),
	);
}

/**
 * The description an AI agent's model reads for the tool, shown for the tool only (`@tool`). n8n adds its own "Tool
 * Description" to a tool (its default: the operation's action, "Create a record from the given fields in Record
 * Management Service", the same for every entity type) unless the node declares `toolDescription`.
 */
export function toolDescriptionFields(operationSelectors: INodeProperties[]): INodeProperties[] {
	return [
		toolDescriptionV1,
		toolDescriptionType,
		toolDescriptionChosen,
		toolDescriptionText,
		...describedShapes(operationSelectors),
	];
}
