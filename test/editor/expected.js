'use strict';
/*
 * What a person must see in the editor, written out: a label, a list or a text that changes makes the editor test fail
 * (checks.js). Lists that come from the server are checked against the sandbox's own data where the check can read
 * it (checks.js); these are the ones a person would notice change.
 */

/** The description of the nodes panel's entry "Record Management Service": the polling trigger's (n8n takes it). */
const ENTRY = 'Create, find, update and link CRM records, and start workflows when records are created or changed (polling), on EspoCRM and other Record Management Service servers';

const WEBHOOK = 'Starts the workflow when EspoCRM reports a change through its webhooks';

module.exports = {
	nodesPanel: {
		next: [
			['Record Management Service', ENTRY],
			['Record Management Service Webhook', WEBHOOK],
		],
		actions: [
			'ATTACHMENT (ESPOCRM) ACTIONS',
			'Download an attachment',
			'BULK ACTIONS',
			'Delete many records at once',
			'Update many records at once',
			'EMAIL ACTIONS',
			'Send an email',
			'LEAD ACTIONS',
			'Convert a lead by its ID',
			'RECORD ACTIONS',
			'Create a record from the given fields',
			'Create a record or update the one that matches a field',
			'Delete a record by its ID',
			'Get a record by its ID',
			'Get many records that match conditions',
			'Update the given fields of a record by its ID',
			'RELATIONSHIP ACTIONS',
			'Get many records linked to a record',
			'Link records to a record',
			'Unlink a record from a record',
			'STREAM (ESPOCRM) ACTIONS',
			'Follow a record',
			'Get many notes of a stream',
			'Post to the stream of a record',
			'Unfollow a record',
		],
		triggers: [
			['Record Management Service', ENTRY],
			['Record Management Service Webhook', WEBHOOK],
		],
		triggerEvents: ['On record created', 'On record created or updated', 'On new stream note (EspoCRM)'],
		/** The AI Agent's tool picker: the action node as a tool, with the action node's description. */
		tools: [['Record Management Service Tool', 'Create, find, update and link CRM records on EspoCRM and other Record Management Service servers']],
	},
	/** The labels of each operation's form, top to bottom (EspoCRM credential, Contact). */
	forms: {
		'record.create': ["Credential", "Resource", "Operation", "Entity Type Name or ID", "Define Fields", "Fields", "Custom Fields", "Options", "Simplify", "Request Settings"],
		'record.upsert': ["Credential", "Resource", "Operation", "Entity Type Name or ID", "Match By Field Name or ID", "Match Value", "Define Fields", "Fields", "Custom Fields", "Options", "Simplify", "Request Settings"],
		'record.delete': ["Credential", "Resource", "Operation", "Entity Type Name or ID", "Record", "Request Settings"],
		'record.get': ["Credential", "Resource", "Operation", "Entity Type Name or ID", "Record", "Simplify", "Request Settings"],
		'record.getMany': ["Credential", "Resource", "Operation", "Entity Type Name or ID", "Return All", "Limit", "Filter", "Options", "Search Text (EspoCRM)", "Filter (EspoCRM) Name or ID", "Check-Box (EspoCRM) Names or IDs", "Simplify", "Request Settings"],
		'record.update': ["Credential", "Resource", "Operation", "Entity Type Name or ID", "Record", "Define Fields", "Fields", "Custom Fields", "Simplify", "Request Settings"],
		'relationship.getManyRelated': ["Credential", "Resource", "Operation", "Entity Type Name or ID", "Record", "Relationship Name or ID", "Return All", "Limit", "Filter", "Options", "Search Text (EspoCRM)", "Filter (EspoCRM) Name or ID", "Check-Box (EspoCRM) Names or IDs", "Simplify", "Request Settings"],
		'relationship.link': ["Credential", "Resource", "Operation", "Entity Type Name or ID", "Record", "Relationship Name or ID", "Related Record IDs", "Request Settings"],
		'relationship.unlink': ["Credential", "Resource", "Operation", "Entity Type Name or ID", "Record", "Relationship Name or ID", "Related Record IDs", "Request Settings"],
		'bulk.massDelete': ["Credential", "Resource", "Operation", "Entity Type Name or ID", "Record IDs From", "ID Field", "IDs per Request", "Request Settings"],
		'bulk.massUpdate': ["Credential", "Resource", "Operation", "Entity Type Name or ID", "Record IDs From", "ID Field", "IDs per Request", "Define Fields", "Fields", "Custom Fields", "Request Settings"],
		'lead.convert': ["Credential", "Resource", "Operation", "Lead", "Records to Create", "If Already Converted", "Request Settings"],
		'email.send': ["Credential", "Resource", "Operation", "To", "Subject", "Body", "Body Is HTML", "From", "Options", "Request Settings"],
		'attachment.download': ["Credential", "Resource", "Operation", "Attachment ID", "Put Output File in Field", "Request Settings"],
		'stream.follow': ["Credential", "Resource", "Operation", "Entity Type Name or ID", "Record", "Request Settings"],
		'stream.getStream': ["Credential", "Resource", "Operation", "Entity Type Name or ID", "Record", "Stream Of", "Options", "Return All", "Limit", "Request Settings"],
		'stream.post': ["Credential", "Resource", "Operation", "Entity Type Name or ID", "Record", "Text", "Options", "Simplify", "Request Settings"],
		'stream.unfollow': ["Credential", "Resource", "Operation", "Entity Type Name or ID", "Record", "Request Settings"],
	},
	/** Forms pictured in the README (docs/images/<name>.png, written with --readme-images). */
	readmeForms: { 'record.getMany': 'get-many' },
	lists: {
		entityTypes: ['Account', 'Call', 'Contact', 'Email', 'Lead', 'Meeting', 'Opportunity', 'Project (CProject, custom)', 'Task', 'User', 'Other (Enter Name)'],
		contactLinks: [
			'Account (Primary) (account) → Account',
			'Assigned User (assignedUser) → User',
			'Calls (calls) → Call',
			'Emails (emails) → Email',
			'Meetings (meetings) → Meeting',
			'Opportunities (opportunities) → Opportunity',
			'Tasks (tasks) → Task',
			'Teams (teams) → Team',
		],
		leadMapperForm: ['Credential', 'Resource', 'Operation', 'Entity Type Name or ID', 'Define Fields', 'Mapping Column Mode', 'Values to Send', 'Last Name (lastName)', 'Options', 'Simplify', 'Request Settings'],
		leadMapperFields: [
			'Salutation (salutationName)',
			'First Name (firstName)',
			'Title (title)',
			'Status (status)',
			'Source (source)',
			'Industry (industry)',
			'Opportunity Amount (opportunityAmount)',
			'Opportunity Amount Currency (opportunityAmountCurrency)',
			'Account Name (accountName)',
			'Website (website)',
			'Email (emailAddress)',
			'Phone (phoneNumber)',
			'Do Not Call (doNotCall)',
			'Description (description)',
			'Address Street (addressStreet)',
			'Address City (addressCity)',
			'Address State (addressState)',
			'Address Country (addressCountry)',
			'Address Postal Code (addressPostalCode)',
			'Assigned User ID (assignedUserId)',
			'Teams IDs (teamsIds, list: a, b)',
		],
		resources: ['Attachment (EspoCRM)', 'Bulk', 'Email', 'Lead', 'Record', 'Relationship', 'Stream (EspoCRM)'],
		triggerEvents: ['Record Created', 'Record Created or Updated', 'New Stream Note (EspoCRM)'],
	},
	/** Labels of Get Many's EspoCRM search, marked as the resources are, short enough for the form. */
	espocrmOnly: { getMany: ['Search Text (EspoCRM)', 'Filter (EspoCRM) Name or ID', 'Check-Box (EspoCRM) Names or IDs'] },
	triggerMessages: {
		standardServer:
			'The event "New Stream Note (EspoCRM)" needs the EspoCRM server. The interface as specified has no such operation. If the server is EspoCRM, choose "EspoCRM 7 or Later" as Server in the credential.',
		quietStream:
			"The stream of this Contact has no note of the types chosen (Post) yet. Fetch Test Event shows the newest one. Post a note on the record (in EspoCRM, or with this node's Stream > Post), or choose a record whose stream has notes, or other Note Types, then fetch again.",
	},
	tool: {
		notice:
			'The model reads: “Create one ‹entity type› record in the CRM. Fields it sets: ‹the fields set below›. A value outside the allowed values of a field is refused with the list of them. Returns the new record with its ID; when it looks like an existing record, nothing is created and the error names the existing record and its ID.” With the Field Mapper, the allowed values of the mapped fields that have a list follow the fields.',
		placeholder: 'e.g. Find a contact by e-mail address. Use it first, before creating a lead for the sender.',
	},
	credential: { wrong: /The server refused these credentials \(401\): check the API key/ },
};
