// Copyright (c) 2026 The clustercron authors
// ISC licence: see LICENSE.
//
// cronparser.js: the next-fire chains of bench/next.c computed by the
// npm package cron-parser (NODE_PATH names the scratch node_modules).
//
//	node cronparser.js zone print COUNT [START [EXPRFILE]]
//	node cronparser.js zone bench SECONDS

'use strict';
const fs = require('fs');
const path = require('path');
const { CronExpressionParser } = require('cron-parser');

const START = 1767225600;	// 2026-01-01T00:00:00Z
const CHAIN = 500;
const [zone, mode, arg, first, efile] = process.argv.slice(2);
const exprs = fs.readFileSync(efile || path.join(__dirname, 'exprs.txt'),
    'utf8').split('\n').filter((l) => l.trim() !== '');
const from = first ? Number(first) : START;

function iter(e) {
	return CronExpressionParser.parse(e, {
		currentDate: new Date(from * 1000), tz: zone,
	});
}

if (mode === 'print') {
	for (const e of exprs) {
		const it = iter(e);
		const out = [];
		for (let i = 0; i < Number(arg); i++)
			out.push(Math.floor(it.next().getTime() / 1000));
		console.log(e + '\t' + out.join(' '));
	}
} else {
	const budget = Number(arg) * 1000;
	for (const e of exprs) {
		let n = 0;
		const t0 = performance.now();
		let el;
		for (;;) {
			const it = iter(e);
			for (let i = 0; i < CHAIN; i++)
				it.next();
			n += CHAIN;
			el = performance.now() - t0;
			if (el >= budget)
				break;
		}
		console.log([zone, e, n, (el / 1000).toFixed(3),
		    (n * 1000 / el).toFixed(0)].join('\t'));
	}
}
