/**
 * The gallery's HTML shell. Everything in it is static: the script fills the grid, and the
 * asset paths are content-hashed, so this file is the only one browsers need to revalidate.
 */

import { listPath } from './src/api-client.js';

/**
 * The default view's first API page, fetched in parallel with the script instead of after
 * it: one round trip less before the first image. (Wasted, and harmless, when the page is
 * opened with a search or another ?api= origin.)
 */
const DEFAULT_LIST_PATH = listPath({ search: '', sort: 'created_at_desc', page: 1 }).replaceAll('&', '&amp;');

/** A small frog face, used as logo and (as a data URI) favicon, so no extra request is made. */
const FROG_SVG =
  '<svg viewBox="0 0 64 64" aria-hidden="true"><ellipse cx="32" cy="38" rx="28" ry="20" fill="#5fa64a"/>' +
  '<circle cx="19" cy="22" r="11" fill="#5fa64a"/><circle cx="45" cy="22" r="11" fill="#5fa64a"/>' +
  '<circle cx="19" cy="22" r="7" fill="#fff"/><circle cx="45" cy="22" r="7" fill="#fff"/>' +
  '<circle cx="21" cy="23" r="3.5" fill="#1b1b1b"/><circle cx="47" cy="23" r="3.5" fill="#1b1b1b"/>' +
  '<path d="M14 42 q18 10 36 0" stroke="#9b3b30" stroke-width="3.5" fill="none" stroke-linecap="round"/></svg>';

const SEARCH_SVG =
  '<svg viewBox="0 0 16 16" aria-hidden="true"><circle cx="6.5" cy="6.5" r="5" fill="none" stroke="currentColor" stroke-width="2"/>' +
  '<path d="M10.5 10.5 15 15" stroke="currentColor" stroke-width="2" stroke-linecap="round"/></svg>';

const DIE_SVG =
  '<svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true"><rect x="1.5" y="1.5" width="13" height="13" rx="3" fill="none" stroke="currentColor" stroke-width="1.6"/>' +
  '<circle cx="5" cy="5" r="1.3" fill="currentColor"/><circle cx="8" cy="8" r="1.3" fill="currentColor"/><circle cx="11" cy="11" r="1.3" fill="currentColor"/></svg>';

export function renderIndexHtml(assets: { script: string; style: string }): string {
  const favicon = `data:image/svg+xml,${encodeURIComponent(FROG_SVG.replace(' aria-hidden="true"', ' xmlns="http://www.w3.org/2000/svg"'))}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="description" content="Browse, search and share the pepes of the Pepe Catalogue.">
<title>Pepe Catalogue</title>
<link rel="icon" href="${favicon}">
<link rel="alternate" type="application/atom+xml" href="/feed.xml" title="Pepe Catalogue: newest pepes (Atom)">
<link rel="alternate" type="application/feed+json" href="/feed.json" title="Pepe Catalogue: newest pepes (JSON Feed)">
<link rel="stylesheet" href="/${assets.style}">
<script type="module" src="/${assets.script}"></script>
<link rel="preload" as="fetch" crossorigin="anonymous" href="${DEFAULT_LIST_PATH}">
</head>
<body>
<a class="skip" href="#grid">Skip to the pepes</a>
<header class="top">
<h1 class="title"><a class="brand" id="brand" href="/">${FROG_SVG}<span>Pepe Catalogue</span></a></h1>
<form class="controls" id="controls" role="search">
<div class="search">${SEARCH_SVG}<label class="visually-hidden" for="search">Search pepes by tag or description</label><input id="search" type="search" name="q" maxlength="200" autocomplete="off" spellcheck="false" aria-keyshortcuts="/" placeholder="Search tags and descriptions"></div>
<div class="sort" role="group" aria-label="Order"><button type="button" data-sort="created_at_desc" aria-pressed="true">Newest</button><button type="button" data-sort="created_at_asc" aria-pressed="false">Oldest</button></div>
<button type="button" class="button random" id="random">${DIE_SVG}Random</button>
</form>
</header>
<main>
<p class="status" id="status" role="status" aria-live="polite" aria-atomic="true">Loading pepes…</p>
<ul class="grid" id="grid" aria-label="Pepes" tabindex="-1"></ul>
<div class="sentinel" id="sentinel"></div>
<p class="footer" id="footer"></p>
<noscript><p>The gallery needs JavaScript. The catalogue's JSON API is at <a href="/api/pepe?limit=25">/api/pepe</a>.</p></noscript>
</main>
<dialog id="detail" aria-labelledby="detail-title">
<div class="detail-head"><h2 id="detail-title"></h2><button type="button" class="button detail-close" aria-label="Close">×</button></div>
<div class="detail-body"></div>
</dialog>
</body>
</html>
`;
}
