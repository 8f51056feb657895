import type { Item } from '../../shared/item/item';
import { entityTypeParameterOf } from '../../shared/item/validation';
import { scopesOfRun } from '../../shared/server/metadata';

/** What EspoCRM does with each operation on a type without a stream, for the refusal's description. */
const WITHOUT_STREAM = {
	post: 'EspoCRM would store the post, but shows it nowhere: the records of this type have no Stream panel.',
	follow: 'EspoCRM would answer that the record is followed, and record nothing.',
};

/**
 * The entity types whose records have a stream in EspoCRM as installed (scopes/<type>.json `stream: true`, 8.1.5 and
 * 9.1.7). Most posts and follows are of these, and are not checked: the check reads the metadata, a few hundred
 * kilobytes, and a post to a Contact would cost two requests instead of one (saved workflows send what they sent).
 * An administrator may turn one's stream off in the Entity Manager, which is rare; every other type is checked.
 */
const STREAM_TYPES_AS_INSTALLED = new Set([
	'Account',
	'Case',
	'Contact',
	'Lead',
	'Meeting',
	'Opportunity',
	'Task',
]);

/**
 * From node version 1.1 on, refuses, before the item's request, a post to or a follow of a record whose entity type has no stream in EspoCRM
 * (`scopes.<type>.stream` not set: Call, Document, Email, User, custom types made as "Base"…), which EspoCRM takes
 * without a word (`WITHOUT_STREAM`). The server's metadata says which types have one (scopesOfRun: read once per run,
 * by the first item of a type not in STREAM_TYPES_AS_INSTALLED).
 * A type the metadata does not list (one the API user may not reach), or metadata that cannot be read, is left to the
 * server. Get Many and Unfollow are not checked: reading a Call's notes gives what EspoCRM holds (posts made through
 * the API), and "not followed" is the truth about any record of such a type.
 */
export async function requireStream(
	item: Item,
	entityType: string,
	operation: keyof typeof WITHOUT_STREAM,
) {
	// Version 1 sent these, and its saved workflows still do (CONTRIBUTING.md): the refusal comes with version 1.1.
	if (item.node.typeVersion < 1.1 || STREAM_TYPES_AS_INSTALLED.has(entityType)) return;
	const scopes = await scopesOfRun(item.run, item.index);
	const scope = scopes?.[entityType];
	if (!scopes || !scope?.entity || scope.stream) return;
	const withStream = Object.entries(scopes)
		.filter(([, other]) => other.entity && other.stream)
		.map(([name]) => name)
		.sort();
	throw item.refuse(
		entityTypeParameterOf(item),
		`is ${entityType}, whose records have no stream in EspoCRM`,
		`${WITHOUT_STREAM[operation]} The entity types with a stream on this server: ${withStream.join(', ') || 'none'}. An administrator can turn a type's stream on in Administration > Entity Manager > ${entityType} > Edit > Stream.`,
	);
}
