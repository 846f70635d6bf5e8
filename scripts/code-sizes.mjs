// The largest files and functions under apps/api/src, in lines: what the code-shape rule (no file
// over 400 lines, no function over 80; configuration parsing and SQL aside) is measured with.
// `node scripts/code-sizes.mjs [count]`.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import ts from 'typescript';

const root = fileURLToPath(new URL('../apps/api/src', import.meta.url));
const count = Number(process.argv[2] ?? 15);

function sourceFiles(directory) {
  return readdirSync(directory).flatMap((name) => {
    const full = path.join(directory, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [full] : [];
  });
}

const files = [];
const functions = [];
for (const file of sourceFiles(root)) {
  const text = readFileSync(file, 'utf8');
  const relative = path.relative(root, file);
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lineOf = (position) => source.getLineAndCharacterOfPosition(position).line + 1;
  files.push({ name: relative, lines: lineOf(text.length) });
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const name =
        (node.name && ts.isIdentifier(node.name) && node.name.text) ||
        (ts.isVariableDeclaration(node.parent) && node.parent.name.getText()) ||
        (ts.isPropertyAssignment(node.parent) && node.parent.name.getText()) ||
        '(anonymous)';
      const lines = lineOf(node.getEnd()) - lineOf(node.getStart()) + 1;
      functions.push({ name: `${relative}:${lineOf(node.getStart())} ${name}`, lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

const show = (title, items) => {
  console.log(title);
  for (const item of items.sort((a, b) => b.lines - a.lines).slice(0, count)) {
    console.log(`  ${String(item.lines).padStart(5)}  ${item.name}`);
  }
};
show('Largest files (lines)', files);
show('Largest functions (lines)', functions);
