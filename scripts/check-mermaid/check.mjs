// check-mermaid: parses every ```mermaid block of the given Markdown files
// (and every other given file as one Mermaid diagram) with the mermaid
// package itself, the parser GitHub's and GitLab's renderers run.
//
//   node check.mjs FILE...
//
// Prints one line per diagram ("FILE:LINE: ok <type>" or "FILE:LINE: <the
// parser's error>") and exits 1 when a diagram does not parse or a Markdown
// file has no Mermaid block, 2 on a usage or read error.
//
// mermaid.parse needs DOM globals even for diagrams that render nothing
// (DOMPurify, which sanitizes labels, is created from `window` when mermaid
// loads): jsdom provides them, so the check runs headless, without a
// browser.
import { readFileSync } from 'node:fs';
import { JSDOM } from 'jsdom';

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: node check.mjs FILE...');
  process.exit(2);
}

const { window } = new JSDOM('<!doctype html><html><body></body></html>');
globalThis.window = window;
globalThis.document = window.document;
const { default: mermaid } = await import('mermaid');
mermaid.initialize({ startOnLoad: false });

// blocks returns the ```mermaid blocks of Markdown text with the line
// each starts on (the line after the fence).
function blocks(text) {
  const out = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^( {0,3})(`{3,}|~{3,})\s*mermaid\s*$/.exec(lines[i]);
    if (!open) continue;
    const fence = open[2];
    const body = [];
    let j = i + 1;
    while (j < lines.length && !(lines[j].trim().startsWith(fence[0].repeat(fence.length)) && lines[j].trim().replace(/[`~]/g, '') === '')) {
      body.push(lines[j]);
      j++;
    }
    out.push({ line: i + 2, text: body.join('\n') + '\n' });
    i = j;
  }
  return out;
}

let failed = false;
for (const file of files) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    console.error(`${file}: ${e.message}`);
    process.exit(2);
  }
  const diagrams = /\.(md|markdown)$/i.test(file) ? blocks(text) : [{ line: 1, text }];
  if (diagrams.length === 0) {
    console.log(`${file}: no mermaid block`);
    failed = true;
  }
  for (const d of diagrams) {
    try {
      const r = await mermaid.parse(d.text);
      console.log(`${file}:${d.line}: ok ${r.diagramType}`);
    } catch (e) {
      console.log(`${file}:${d.line}: ${String(e.message ?? e).replace(/\n/g, '\n    ')}`);
      failed = true;
    }
  }
}
process.exit(failed ? 1 : 0);
