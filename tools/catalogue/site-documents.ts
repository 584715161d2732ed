/**
 * The documents a build writes for people and bots rather than API clients, all static and
 * all made from the records exactly as variant A serves them (`catalogue.jsonA`):
 *
 * - `p/<id>`: a share page per pepe, HTML a link-preview bot can read without running a script
 *   (Open Graph, Twitter card, canonical link, oEmbed discovery), showing the picture, its
 *   description, tags and credits, with a link into the gallery;
 * - `oembed/<id>.json`: its oEmbed document (type photo, oEmbed 1.0, section 2.3.4.1);
 * - `feed.xml` (Atom, RFC 4287) and `feed.json` (JSON Feed 1.1): the FEED_SIZE newest pepes;
 * - the dataset: every record, oldest first, in immutable shards under a small index
 *   (dataset-shards.ts), with the images' sha256; `pepe export` mirrors it;
 * - `sitemap.xml`, a sitemap index of `sitemaps/gallery.xml` (the gallery) and of the share
 *   pages cut into content-defined chunks (`sitemaps/<first-id>.xml`, as the static listing is
 *   cut: one change rewrites the one or two files it falls in), and `robots.txt`.
 *
 * Absolute URLs come from the build's base URL, as in the records.
 */
import type { Catalogue } from '../../functions/core/catalogue-runtime.js';
import { IMAGE_TYPES, type SiteUrls } from '../../functions/core/record.js';
import type { z } from 'zod';
import type { pepeA } from '../../functions/core/schemas.js';
import type { ChunkShape } from '../shared/content-chunks.js';
import { type ChunkReuse, chunksOf, keptChunks, rememberChunks } from './cache/answer-digests.js';
import { type DatasetRecord, shardFiles } from './dataset-shards.js';

type Pepe = z.infer<typeof pepeA>;

export const SITE_NAME = 'Pepe Catalogue';
/** Entries of each feed: the newest pepes. */
export const FEED_SIZE = 50;
/** How the share pages are cut into sitemap files: ~500 URLs (~40 KB) a file, at most 2,000 (sitemaps.org allows 50,000 a file and 50,000 files an index). */
export const SITEMAP_CHUNKS: ChunkShape = { mean: 500, max: 2000 };

export const sharePath = (id: string): string => `/p/${id}`;
export const oembedPath = (id: string): string => `/oembed/${id}.json`;
/** The label of a pepe, as title and alt text: its description, else its tags, else its id's first block (as the gallery's). */
export function pepeTitle(pepe: Pick<Pepe, 'id' | 'description' | 'tags'>): string {
  if (pepe.description) return pepe.description;
  if (pepe.tags?.length) return `Pepe tagged ${pepe.tags.join(', ')}`;
  return `Pepe ${pepe.id.slice(0, 8)}`;
}

/**
 * The picture a preview shows: the largest rendition (a WebP at most 512 px wide: previews are
 * shown at 600 px or less, and a small file is fetched by every link-preview bot without
 * hitting its size limit), else the original for an image too small to have one. Width, height and type are the chosen file's own.
 */
export function previewImage(pepe: Pepe): { url: string; width: number; height: number; type: string } {
  const largest = pepe.thumbnails.at(-1);
  if (largest) return { url: largest.url, width: largest.width, height: largest.height, type: largest.type };
  return { url: pepe.url, width: pepe.width, height: pepe.height, type: IMAGE_TYPES[pepe.file_ext] };
}

/**
 * What `pepe check` refuses but a build of unchecked content could still hold: characters XML
 * 1.0 cannot carry at all (C0 controls but tab and line ends, lone surrogates, U+FFFE/U+FFFF,
 * which make a strict parser reject the whole feed), C1 controls and bidi overrides/isolates.
 */
const UNSAFE_IN_MARKUP = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\p{Noncharacter_Code_Point}\p{Cs}]/gu;

/** Text for HTML and XML, in element content and in double-quoted attributes; unsafe characters become U+FFFD, visibly. */
export const escapeMarkup = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!).replace(UNSAFE_IN_MARKUP, '\ufffd');

/** The site's stylesheet (written by the gallery, tools/gallery/write-gallery.ts): no inline style under the pages' CSP. */
const SITE_STYLESHEET = '/site.css';


/** The share page of one pepe. */
export function sharePage(pepe: Pepe, urls: SiteUrls): string {
  const base = urls.baseUrl;
  const title = pepeTitle(pepe);
  const description = pepe.description ?? `A pepe from the ${SITE_NAME}${pepe.tags?.length ? `, tagged ${pepe.tags.join(', ')}` : ''}.`;
  const image = previewImage(pepe);
  const shareUrl = `${base}${sharePath(pepe.id)}`;
  const e = escapeMarkup;
  const meta = (attribute: 'property' | 'name', key: string, value: string | number) => `<meta ${attribute}="${key}" content="${e(String(value))}">`;
  const tags = (pepe.tags ?? []).map((tag) => `<li><a class="tag" href="${e(`${base}/?tags=${encodeURIComponent(tag.replace(/\p{Cs}/gu, '\ufffd'))}`)}">#${e(tag)}</a></li>`).join('');
  const credits = [
    pepe.artist === null ? '' : `By ${e(pepe.artist)}`,
    pepe.source_url === null ? '' : `<a href="${e(pepe.source_url)}" rel="nofollow noopener">Source</a>`,
    pepe.license === null ? '' : `Licence: ${e(pepe.license)}`,
  ].filter((part) => part !== '');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${e(title)} · ${SITE_NAME}</title>
<meta name="description" content="${e(description)}">
<link rel="canonical" href="${e(shareUrl)}">
<link rel="alternate" type="application/json+oembed" href="${e(`${base}${oembedPath(pepe.id)}`)}" title="${e(title)}">
<link rel="alternate" type="application/atom+xml" href="${e(`${base}/feed.xml`)}" title="${SITE_NAME}: newest pepes (Atom)">
<link rel="alternate" type="application/feed+json" href="${e(`${base}/feed.json`)}" title="${SITE_NAME}: newest pepes (JSON Feed)">
${meta('property', 'og:type', 'website')}
${meta('property', 'og:site_name', SITE_NAME)}
${meta('property', 'og:title', title)}
${meta('property', 'og:description', description)}
${meta('property', 'og:url', shareUrl)}
${meta('property', 'og:image', image.url)}
${meta('property', 'og:image:type', image.type)}
${meta('property', 'og:image:width', image.width)}
${meta('property', 'og:image:height', image.height)}
${meta('property', 'og:image:alt', title)}
${meta('name', 'twitter:card', 'summary_large_image')}
${meta('name', 'twitter:title', title)}
${meta('name', 'twitter:description', description)}
${meta('name', 'twitter:image', image.url)}
${meta('name', 'twitter:image:alt', title)}
<link rel="stylesheet" href="${SITE_STYLESHEET}">
</head>
<body>
<header class="top"><a class="brand" href="${e(`${base}/`)}">${SITE_NAME}</a></header>
<main class="share">
<h1>${e(title)}</h1>
<figure>
<img src="${e(pepe.url)}" width="${pepe.width}" height="${pepe.height}" alt="${e(title)}">
</figure>
${tags === '' ? '' : `<ul class="tags" aria-label="Tags">${tags}</ul>`}
${credits.length === 0 ? '' : `<p class="credit">${credits.join(' · ')}</p>`}
<p class="links"><a href="${e(`${base}/?pepe=${pepe.id}`)}">Open in the gallery</a> · <a href="${e(`${base}/api/pepe/${pepe.id}`)}">JSON</a> · <a href="${e(pepe.url)}">Image</a></p>
</main>
</body>
</html>
`;
}

/** The oEmbed document of one pepe (type photo: url, width and height are required). */
export function oembedDocument(pepe: Pepe, urls: SiteUrls): string {
  const image = previewImage(pepe);
  return `${JSON.stringify({
    version: '1.0',
    type: 'photo',
    title: pepeTitle(pepe),
    url: image.url,
    width: image.width,
    height: image.height,
    ...(pepe.artist === null ? {} : { author_name: pepe.artist }),
    provider_name: SITE_NAME,
    provider_url: `${urls.baseUrl}/`,
  })}\n`;
}

/** The content of a feed entry: the picture, then its description. */
function entryHtml(pepe: Pepe): string {
  const e = escapeMarkup;
  const caption = pepe.description === null ? '' : `<p>${e(pepe.description)}</p>`;
  const credit = pepe.artist === null ? '' : `<p>By ${e(pepe.artist)}${pepe.license === null ? '' : ` (${e(pepe.license)})`}</p>`;
  return `<p><img src="${e(pepe.url)}" width="${pepe.width}" height="${pepe.height}" alt="${e(pepeTitle(pepe))}"></p>${caption}${credit}`;
}

/** A date for Atom's feed-level `updated` when there is no entry at all. */
const EPOCH = '1970-01-01T00:00:00.000Z';

/** Atom (RFC 4287): newest first. */
export function atomFeed(newest: Pepe[], urls: SiteUrls): string {
  const base = urls.baseUrl;
  const e = escapeMarkup;
  const updated = newest.reduce((latest, pepe) => (pepe.updated_at > latest ? pepe.updated_at : latest), newest[0]?.updated_at ?? EPOCH);
  const entries = newest.map((pepe) => {
    const share = `${base}${sharePath(pepe.id)}`;
    const lines = [
      '<entry>',
      `<id>urn:uuid:${pepe.id}</id>`,
      `<title>${e(pepeTitle(pepe))}</title>`,
      `<link rel="alternate" type="text/html" href="${e(share)}"/>`,
      `<link rel="enclosure" type="${IMAGE_TYPES[pepe.file_ext]}" length="${pepe.file_size}" href="${e(pepe.url)}"/>`,
      `<published>${pepe.created_at}</published>`,
      `<updated>${pepe.updated_at}</updated>`,
      ...(pepe.artist === null ? [] : [`<author><name>${e(pepe.artist)}</name>${pepe.source_url === null ? '' : `<uri>${e(pepe.source_url)}</uri>`}</author>`]),
      ...(pepe.tags ?? []).map((tag) => `<category term="${e(tag)}"/>`),
      ...(pepe.license === null ? [] : [`<rights>${e(pepe.license)}</rights>`]),
      ...(pepe.description === null ? [] : [`<summary>${e(pepe.description)}</summary>`]),
      `<content type="html">${e(entryHtml(pepe))}</content>`,
      '</entry>',
    ];
    return lines.join('\n');
  });
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    `<id>${e(`${base}/`)}</id>`,
    `<title>${SITE_NAME}</title>`,
    `<subtitle>The ${FEED_SIZE} newest pepes</subtitle>`,
    `<updated>${updated}</updated>`,
    `<link rel="self" type="application/atom+xml" href="${e(`${base}/feed.xml`)}"/>`,
    `<link rel="alternate" type="text/html" href="${e(`${base}/`)}"/>`,
    `<author><name>${SITE_NAME}</name><uri>${e(`${base}/`)}</uri></author>`,
    `<generator>pepe build</generator>`,
    ...entries,
    '</feed>',
    '',
  ].join('\n');
}

/** JSON Feed 1.1: newest first. */
export function jsonFeed(newest: Pepe[], urls: SiteUrls): string {
  const base = urls.baseUrl;
  const items = newest.map((pepe) => ({
    id: pepe.id,
    url: `${base}${sharePath(pepe.id)}`,
    title: pepeTitle(pepe),
    content_html: entryHtml(pepe),
    ...(pepe.description === null ? {} : { summary: pepe.description }),
    image: pepe.url,
    date_published: pepe.created_at,
    date_modified: pepe.updated_at,
    ...(pepe.tags === null ? {} : { tags: pepe.tags }),
    ...(pepe.artist === null ? {} : { authors: [{ name: pepe.artist, ...(pepe.source_url === null ? {} : { url: pepe.source_url }) }] }),
    attachments: [{ url: pepe.url, mime_type: IMAGE_TYPES[pepe.file_ext], size_in_bytes: pepe.file_size }],
  }));
  const feed = {
    version: 'https://jsonfeed.org/version/1.1',
    title: SITE_NAME,
    home_page_url: `${base}/`,
    feed_url: `${base}/feed.json`,
    description: `The ${FEED_SIZE} newest pepes`,
    language: 'en',
    items,
  };
  return `${JSON.stringify(feed, null, 1)}\n`;
}

function urlSet(locations: string[]): string {
  const urls = locations.map((location) => `<url><loc>${escapeMarkup(location)}</loc></url>`);
  return ['<?xml version="1.0" encoding="utf-8"?>', '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">', ...urls, '</urlset>', ''].join('\n');
}

/**
 * `sitemap.xml`: a sitemap index of `sitemaps/gallery.xml` and one `sitemaps/<first-id>.xml` per
 * chunk of the share pages, in the catalogue's order (`ids` by rank). No lastmod: the index
 * changes only when a chunk's name does. A chunk of the same ids as at the previous build is kept unlisted.
 */
function sitemapFiles(ids: readonly string[], base: string, shape: ChunkShape, reuse: ChunkReuse | undefined): SiteDocument[] {
  const chunks = chunksOf(ids, shape, reuse, 'sitemaps');
  const { ends, same, before } = chunks;
  const parts: SiteDocument[] = [{ path: 'sitemaps/gallery.xml', body: urlSet([`${base}/`]) }];
  const index = [`<sitemap><loc>${escapeMarkup(`${base}/sitemaps/gallery.xml`)}</loc></sitemap>`];
  const kept = before === null ? null : new Uint8Array(before.firsts.length);
  let start = 0;
  for (let chunk = 0; chunk < ends.length; start = ends[chunk]!, chunk++) {
    const path = sitemapPath(ids[start]!);
    index.push(`<sitemap><loc>${escapeMarkup(`${base}/${path}`)}</loc></sitemap>`);
    // Its ids alone make a chunk's bytes (with the base URL, in the context).
    if (same[chunk]! >= 0) kept![same[chunk]!] = 1;
    else parts.push({ path, body: urlSet(ids.slice(start, ends[chunk]).map((id) => `${base}${sharePath(id)}`)) });
  }
  rememberChunks(reuse, 'sitemaps', ids, chunks);
  if (kept !== null) reuse!.keep(keptChunks(before!, kept, 'site/sitemaps/', 1, (k) => [`site/${sitemapPath(before!.firsts[k]!)}`], (path) => path.slice('site/sitemaps/'.length, -'.xml'.length)));
  const body = ['<?xml version="1.0" encoding="utf-8"?>', '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">', ...index, '</sitemapindex>', ''].join('\n');
  return [{ path: 'sitemap.xml', body }, ...parts];
}

const sitemapPath = (firstId: string): string => `sitemaps/${firstId}.xml`;

/** Crawlers are welcome on pages and images; the API, the dataset and the oEmbed documents are for programs that ask for them. */
const robotsTxt = (base: string): string => `User-agent: *\nDisallow: /api/\nDisallow: /v1/\nDisallow: /dataset/\nDisallow: /oembed/\n\nSitemap: ${base}/sitemap.xml\n`;

/** How variant A's text names the image (ids and file names hold no character JSON escapes). */
const FILE_NAME_MEMBER = '"file_name":"';

/** A dataset record whose text is made only if its shard is rendered (a class: one shape for all, getters on the prototype). */
class LazyRecord implements DatasetRecord {
  private text: string | undefined;
  constructor(
    private readonly catalogue: Catalogue,
    private readonly rank: number,
    readonly id: string,
  ) {}
  get line(): string {
    return (this.text ??= this.catalogue.jsonA(this.rank));
  }
  get fileName(): string {
    // The second member, after the id: found in the text, as a shard of a thousand records is not parsed a line at a time.
    const line = this.line;
    const at = line.indexOf(FILE_NAME_MEMBER);
    return at === -1 ? (JSON.parse(line) as Pepe).file_name : line.slice(at + FILE_NAME_MEMBER.length, line.indexOf('"', at + FILE_NAME_MEMBER.length));
  }
}

export interface SiteDocumentOptions {
  /** The sha256 of each published image, by file name (`<id><ext>`) and id. */
  imageSha256: (fileName: string, id: string) => string;
  /** The ranks whose share page and oEmbed document to render (default: every rank); the caller keeps the others' previous entries. */
  pepeRanks?: Iterable<number>;
  /** The records' ids by rank (default: decoded from the catalogue). */
  ids?: readonly string[];
  /** Sitemap files and dataset shards of the same records as at the previous build are kept unlisted, not rendered (answer-digests.ts). */
  reuse?: ChunkReuse;
  /** How the share pages are cut into sitemap files (default SITEMAP_CHUNKS); tests make files small. */
  sitemapChunks?: ChunkShape;
  /** Records per dataset shard (default DATASET_SHARD_SHAPE); tests make it small. */
  datasetShape?: ChunkShape;
}

/** A document to write, site-relative (no leading slash). */
export interface SiteDocument {
  path: string;
  body: string;
}

/**
 * Every document above. Only what may have changed is rendered: the per-pepe documents of
 * `pepeRanks`, the feeds (the FEED_SIZE newest), and the sitemap files and dataset shards
 * `reuse` cannot keep; a record's variant A text is made only for those.
 */
export function siteDocuments(catalogue: Catalogue, options: SiteDocumentOptions): SiteDocument[] {
  const urls = catalogue.data.urls;
  const base = urls.baseUrl;
  const ids = options.ids ?? Array.from({ length: catalogue.count }, (_, rank) => catalogue.id(rank));
  const pepeAt = (rank: number): Pepe => JSON.parse(catalogue.jsonA(rank)) as Pepe;
  const files: SiteDocument[] = [];
  for (const rank of options.pepeRanks ?? ids.keys()) {
    const pepe = pepeAt(rank);
    files.push({ path: sharePath(pepe.id).slice(1), body: sharePage(pepe, urls) }, { path: oembedPath(pepe.id).slice(1), body: oembedDocument(pepe, urls) });
  }
  const newest: Pepe[] = [];
  for (let rank = catalogue.count - 1; rank >= Math.max(0, catalogue.count - FEED_SIZE); rank--) newest.push(pepeAt(rank));
  files.push({ path: 'feed.xml', body: atomFeed(newest, urls) }, { path: 'feed.json', body: jsonFeed(newest, urls) });

  const records = { ids, at: (rank: number) => new LazyRecord(catalogue, rank, ids[rank]!) };
  files.push(...shardFiles(records, { catalogueVersion: catalogue.data.version, imageSha256: options.imageSha256, shape: options.datasetShape, reuse: options.reuse }));
  files.push(...sitemapFiles(ids, base, options.sitemapChunks ?? SITEMAP_CHUNKS, options.reuse), { path: 'robots.txt', body: robotsTxt(base) });
  return files;
}
