/**
 * The gallery's HTML shell. Everything in it is static: the script fills the grid, and the
 * asset paths are content-hashed, so this file is the only one browsers need to revalidate.
 * No inline script or style anywhere (the pages run under a strict Content-Security-Policy).
 * No preload of the first API page: the URL decides which page the grid needs (a deep link
 * to a tag or a search would fetch the default page for nothing), and the script asks for it
 * as its first statement.
 */

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

const FAVICON = `data:image/svg+xml,${encodeURIComponent(FROG_SVG.replace(' aria-hidden="true"', ' xmlns="http://www.w3.org/2000/svg"'))}`;

/** What the site offers besides the gallery: the API's description, the feeds, the dataset. */
const SITE_LINKS = '<a href="/api/openapi.json">API (OpenAPI)</a> <a href="/feed.xml">Atom feed</a> <a href="/feed.json">JSON Feed</a> <a href="/dataset/index.json">Dataset</a>';
/**
 * The gallery shows them in its header: a footer under an endless grid is on screen only
 * when the next page is about to push it away (a layout shift), and out of reach after that.
 */
const SITE_NAV = `<nav class="site-links" aria-label="The catalogue's API and data">${SITE_LINKS}</nav>`;
const SITE_FOOTER = `<footer class="site-footer">${SITE_NAV}</footer>`;

function head(title: string, description: string, style: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="description" content="${description}">
<title>${title}</title>
<link rel="icon" href="${FAVICON}">
<link rel="alternate" type="application/atom+xml" href="/feed.xml" title="Pepe Catalogue: newest pepes (Atom)">
<link rel="alternate" type="application/feed+json" href="/feed.json" title="Pepe Catalogue: newest pepes (JSON Feed)">
<link rel="stylesheet" href="/${style}">`;
}

export function renderIndexHtml(assets: { script: string; style: string }): string {
  return `${head('Pepe Catalogue', 'Browse, search and share the pepes of the Pepe Catalogue.', assets.style)}
<script type="module" src="/${assets.script}"></script>
</head>
<body>
<a class="skip" href="#grid">Skip to the pepes</a>
<header class="top">
<h1 class="title"><a class="brand" id="brand" href="/">${FROG_SVG}<span>Pepe Catalogue</span></a></h1>
<form class="controls" id="controls" role="search">
<div class="search">${SEARCH_SVG}<label class="visually-hidden" for="search">Search pepes by tag or description</label><input id="search" type="search" name="q" maxlength="200" autocomplete="off" spellcheck="false" aria-keyshortcuts="/" placeholder="Search tags and descriptions"></div>
<div class="sort" role="group" aria-label="Order"><button type="button" data-sort="created_at_desc" aria-pressed="true">Newest</button><button type="button" data-sort="created_at_asc" aria-pressed="false">Oldest</button></div>
<button type="button" class="button random" id="random">${DIE_SVG}Random</button>
<label class="button file-button"><input type="file" id="picture-input" class="visually-hidden" accept="image/*">By picture</label>
</form>
<div class="filters" id="filters">
<details class="tag-browser" id="tag-browser"><summary class="button">Tags</summary><ul class="tags" id="tag-list" aria-label="All tags"></ul></details>
<label class="select">Motion <select id="animated"><option value="">Any</option><option value="false">Still</option><option value="true">Animated</option></select></label>
<label class="select">Shape <select id="orientation"><option value="">Any</option><option value="portrait">Portrait</option><option value="landscape">Landscape</option><option value="square">Square</option></select></label>
<ul class="tags active-filters" id="active-filters" aria-label="Tag filters"></ul>
${SITE_NAV}
</div>
</header>
<main>
<p class="api-origin" id="api-origin" hidden></p>
<section class="picture-search" id="picture-search" aria-labelledby="picture-search-title" hidden>
<div class="panel-head"><h2 id="picture-search-title">Search by picture</h2><button type="button" class="button" id="picture-search-close">Close</button></div>
<p class="muted">Drop or paste a picture anywhere on this page, or choose one with <b>By picture</b>. It never leaves your browser: only its perceptual hash (pHash) is sent.</p>
<div id="picture-result" role="status" aria-live="polite"></div>
</section>
<section class="daily" id="daily" aria-labelledby="daily-title"><h2 id="daily-title">Pepe of the day</h2><div class="daily-body" id="daily-body"></div></section>
<p class="status" id="status" role="status" aria-live="polite" aria-atomic="true">Loading pepes…</p>
<ul class="grid" id="grid" aria-label="Pepes" tabindex="-1"></ul>
<div class="sentinel" id="sentinel"></div>
<p class="footer" id="footer"></p>
<noscript><p>The gallery needs JavaScript. The catalogue's JSON API is at <a href="/api/pepe?limit=25">/api/pepe</a>.</p></noscript>
</main>
<dialog id="detail" aria-labelledby="detail-title">
<div class="detail-head"><a class="button detail-previous" href="/" hidden>← Previous</a><h2 id="detail-title"></h2><a class="button detail-next" href="/" hidden>Next →</a><button type="button" class="button detail-close" aria-label="Close">×</button></div>
<div class="detail-body"></div>
</dialog>
</body>
</html>
`;
}

/** The page every host answers for an unknown path (`404.html`: Netlify's name, `pepe serve`'s, a bucket's error document). */
export function renderNotFoundHtml(assets: { style: string }): string {
  return `${head('Not found · Pepe Catalogue', 'Nothing is published at this address.', assets.style)}
</head>
<body>
<main class="not-found">
<h1><a class="brand" href="/">${FROG_SVG}<span>Pepe Catalogue</span></a></h1>
<h2>Nothing here</h2>
<p>Nothing is published at this address. The link may be mistyped, or the pepe may have been taken down.</p>
<p><a class="button" href="/">Back to the gallery</a></p>
</main>
${SITE_FOOTER}
</body>
</html>
`;
}
