'use strict';
/*
 * A tiny SMTP server that accepts every message and keeps it in memory (no TLS, no AUTH): where EspoCRM's outgoing
 * mail goes during the tests.
 *
 *   const sink = await startSmtpSink({ port: 0 });
 *   sink.port; sink.messages  // [{from, to: [...], subject, headers: {lowercase: value}, body, raw, at}]
 *   await sink.close();
 *
 * `node test/espocrm/rig/smtp-sink.js [port]` runs one alone and prints each message.
 */

const net = require('net');

/** RFC 2047 encoded words (=?UTF-8?B?...?= / =?UTF-8?Q?...?=) as text. */
function decodeWords(s) {
	return String(s).replace(
		/=\?([^?]+)\?([BbQq])\?([^?]*)\?=\s*(?==\?)?/g,
		(_m, _charset, enc, text) => {
			if (enc.toUpperCase() === 'B') return Buffer.from(text, 'base64').toString('utf8');
			return Buffer.from(
				text
					.replace(/_/g, ' ')
					.replace(/=([0-9A-Fa-f]{2})/g, (_x, h) => String.fromCharCode(parseInt(h, 16))),
				'latin1',
			).toString('utf8');
		},
	);
}

function decodeQuotedPrintable(s) {
	const bytes = s
		.replace(/=\r?\n/g, '')
		.replace(/=([0-9A-Fa-f]{2})/g, (_x, h) => String.fromCharCode(parseInt(h, 16)));
	return Buffer.from(bytes, 'latin1').toString('utf8');
}

function splitHeaders(text) {
	const at = text.search(/\r?\n\r?\n/);
	const head = at < 0 ? text : text.slice(0, at);
	const body = at < 0 ? '' : text.slice(at).replace(/^\r?\n\r?\n/, '');
	const headers = {};
	for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
		const i = line.indexOf(':');
		if (i <= 0) continue;
		const k = line.slice(0, i).trim().toLowerCase();
		const v = line.slice(i + 1).trim();
		headers[k] = headers[k] === undefined ? v : `${headers[k]}, ${v}`;
	}
	return { headers, body };
}

/** The text of a part, decoded; for multipart: the parts' texts, the first text/plain or text/html first. */
function partText(headers, body) {
	const ctype = headers['content-type'] || 'text/plain';
	const boundary = /boundary="?([^";]+)"?/i.exec(ctype);
	if (/^multipart\//i.test(ctype) && boundary) {
		const parts = body.split(`--${boundary[1]}`).slice(1);
		const texts = [];
		for (const p of parts) {
			if (p.startsWith('--')) break;
			const sub = splitHeaders(p.replace(/^\r?\n/, ''));
			texts.push(partText(sub.headers, sub.body));
		}
		return texts.join('\n');
	}
	const enc = (headers['content-transfer-encoding'] || '').toLowerCase();
	if (enc === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
	if (enc === 'quoted-printable') return decodeQuotedPrintable(body);
	return body;
}

function parseMessage(raw, envelope) {
	const { headers, body } = splitHeaders(raw);
	return {
		from: envelope.from,
		to: envelope.to,
		subject: decodeWords(headers.subject || ''),
		headers,
		text: partText(headers, body),
		raw,
		at: new Date().toISOString(),
	};
}

function startSmtpSink({ port = 0, host = '127.0.0.1', log } = {}) {
	const messages = [];
	const sockets = new Set();
	const server = net.createServer((socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
		socket.on('error', () => {});
		let buffer = '';
		let inData = false;
		let data = [];
		let envelope = { from: '', to: [] };
		const reply = (line) => socket.write(`${line}\r\n`);
		reply('220 rms-smtp-sink ESMTP ready');
		socket.on('data', (chunk) => {
			buffer += chunk.toString('latin1');
			for (;;) {
				const nl = buffer.indexOf('\n');
				if (nl < 0) break;
				const line = buffer.slice(0, nl).replace(/\r$/, '');
				buffer = buffer.slice(nl + 1);
				if (inData) {
					if (line === '.') {
						inData = false;
						const raw = Buffer.from(data.join('\r\n'), 'latin1').toString('utf8');
						const msg = parseMessage(raw, envelope);
						messages.push(msg);
						if (log)
							log(`smtp sink: message from ${msg.from} to ${msg.to.join(', ')}: ${msg.subject}`);
						envelope = { from: '', to: [] };
						data = [];
						reply('250 2.0.0 OK: queued');
					} else data.push(line.startsWith('..') ? line.slice(1) : line);
					continue;
				}
				const cmd = line.slice(0, 4).toUpperCase();
				const arg = line.slice(4).trim();
				if (cmd === 'EHLO') {
					socket.write(
						'250-rms-smtp-sink\r\n250-8BITMIME\r\n250-SMTPUTF8\r\n250 SIZE 52428800\r\n',
					);
				} else if (cmd === 'HELO') reply('250 rms-smtp-sink');
				else if (cmd === 'MAIL') {
					envelope = {
						from: (/<([^>]*)>/.exec(arg) || [null, arg.replace(/^FROM:/i, '').trim()])[1],
						to: [],
					};
					reply('250 2.1.0 OK');
				} else if (cmd === 'RCPT') {
					envelope.to.push((/<([^>]*)>/.exec(arg) || [null, arg.replace(/^TO:/i, '').trim()])[1]);
					reply('250 2.1.5 OK');
				} else if (cmd === 'DATA') {
					inData = true;
					data = [];
					reply('354 End data with <CR><LF>.<CR><LF>');
				} else if (cmd === 'RSET') {
					envelope = { from: '', to: [] };
					reply('250 2.0.0 OK');
				} else if (cmd === 'NOOP') reply('250 2.0.0 OK');
				else if (cmd === 'QUIT') {
					reply('221 2.0.0 Bye');
					socket.end();
				} else if (line.trim() === '') continue;
				else reply('502 5.5.2 Command not implemented');
			}
		});
	});
	return new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, host, () => {
			const sink = {
				port: server.address().port,
				host,
				messages,
				close: () =>
					new Promise((r) => {
						for (const s of sockets) s.destroy();
						server.close(() => r());
					}),
			};
			resolve(sink);
		});
	});
}

module.exports = { startSmtpSink, parseMessage };

if (require.main === module) {
	startSmtpSink({ port: Number(process.argv[2] || 2525), log: (m) => console.log(m) }).then((s) =>
		console.log(`SMTP sink on ${s.host}:${s.port}`),
	);
}
