/**
 * A record's web address in EspoCRM, such as https://crm.example.com/#Contact/view/6b02e09eadb4139af: the pattern a
 * record locator's "By URL" mode checks and extracts the ID with, and that the node and a tool's arguments accept in
 * place of an ID. The first group is the ID.
 */
export const RECORD_URL = 'https?://.+#[A-Za-z0-9_]+/view/([^/?#]+)';
