/**
 * Search by picture: a dropped, pasted or picked image is hashed in the page (picture-hash.ts)
 * and only its pHash goes to `/api/similar?phash=`; the matches are shown with their distance,
 * or a plain "nothing close" when the catalogue has none within the API's cut-off.
 */
import type { ApiClient, Pepe, SimilarPepe } from './api-client.js';
import { plural } from './format.js';
import { pictureHash } from './picture-hash.js';

export interface PictureSearchElements {
  /** The panel: drop zone, file picker and results. */
  panel: HTMLElement;
  input: HTMLInputElement;
  result: HTMLElement;
}

export function createPictureSearch(
  elements: PictureSearchElements,
  client: ApiClient,
  matchCard: (pepe: SimilarPepe) => HTMLElement,
  onMatches: (pepes: Pepe[]) => void,
): { search(file: Blob): Promise<void> } {
  const { panel, input, result } = elements;
  let request: AbortController | null = null;

  const say = (...nodes: (string | Node)[]) => result.replaceChildren(...nodes);

  async function search(file: Blob): Promise<void> {
    request?.abort();
    const current = new AbortController();
    request = current;
    panel.hidden = false;
    say('Reading your picture…');
    const hashed = await pictureHash(file);
    if (current.signal.aborted) return;
    if (!hashed.ok) return say(hashed.message);
    const found = await client.similarToHash(hashed.phash, current.signal);
    if (current.signal.aborted) return;
    const hash = Object.assign(document.createElement('code'), { className: 'phash', textContent: hashed.phash });
    if (!found.ok) return say(paragraph(`The catalogue could not be asked about your picture (pHash `, hash, `): ${found.message}`));
    if (found.value.length === 0) {
      return say(paragraph('Nothing close to your picture is in the catalogue. Its pHash is ', hash, '.'));
    }
    onMatches(found.value);
    const list = document.createElement('ul');
    list.className = 'grid matches';
    list.setAttribute('aria-label', 'Pepes that look like your picture');
    list.append(...found.value.map((pepe) => listItem(matchCard(pepe))));
    const exact = found.value[0]!.distance === 0 ? ' The first is the same picture.' : '';
    say(paragraph(`${plural(found.value.length, 'pepe looks', 'pepes look')} like your picture (pHash `, hash, `).${exact}`), list);
  }

  input.addEventListener('change', () => {
    const file = input.files?.[0];
    if (file) void search(file);
    input.value = ''; // the same file picked again searches again
  });
  // Drop anywhere on the page; paste anywhere but in a text field (where it pastes text).
  document.addEventListener('dragover', (event) => {
    if (event.dataTransfer?.types.includes('Files')) {
      event.preventDefault();
      panel.hidden = false;
      panel.classList.add('is-dragging');
    }
  });
  document.addEventListener('dragleave', (event) => {
    if (!event.relatedTarget) panel.classList.remove('is-dragging');
  });
  document.addEventListener('drop', (event) => {
    const file = [...(event.dataTransfer?.files ?? [])].find((f) => f.type.startsWith('image/'));
    panel.classList.remove('is-dragging');
    if (!file) return;
    event.preventDefault();
    void search(file);
  });
  document.addEventListener('paste', (event) => {
    const file = [...(event.clipboardData?.files ?? [])].find((f) => f.type.startsWith('image/'));
    if (!file) return;
    event.preventDefault();
    void search(file);
  });
  return { search };
}

function listItem(child: Node): HTMLLIElement {
  const item = document.createElement('li');
  item.append(child);
  return item;
}

function paragraph(...nodes: (string | Node)[]): HTMLParagraphElement {
  const p = document.createElement('p');
  p.append(...nodes);
  return p;
}
