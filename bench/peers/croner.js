// Copyright (c) 2026 The clustercron authors
// ISC licence: see LICENSE.
//
// croner.js: the next-fire chains of bench/next.c computed by the npm
// package croner with its default options (NODE_PATH names the scratch
// node_modules).
//
//	node croner.js zone print COUNT [START [EXPRFILE]]
//	node croner.js zone bench SECONDS

'use strict';
const fs = require('fs');
const path = require('path');
const { Cron } = require('croner');

const START = 1767225600;	// 2026-01-01T00:00:00Z
const CHAIN = 500;
const [zone, mode, arg, first, efile] = process.argv.slice(2);
const exprs = fs.readFileSync(efile || path.join(__dirname, 'exprs.txt'),
    'utf8').split('\n').filter((l) => l.trim() !== '');
const from = first ? Number(first) : START;

function job(e) {
	return new Cron(e, { timezone: zone, paused: true });
}

if (mode === 'print') {
	for (const e of exprs) {
		const j = job(e);
		const out = [];
		let d = new Date(from * 1000);
		for (let i = 0; i < Number(arg); i++) {
			d = j.nextRun(d);
			if (d === null)
				break;
			out.push(Math.floor(d.getTime() / 1000));
		}
		console.log(e + '\t' + out.join(' '));
	}
} else {
	const budget = Number(arg) * 1000;
	for (const e of exprs) {
		let n = 0;
		const t0 = performance.now();
		let el;
		for (;;) {
			const j = job(e);
			let d = new Date(START * 1000);
			for (let i = 0; i < CHAIN; i++)
				d = j.nextRun(d);
			n += CHAIN;
			el = performance.now() - t0;
			if (el >= budget)
				break;
		}
		console.log([zone, e, n, (el / 1000).toFixed(3),
		    (n * 1000 / el).toFixed(0)].join('\t'));
	}
}
