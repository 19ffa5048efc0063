// Explore: the store's figures and the whole tree, opened on demand.

import { download } from './api.mjs';
import { domainChip, errorBox, fill, h, loading, tr } from './dom.mjs';
import { TreeView } from './tree.mjs';
import { noStore } from './shared.mjs';

let shownVersion = -1;
let tree = null;

function stat(key, value) {
  return h('div', { class: 'stat' }, h('span', { class: 'stat-value', text: String(value) }),
    h('span', { class: 'stat-label', i18n: key }));
}

/** A button that downloads every memory as an export (JSONL restores, Markdown reads). */
function exportButton(format, key, errorHost) {
  return h('button', {
    type: 'button', class: `btn ghost small export-${format}`, i18n: key,
    onclick: () => download('/api/export', { format })
      .catch((err) => errorHost.prepend(errorBox(err))),
  });
}

export async function show(ctx) {
  const body = document.getElementById('explore-body');
  if (!ctx.status.exists) {
    fill(body, noStore(ctx));
    shownVersion = -1;
    return;
  }
  if (shownVersion === ctx.version) return;
  shownVersion = ctx.version;
  const st = ctx.status.stats;
  const treeHost = h('div', { id: 'explore-tree' }, loading());
  tree = new TreeView(treeHost);
  fill(body,
    h('div', { class: 'stats' },
      stat('explore.stat_memories', st.leaves),
      stat('explore.stat_branches', st.branches),
      stat('explore.stat_depth', st.depth),
      stat('explore.stat_domains', Object.keys(st.domains).length)),
    h('article', { class: 'card' },
      h('div', { class: 'card-head' },
        h('h2', { i18n: 'explore.tree' }),
        h('div', { class: 'domains' },
          Object.entries(st.domains).map(([d, n]) => h('span', { class: 'domain-count' },
            domainChip(d), h('small', { text: String(n) })))),
        exportButton('jsonl', 'explore.export_jsonl', treeHost),
        exportButton('markdown', 'explore.export_md', treeHost),
        h('button', {
          type: 'button', class: 'btn ghost small', i18n: 'explore.collapse',
          onclick: () => tree.load().catch((err) => fill(treeHost, errorBox(err))),
        })),
      h('p', { class: 'hint' }, tr('explore.tree_hint')),
      treeHost));
  try {
    await tree.load();
  } catch (err) {
    fill(treeHost, errorBox(err));
  }
}
