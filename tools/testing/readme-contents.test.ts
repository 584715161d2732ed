// The README is the reference for every decision, and ~2,600 lines long: its "Contents"
// section is how a maintainer or a client finds a part of it. This test keeps that list
// whole (every level-2 and level-3 heading listed) and every in-page link working, with
// anchors computed as GitHub computes them, so a renamed or added section fails here
// instead of leaving a dead or missing entry.
import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const README = fileURLToPath(new URL("../../README.md", import.meta.url));

interface Heading {
  level: number;
  text: string;
  anchor: string;
  line: number;
}

// GitHub's anchor for a heading (github-slugger): lowercase, drop every character that is not
// a letter, mark, digit, connector (`_`), space or hyphen, spaces become hyphens, and a repeated
// anchor gets -1, -2… in document order. Markdown syntax in a heading (backticks, asterisks) is
// punctuation and drops out the same way, so the raw heading text gives the rendered anchor.
function slugger(): (text: string) => string {
  const occurrences = new Map<string, number>();
  return (text) => {
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
      .replace(/ /g, "-");
    let slug = base;
    while (occurrences.has(slug)) {
      const n = occurrences.get(base)! + 1;
      occurrences.set(base, n);
      slug = `${base}-${n}`;
    }
    occurrences.set(slug, 0);
    return slug;
  };
}

// Headings outside fenced code blocks (a `# comment` in a shell example is not a heading).
function headingsOf(markdown: string): Heading[] {
  const slug = slugger();
  const headings: Heading[] = [];
  let inFence = false;
  markdown.split("\n").forEach((raw, index) => {
    if (/^\s*(```|~~~)/.test(raw)) inFence = !inFence;
    if (inFence) return;
    const match = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(raw);
    if (match) {
      const text = match[2]!;
      headings.push({ level: match[1]!.length, text, anchor: slug(text), line: index + 1 });
    }
  });
  return headings;
}

// The lines outside fenced code blocks, numbered from 1.
function proseLines(markdown: string): { text: string; line: number }[] {
  const lines: { text: string; line: number }[] = [];
  let inFence = false;
  markdown.split("\n").forEach((raw, index) => {
    if (/^\s*(```|~~~)/.test(raw)) inFence = !inFence;
    if (!inFence) lines.push({ text: raw, line: index + 1 });
  });
  return lines;
}

// In-page links `[text](#anchor)`, with the line each is on (code spans and fences skipped).
const anchorLinks = (markdown: string): { anchor: string; line: number }[] =>
  proseLines(markdown).flatMap(({ text, line }) => [...text.replace(/`[^`]*`/g, "").matchAll(/\]\(#([^)\s]+)\)/g)].map((m) => ({ anchor: m[1]!, line })));

// Links to files of the repository `[text](path)` (not URLs, not in-page anchors), with their line.
const fileLinks = (markdown: string): { path: string; line: number }[] =>
  proseLines(markdown).flatMap(({ text, line }) => [...text.matchAll(/\]\(([^)\s#:]+)(#[^)\s]*)?\)/g)].map((m) => ({ path: m[1]!, line })));

function contentsSection(markdown: string, headings: Heading[]): string {
  const start = headings.find((h) => h.level === 2 && h.text === "Contents");
  if (!start) throw new Error('README.md has no "## Contents" section');
  const end = headings.find((h) => h.level <= 2 && h.line > start.line);
  return markdown
    .split("\n")
    .slice(start.line, end ? end.line - 1 : undefined)
    .join("\n");
}

describe("README.md contents and in-page links", () => {
  const markdown = readFileSync(README, "utf8");
  const headings = headingsOf(markdown);
  const anchors = new Set(headings.map((h) => h.anchor));

  it("computes anchors as GitHub does (repeated headings numbered, code and symbols dropped)", () => {
    const slug = slugger();
    expect(slug("API (`functions/core`, `functions/pepe.ts`)")).toBe("api-functionscore-functionspepets");
    expect(slug("Tests")).toBe("tests");
    expect(slug("Tests")).toBe("tests-1");
    expect(slug("Tests")).toBe("tests-2");
    expect(slug("Benchmark (`npm run bench -- --only images [--quick]`)")).toBe(
      "benchmark-npm-run-bench------only-images---quick",
    );
    expect(slug("Local: `npm start` / `pepe serve`")).toBe("local-npm-start--pepe-serve");
  });

  it("every in-page link points at a heading", () => {
    const dead = anchorLinks(markdown)
      .filter((link) => !anchors.has(link.anchor))
      .map((link) => `line ${link.line}: #${link.anchor}`);
    expect(dead, "links to no heading: fix the anchor or the heading").toEqual([]);
  });

  it("every link to a file of the repository points at one that exists", () => {
    const root = dirname(README);
    const links = fileLinks(markdown);
    // The benchmark history is linked from the figures sections: the test must see it.
    expect(links.map((link) => link.path)).toContain("tools/bench/HISTORY.md");
    const missing = links.filter((link) => !existsSync(resolve(root, link.path))).map((link) => `line ${link.line}: ${link.path}`);
    expect(missing, "links to no file: fix the path or restore the file").toEqual([]);
  });

  it("the Contents list every level-2 and level-3 heading, in order", () => {
    // The bulleted list, not the "where to start" lines above it, which pick a few sections.
    const list = contentsSection(markdown, headings)
      .split("\n")
      .filter((line) => /^\s*- /.test(line))
      .join("\n");
    const listed = [...list.matchAll(/\]\(#([^)\s]+)\)/g)].map((m) => m[1]!);
    const expected = headings
      .filter((h) => (h.level === 2 || h.level === 3) && h.text !== "Contents")
      .map((h) => h.anchor);
    const missing = expected.filter((a) => !listed.includes(a));
    expect(missing, "headings missing from the README's Contents: add them").toEqual([]);
    // Listed in document order, so the list reads as the README does.
    expect(listed.filter((a) => expected.includes(a))).toEqual(expected);
  });
});
