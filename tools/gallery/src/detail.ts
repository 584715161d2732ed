/**
 * The detail view of one pepe, in a modal <dialog>: the browser then keeps focus inside,
 * makes the rest inert for screen readers, and turns Escape into a `cancel` event.
 * Closing is left to the caller (`onClose`), which owns the URL and history.
 */
import type { ApiClient, Pepe } from './api-client.js';
import { formatBytes, pepeTitle, timeElement } from './format.js';
import { createCard, isPlainClick } from './grid.js';
import { createPicture } from './picture.js';

export interface Detail {
  /** Shows `id`; `known` (from the grid) renders at once, otherwise the API is asked. */
  open(id: string, known?: Pepe): void;
  close(): void;
  readonly isOpen: boolean;
}

export interface DetailActions {
  /** The grid view of one tag (the exact `tags=` filter). */
  tagHref(tag: string): string;
  onTag(tag: string): void;
  pepeHref(id: string): string;
  /** Shows another pepe in the view (previous/next, "looks like"). */
  onPepe(pepe: Pepe): void;
  /** The pepes before and after `id` in the grid, when it is there. */
  neighbours(id: string): { previous: Pepe | null; next: Pepe | null };
  onClose(): void;
}

export function createDetail(dialog: HTMLDialogElement, client: ApiClient, actions: DetailActions): Detail {
  const body = dialog.querySelector<HTMLElement>('.detail-body')!;
  const title = dialog.querySelector<HTMLElement>('#detail-title')!;
  const previousLink = dialog.querySelector<HTMLAnchorElement>('.detail-previous')!;
  const nextLink = dialog.querySelector<HTMLAnchorElement>('.detail-next')!;
  const { onClose } = actions;

  /** A tag of this pepe: a link to the grid of that exact tag. */
  const tagLink = (tag: string): HTMLElement => {
    const link = document.createElement('a');
    link.className = 'tag';
    link.href = actions.tagHref(tag);
    link.textContent = `#${tag}`;
    link.setAttribute('aria-label', `Pepes tagged ${tag}`);
    link.addEventListener('click', (event) => {
      if (!isPlainClick(event)) return;
      event.preventDefault();
      actions.onTag(tag);
    });
    return link;
  };
  let neighbours: { previous: Pepe | null; next: Pepe | null } = { previous: null, next: null };
  const stepLink = (link: HTMLAnchorElement, which: 'previous' | 'next') => {
    link.addEventListener('click', (event) => {
      const pepe = neighbours[which];
      if (!isPlainClick(event) || !pepe) return;
      event.preventDefault();
      actions.onPepe(pepe);
    });
  };
  stepLink(previousLink, 'previous');
  stepLink(nextLink, 'next');
  // Arrow keys step too, except where they move a caret or a selection.
  dialog.addEventListener('keydown', (event) => {
    if ((event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') || (event.target as HTMLElement).closest('input, textarea, select')) return;
    const pepe = neighbours[event.key === 'ArrowLeft' ? 'previous' : 'next'];
    if (pepe) actions.onPepe(pepe);
  });
  let controller: AbortController | null = null;
  let currentId: string | null = null;

  dialog.addEventListener('cancel', (event) => {
    event.preventDefault(); // closing goes through history, like the close button
    onClose();
  });
  dialog.querySelector('.detail-close')!.addEventListener('click', () => onClose());
  // Only a single press that starts on the backdrop closes: a dragged selection or a double-click's second click ends there too.
  let pressOnBackdrop = false;
  dialog.addEventListener('pointerdown', (event) => {
    pressOnBackdrop = event.target === dialog;
  });
  dialog.addEventListener('click', (event) => {
    if (event.target === dialog && pressOnBackdrop && event.detail <= 1) onClose();
  });

  function showSteps(id: string): void {
    neighbours = actions.neighbours(id);
    for (const [link, pepe] of [[previousLink, neighbours.previous], [nextLink, neighbours.next]] as const) {
      link.hidden = !pepe;
      if (pepe) link.href = actions.pepeHref(pepe.id);
    }
  }

  function render(pepe: Pepe, signal: AbortSignal): void {
    title.textContent = pepeTitle(pepe);
    // The large rendition first (a fraction of the bytes), then the original in full.
    const large = pepe.thumbnails?.at(-1);
    const original = client.imageSrcFor(pepe);
    const picture = createPicture(pepe, large ? { src: client.thumbnailSrcFor(large), thenSrc: original, lazy: false } : { src: original, lazy: false });
    picture.classList.add('detail-picture');

    const facts = document.createElement('dl');
    facts.className = 'facts';
    const fact = (term: string, value: string | Node) => {
      const dt = document.createElement('dt');
      dt.textContent = term;
      const dd = document.createElement('dd');
      dd.append(value);
      facts.append(dt, dd);
    };
    fact('Dimensions', pepe.width && pepe.height ? `${pepe.width} × ${pepe.height} px` : 'unknown');
    fact('File', `${formatBytes(pepe.file_size)} · ${pepe.file_ext.replace('.', '').toUpperCase()}`);
    fact('Added', timeElement(pepe.created_at));
    fact('Updated', timeElement(pepe.updated_at));
    fact('Id', Object.assign(document.createElement('code'), { textContent: pepe.id }));

    const tags = document.createElement('ul');
    tags.className = 'tags';
    tags.setAttribute('aria-label', 'Tags');
    for (const tag of pepe.tags ?? []) {
      const item = document.createElement('li');
      item.append(tagLink(tag));
      tags.append(item);
    }

    const copies = document.createElement('div');
    copies.className = 'copies';
    // The share page first: the link that previews with its picture when pasted into a chat.
    const shareRow = copyRow('Share link', client.shareUrlFor(pepe.id));
    copies.append(shareRow, copyRow('Image URL', pepe.url), copyRow('API URL', client.apiUrlFor(pepe.id)));

    const info = document.createElement('div');
    info.className = 'detail-info';
    if (!pepe.tags?.length) tags.append(Object.assign(document.createElement('li'), { className: 'muted', textContent: 'No tags' }));
    info.append(actionRow(pepe, shareRow.querySelector('input')!), tags, credits(pepe), facts, copies, embed(pepe), feeds());
    const similar = document.createElement('section');
    similar.className = 'similar';
    similar.setAttribute('aria-labelledby', 'similar-title');
    similar.append(Object.assign(document.createElement('h3'), { id: 'similar-title', textContent: 'Looks like' }), Object.assign(document.createElement('p'), { className: 'muted', textContent: 'Looking for similar pepes…' }));
    body.replaceChildren(picture, info, similar);
    void client.similar(pepe.id, signal).then((result) => {
      if (signal.aborted) return;
      if (!result.ok) return similar.lastElementChild!.replaceWith(Object.assign(document.createElement('p'), { className: 'muted', textContent: `Similar pepes could not be loaded: ${result.message}` }));
      if (result.value.length === 0) return (similar.lastElementChild!.textContent = 'No other pepe looks like this one.');
      const list = document.createElement('ul');
      list.className = 'grid matches';
      list.setAttribute('aria-labelledby', 'similar-title');
      for (const match of result.value) {
        const item = document.createElement('li');
        item.append(createCard(match, client, { href: actions.pepeHref(match.id), onOpen: () => actions.onPepe(match), eager: false, sizes: '160px', note: distanceText(match.distance) }));
        list.append(item);
      }
      similar.lastElementChild!.replaceWith(list);
    });
  }

  /** Download, and Share: the browser's share sheet where it has one, else the share link copied. */
  function actionRow(pepe: Pepe, shareField: HTMLInputElement): HTMLElement {
    const row = document.createElement('div');
    row.className = 'actions';
    const download = Object.assign(document.createElement('a'), { className: 'button', href: client.imageSrcFor(pepe), textContent: 'Download' });
    download.download = pepe.file_name;
    const shareData = { title: pepeTitle(pepe), url: client.shareUrlFor(pepe.id) };
    const native = typeof navigator.share === 'function' && (navigator.canShare?.(shareData) ?? true);
    const share = Object.assign(document.createElement('button'), { type: 'button', className: 'button share', textContent: native ? 'Share…' : 'Share' });
    const feedback = copyFeedback();
    share.addEventListener('click', () => {
      // A dismissed share sheet rejects: nothing to report.
      if (native) void navigator.share(shareData).catch(() => undefined);
      else void copyText(shareData.url, shareField).then((copied) => feedback.show(copied ? 'Link copied' : 'Press Ctrl+C to copy the link'));
    });
    row.append(download, share, feedback.element);
    return row;
  }

  /** Who made it, where it comes from, its licence (CC-BY pictures require the attribution). */
  function credits(pepe: Pepe): HTMLElement {
    const section = document.createElement('dl');
    section.className = 'credits';
    section.setAttribute('aria-label', 'Credits');
    const row = (term: string, value: string | Node) => {
      section.append(Object.assign(document.createElement('dt'), { textContent: term }));
      const dd = document.createElement('dd');
      dd.append(value);
      section.append(dd);
    };
    row('Artist', pepe.artist ?? 'not known');
    if (pepe.source_url) {
      const link = Object.assign(document.createElement('a'), { href: pepe.source_url, textContent: new URL(pepe.source_url).host, rel: 'noopener noreferrer nofollow ugc' });
      row('Source', link);
    } else row('Source', 'not known');
    row('License', pepe.license ?? 'not known');
    return section;
  }

  /** The oEmbed document's HTML, fetched when the visitor opens the section. */
  function embed(pepe: Pepe): HTMLElement {
    const details = document.createElement('details');
    details.className = 'embed';
    const summary = Object.assign(document.createElement('summary'), { textContent: 'Embed code' });
    const label = Object.assign(document.createElement('label'), { htmlFor: 'embed-code', textContent: 'HTML to paste into a page' });
    const code = Object.assign(document.createElement('textarea'), { id: 'embed-code', readOnly: true, rows: 4, value: 'Loading…' });
    details.append(summary, label, code);
    details.addEventListener('toggle', () => {
      if (!details.open || code.dataset.loaded) return;
      code.dataset.loaded = 'true';
      void client.embedHtml(pepe.id).then((result) => {
        code.value = result.ok ? result.value : `The embed code could not be loaded: ${result.message}`;
      });
    });
    return details;
  }

  function feeds(): HTMLElement {
    const p = Object.assign(document.createElement('p'), { className: 'muted feeds' });
    p.append('New pepes by feed: ', feedLink('/feed.xml', 'Atom'), ' · ', feedLink('/feed.json', 'JSON Feed'));
    return p;
  }
  const feedLink = (path: string, text: string) => Object.assign(document.createElement('a'), { href: client.absoluteUrl(path), textContent: text });

  function showMessage(text: string): void {
    title.textContent = 'Pepe not available';
    const message = document.createElement('p');
    message.className = 'detail-message';
    message.textContent = text;
    body.replaceChildren(message);
  }

  return {
    open(id, known) {
      if (currentId === id && dialog.open) return;
      currentId = id;
      controller?.abort();
      controller = new AbortController();
      const signal = controller.signal;
      showSteps(id);
      if (known) render(known, signal);
      else {
        title.textContent = 'Loading pepe…';
        body.replaceChildren();
        void client.byId(id, signal).then((result) => {
          if (signal.aborted) return;
          if (result.ok) render(result.value, signal);
          else showMessage(result.message);
        });
      }
      dialog.scrollTop = 0;
      if (!dialog.open) {
        dialog.showModal();
        dialog.querySelector<HTMLElement>('.detail-close')!.focus();
      }
    },
    close() {
      controller?.abort();
      currentId = null;
      if (dialog.open) dialog.close();
    },
    get isOpen() {
      return dialog.open;
    },
  };
}

/** How long "Copied" stays next to a copy button. */
export const COPY_FEEDBACK_MS = 2000;

/** A labelled read-only field with its URL and a copy button; the field allows manual copying too. */
function copyRow(label: string, value: string): HTMLElement {
  const row = document.createElement('div');
  row.className = 'copy-row';
  const id = `copy-${label.replace(/\W+/g, '-').toLowerCase()}`;
  const labelEl = document.createElement('label');
  labelEl.htmlFor = id;
  labelEl.textContent = label;
  const input = document.createElement('input');
  input.id = id;
  input.readOnly = true;
  input.value = value;
  input.addEventListener('focus', () => input.select());
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'button';
  button.textContent = 'Copy';
  button.setAttribute('aria-label', `Copy ${label}`);
  const feedback = copyFeedback();
  button.addEventListener('click', () => void copyText(value, input).then((copied) => feedback.show(copied ? 'Copied' : 'Press Ctrl+C to copy')));
  row.append(labelEl, input, button, feedback.element);
  return row;
}

/** A status line beside a copy button that says what happened, for COPY_FEEDBACK_MS. */
function copyFeedback(): { element: HTMLElement; show(text: string): void } {
  const element = document.createElement('span');
  element.className = 'copy-feedback';
  element.setAttribute('role', 'status');
  // One timer per line: a second copy restarts it, or the first copy's timer would wipe the second's message early.
  let clear: ReturnType<typeof setTimeout> | undefined;
  return {
    element,
    show(text) {
      clearTimeout(clear);
      element.textContent = text;
      clear = setTimeout(() => (element.textContent = ''), COPY_FEEDBACK_MS);
    },
  };
}

/** The async Clipboard API needs a secure context; otherwise fall back to selecting the field. */
async function copyText(text: string, input: HTMLInputElement): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    input.focus();
    input.select();
    return document.execCommand?.('copy') ?? false;
  }
}

export const distanceText = (distance: number) => (distance === 0 ? 'same picture' : `${distance} bit${distance === 1 ? '' : 's'} apart`);
