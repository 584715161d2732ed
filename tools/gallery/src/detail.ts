/**
 * The detail view of one pepe, in a modal <dialog>: the browser then keeps focus inside,
 * makes the rest inert for screen readers, and turns Escape into a `cancel` event.
 * Closing is left to the caller (`onClose`), which owns the URL and history.
 */
import { searchWords } from '../../../functions/core/search/normalise.js';
import type { ApiClient, Pepe } from './api-client.js';
import { formatBytes, pepeTitle, timeElement } from './format.js';
import { createPicture } from './picture.js';

export interface Detail {
  /** Shows `id`; `known` (from the grid) renders at once, otherwise the API is asked. */
  open(id: string, known?: Pepe): void;
  close(): void;
  readonly isOpen: boolean;
}

export function createDetail(
  dialog: HTMLDialogElement,
  client: ApiClient,
  tagHref: (tag: string) => string,
  onTag: (tag: string) => void,
  onClose: () => void,
): Detail {
  const body = dialog.querySelector<HTMLElement>('.detail-body')!;
  const title = dialog.querySelector<HTMLElement>('#detail-title')!;

  const tagLink = (tag: string): HTMLElement => {
    const link = document.createElement('a');
    link.className = 'tag';
    link.href = tagHref(tag);
    link.textContent = `#${tag}`;
    link.setAttribute('aria-label', `Search for ${tag}`);
    link.addEventListener('click', (event) => {
      if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      event.preventDefault();
      onTag(tag);
    });
    return link;
  };
  /**
   * A tag without a letter or digit (`🐸`, `¯\_(ツ)_/¯`) has no search words: the API splits
   * words on anything else (api-behaviour.md), so searching for it finds nothing and a link
   * would lead to "no pepe matches". It is shown as plain text.
   */
  const plainTag = (tag: string): HTMLElement => Object.assign(document.createElement('span'), { className: 'tag', textContent: `#${tag}` });
  let controller: AbortController | null = null;
  let currentId: string | null = null;

  dialog.addEventListener('cancel', (event) => {
    event.preventDefault(); // closing goes through history, like the close button
    onClose();
  });
  dialog.querySelector('.detail-close')!.addEventListener('click', () => onClose());
  // A click on the backdrop lands on the dialog element itself, outside its content box. Only
  // a single press that also started there closes: a text selection dragged out of the box
  // (the id, the description) ends with a click on the dialog too, and so does the second
  // click of a double-click whose first click opened the view.
  let pressOnBackdrop = false;
  dialog.addEventListener('pointerdown', (event) => {
    pressOnBackdrop = event.target === dialog;
  });
  dialog.addEventListener('click', (event) => {
    if (event.target === dialog && pressOnBackdrop && event.detail <= 1) onClose();
  });

  function render(pepe: Pepe): void {
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
      item.append(searchWords(tag).length > 0 ? tagLink(tag) : plainTag(tag));
      tags.append(item);
    }

    const copies = document.createElement('div');
    copies.className = 'copies';
    // The share page first: the link that previews with its picture when pasted into a chat.
    copies.append(copyRow('Share link', client.shareUrlFor(pepe.id)), copyRow('Image URL', pepe.url), copyRow('API URL', client.apiUrlFor(pepe.id)));

    const info = document.createElement('div');
    info.className = 'detail-info';
    if (!pepe.tags?.length) tags.append(Object.assign(document.createElement('li'), { className: 'muted', textContent: 'No tags' }));
    info.append(tags, facts, copies);
    body.replaceChildren(picture, info);
  }

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
      if (known) render(known);
      else {
        title.textContent = 'Loading pepe…';
        body.replaceChildren();
        const signal = controller.signal;
        void client.byId(id, signal).then((result) => {
          if (signal.aborted) return;
          if (result.ok) render(result.value);
          else showMessage(result.message);
        });
      }
      if (!dialog.open) dialog.showModal();
      dialog.querySelector<HTMLElement>('.detail-close')!.focus();
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
  const feedback = document.createElement('span');
  feedback.className = 'copy-feedback';
  feedback.setAttribute('role', 'status');
  // One timer per row: a second copy restarts the 2 s, or the first copy's timer would wipe
  // the second's "Copied" early (after what is left of the first 2 s).
  let clearFeedback: ReturnType<typeof setTimeout> | undefined;
  button.addEventListener('click', () => {
    void copyText(value, input).then((copied) => {
      clearTimeout(clearFeedback);
      feedback.textContent = copied ? 'Copied' : 'Press Ctrl+C to copy';
      clearFeedback = setTimeout(() => (feedback.textContent = ''), COPY_FEEDBACK_MS);
    });
  });
  row.append(labelEl, input, button, feedback);
  return row;
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
