// Read the project's TypeScript as the compiler does (comments and regular expressions found by its scanner, not
// guessed by a pattern), for tests that keep a house rule true across the code.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** Every .ts file under `dir` (recursively, node_modules and dist skipped), as paths relative to `dir` with "/". */
export function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    if (d.name === 'node_modules' || d.name === 'dist') return [];
    const p = path.join(dir, d.name);
    if (d.isDirectory()) return tsFiles(p).map((f) => `${d.name}/${f}`);
    return d.name.endsWith('.ts') ? [d.name] : [];
  });
}

/** One piece of a source file with the 1-based line it starts on. */
export interface SourcePiece {
  line: number;
  text: string;
}

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
}

function lineOf(sf: ts.SourceFile, pos: number): number {
  return sf.getLineAndCharacterOfPosition(pos).line + 1;
}

/** Every regular-expression literal in a file. */
export function regexLiterals(file: string): SourcePiece[] {
  const sf = parse(file);
  const out: SourcePiece[] = [];
  const visit = (node: ts.Node): void => {
    if (node.kind === ts.SyntaxKind.RegularExpressionLiteral)
      out.push({ line: lineOf(sf, node.getStart(sf)), text: node.getText(sf) });
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** Every comment in a file (line and block comments, JSDoc included), each once. */
export function comments(file: string): SourcePiece[] {
  const sf = parse(file);
  const text = sf.getFullText();
  const seen = new Set<number>();
  const out: SourcePiece[] = [];
  const take = (ranges: readonly ts.CommentRange[] | undefined): void => {
    for (const r of ranges ?? []) {
      if (seen.has(r.pos)) continue;
      seen.add(r.pos);
      out.push({ line: lineOf(sf, r.pos), text: text.slice(r.pos, r.end) });
    }
  };
  const visit = (node: ts.Node): void => {
    take(ts.getLeadingCommentRanges(text, node.getFullStart()));
    take(ts.getTrailingCommentRanges(text, node.getEnd()));
    ts.forEachChild(node, visit);
  };
  visit(sf);
  take(ts.getLeadingCommentRanges(text, sf.endOfFileToken.getFullStart()));
  return out.sort((a, b) => a.line - b.line);
}
