// The collapsible tree, shared by Explore and Diagnose. Children are fetched when a branch
// is first opened (/api/node), a leaf's text when the leaf is first opened (/api/leaf), so
// a large memory costs only what the user looks at. Diagnose marks the branches a search
// visited and the path of its answer; marks apply to rows rendered later as well.

import { api } from './api.mjs';
import { dateRange, domainChip, errorBox, fill, h, tr } from './dom.mjs';

function shortId(id) {
  return id.length > 26 ? `${id.slice(0, 24)}…` : id;
}

export class TreeView {
  constructor(container, { leafBodies = true } = {}) {
    this.container = container;
    this.leafBodies = leafBodies;
    this.items = new Map(); // id -> <li>
    this.visited = new Set();
    this.onPath = new Set();
    this.ranks = new Map(); // leaf id -> rank among the hits
  }

  /** Load the trunk and its top nodes. */
  async load() {
    this.items.clear();
    const data = await api('/api/tree');
    const rootLi = h('li', { class: 'node root open', dataset: { id: 'root' } });
    const row = h('div', { class: 'row', tabindex: '0' },
      h('span', { class: 'twisty', 'aria-hidden': 'true' }),
      h('span', { class: 'kind trunk', i18n: 'tree.trunk' }),
      h('span', { class: 'title' }, tr('tree.trunk_title')),
      h('span', { class: 'meta' },
        h('span', { class: 'chip', i18n: 'tree.memories', args: { n: data.stats.leaves } }),
        h('span', { class: 'chip', i18n: 'tree.top_nodes', args: { n: data.children.length } })));
    const group = h('ul', { class: 'children', role: 'group' });
    rootLi.append(row, group);
    row.addEventListener('click', () => this.toggle(rootLi));
    row.addEventListener('keydown', (ev) => this.key(ev, rootLi));
    rootLi._loaded = true;
    rootLi._kind = 'branch';
    this.items.set('root', rootLi);
    this.fillChildren(group, data.children);
    fill(this.container, h('ul', { class: 'tree', role: 'tree' }, rootLi));
    this.paint(rootLi);
    return data;
  }

  fillChildren(group, children) {
    group.replaceChildren(...children.map((c) => this.item(c)));
  }

  item(entry) {
    const isLeaf = entry.kind === 'leaf';
    const li = h('li', { class: `node ${isLeaf ? 'leaf' : 'branch'}`, dataset: { id: entry.id } });
    li._kind = entry.kind;
    li._entry = entry;
    const kind = isLeaf
      ? h('span', { class: 'kind leaf', title_i18n: 'tree.leaf', 'aria-hidden': 'true' })
      : h('span', { class: 'kind branch', title_i18n: 'tree.level', args: { n: entry.layer } },
        `L${entry.layer}`);
    const meta = h('span', { class: 'meta' },
      h('span', { class: 'rank', hidden: true }),
      entry.outdated ? h('span', { class: 'chip warn', i18n: 'tree.outdated' }) : null,
      domainChip(entry.domain),
      dateRange(entry.date_from, entry.date_to),
      isLeaf
        ? (entry.source ? h('span', { class: 'chip src', text: entry.source }) : null)
        : h('span', { class: 'chip', i18n: 'tree.memories', args: { n: entry.n_leaves } }));
    const row = h('div', {
      class: 'row', tabindex: '0', role: 'treeitem', 'aria-expanded': 'false',
    },
    h('span', { class: 'twisty', 'aria-hidden': 'true' }),
    kind,
    h('span', { class: 'title', text: (isLeaf ? entry.excerpt || entry.title : entry.title) || '' }),
    meta,
    h('code', { class: 'id', title: entry.id, text: shortId(entry.id) }));
    row.addEventListener('click', () => this.toggle(li));
    row.addEventListener('keydown', (ev) => this.key(ev, li));
    li.append(row);
    this.items.set(entry.id, li);
    this.paint(li);
    return li;
  }

  key(ev, li) {
    if (ev.key === 'Enter' || ev.key === ' ') {
      ev.preventDefault();
      this.toggle(li);
    } else if (ev.key === 'ArrowRight') {
      this.open(li);
    } else if (ev.key === 'ArrowLeft') {
      this.close(li);
    }
  }

  paint(li) {
    const id = li.dataset.id;
    li.classList.toggle('visited', this.visited.has(id));
    li.classList.toggle('on-path', this.onPath.has(id));
    const rank = li.querySelector(':scope > .row .rank');
    if (rank) {
      const r = this.ranks.get(id);
      rank.hidden = r === undefined;
      rank.textContent = r === undefined ? '' : `#${r}`;
    }
  }

  /** Mark the branches a search visited, the path of its answer and the ranked hits. */
  mark({ visited = [], path = [], ranks = new Map() } = {}) {
    this.visited = new Set(visited);
    this.onPath = new Set(path);
    this.ranks = ranks;
    for (const li of this.items.values()) this.paint(li);
  }

  toggle(li) {
    return li.classList.contains('open') ? this.close(li) : this.open(li);
  }

  close(li) {
    li.classList.remove('open');
    li.querySelector(':scope > .row')?.setAttribute('aria-expanded', 'false');
  }

  async open(li) {
    if (li._kind === 'leaf' && !this.leafBodies) return;
    li.classList.add('open');
    li.querySelector(':scope > .row')?.setAttribute('aria-expanded', 'true');
    if (li._loaded) return;
    li._loaded = true;
    const body = h('div', { class: li._kind === 'leaf' ? 'leaf-body' : 'children-wrap' },
      h('div', { class: 'loading small' }, h('span', { class: 'spinner' })));
    li.append(body);
    try {
      if (li._kind === 'leaf') {
        const leaf = await api('/api/leaf', { params: { id: li.dataset.id } });
        fill(body, ...leafView(leaf));
      } else {
        const node = await api('/api/node', { params: { id: li.dataset.id } });
        const group = h('ul', { class: 'children', role: 'group' });
        this.fillChildren(group, node.children);
        body.replaceWith(group);
      }
    } catch (err) {
      li._loaded = false;
      fill(body, errorBox(err));
    }
  }

  /** Open every branch along `path` (root … leaf id), top-down. */
  async reveal(path) {
    for (const id of path) {
      const li = this.items.get(id);
      if (!li) return;
      if (li._kind !== 'leaf') await this.open(li);
    }
  }

  /** Open the given branches where they are visible (parents before children). */
  async expandAll(ids) {
    for (const id of ids) {
      const li = this.items.get(id);
      if (li && li._kind !== 'leaf') await this.open(li);
    }
  }

  row(id) {
    return this.items.get(id)?.querySelector(':scope > .row') || null;
  }
}

/** The body of an opened leaf: notices first (they change how the text must be read). */
export function leafView(leaf) {
  const notices = leaf.notices.length || leaf.superseded_by
    ? h('div', { class: 'alert warn' },
      h('strong', { i18n: 'leaf.outdated_title' }),
      h('ul', {}, leaf.notices.map((n) => h('li', { text: n })),
        leaf.superseded_by
          ? h('li', {}, tr('leaf.corrected_by'), ' ', h('code', { text: leaf.superseded_by }))
          : null))
    : null;
  const lines = leaf.span ? `${leaf.span.start_line}–${leaf.span.end_line}` : null;
  const meta = h('dl', { class: 'meta-grid' },
    h('dt', { i18n: 'leaf.date' }), h('dd', {}, leaf.date ? leaf.date.slice(0, 10) : tr('leaf.undated')),
    h('dt', { i18n: 'leaf.saved' }), h('dd', { text: leaf.saved_at || '—' }),
    h('dt', { i18n: 'leaf.type' }), h('dd', { text: leaf.data_type }),
    h('dt', { i18n: 'leaf.domain' }), h('dd', {}, domainChip(leaf.domain)),
    leaf.source ? [h('dt', { i18n: 'leaf.source' }),
      h('dd', { text: lines ? `${leaf.source} : ${lines}` : leaf.source })] : null,
    h('dt', { i18n: 'leaf.tags' }),
    h('dd', {}, leaf.tags.length ? leaf.tags.map((tg) => h('span', { class: 'chip tag', text: tg }))
      : tr('leaf.no_tags')),
    h('dt', { i18n: 'leaf.scope' }),
    h('dd', {}, leaf.extra && leaf.extra.scope ? h('code', { text: leaf.extra.scope })
      : tr('leaf.scope_global')),
    h('dt', { i18n: 'leaf.id' }), h('dd', {}, h('code', { text: leaf.id })));
  return [notices, meta, h('pre', { class: 'leaf-text', text: leaf.text.replace(/\s+$/, '') }),
    forgetControl(leaf)];
}

/**
 * Forget: the one write to the memory itself. A first click asks the server what would go
 * (a preview with a one-time plan), the confirmation shows it, and only "Forget for good"
 * removes the memory; afterwards the leaf's row says it is gone.
 */
function forgetControl(leaf) {
  const box = h('div', { class: 'forget' });
  const start = h('button', { type: 'button', class: 'forget-start', i18n: 'leaf.forget' });
  start.addEventListener('click', async () => {
    let plan;
    try {
      plan = await api('/api/forget/preview', { body: { id: leaf.id } });
    } catch (err) {
      fill(box, errorBox(err));
      return;
    }
    const yes = h('button', { type: 'button', class: 'forget-yes danger', i18n: 'leaf.forget_yes' });
    const no = h('button', { type: 'button', class: 'forget-no', i18n: 'common.cancel' });
    fill(box, h('div', { class: 'alert warn forget-confirm', role: 'alertdialog' },
      h('p', { i18n: 'leaf.forget_confirm' }), h('blockquote', { text: plan.excerpt }), yes, no));
    no.addEventListener('click', () => fill(box, start));
    yes.addEventListener('click', async () => {
      yes.disabled = true;
      try {
        await api('/api/forget', { body: { plan_id: plan.plan_id } });
      } catch (err) {
        fill(box, errorBox(err));
        return;
      }
      const li = box.closest('li');
      const body = box.closest('.leaf-body');
      if (li) li.classList.add('forgotten');
      fill(body || box, h('p', { class: 'alert good forgotten-note', i18n: 'leaf.forgotten' }));
    });
  });
  box.append(start);
  return box;
}
