// Timeline: one lane per subject · attribute on a shared time axis (SVG), the changes
// detected between values, and what was true on a chosen date.

import { api, Turns } from './api.mjs';
import { errorBox, fill, h, loading, svg, tr } from './dom.mjs';
import { noStore } from './shared.mjs';

const DAY = 86400000;
const W = 780;
const LABEL_W = 150;
const PAD_R = 24;
const LANE_H = 52;
const TOP = 28;
const AXIS_H = 30;

let wired = false;
let shownVersion = -1;
let data = null;
const stateTurns = new Turns();

const ms = (d) => Date.parse(`${d.slice(0, 10)}T00:00:00Z`);
const iso = (t) => new Date(t).toISOString().slice(0, 10);

export async function show(ctx) {
  const body = document.getElementById('timeline-body');
  const form = document.getElementById('asof-form');
  form.hidden = !ctx.status.exists;
  if (!ctx.status.exists) {
    fill(body, noStore(ctx));
    shownVersion = -1;
    return;
  }
  if (!wired) {
    wired = true;
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      showDate(form.elements.date.value);
    });
    document.getElementById('asof-today').addEventListener('click', () => {
      form.elements.date.value = data?.today || iso(Date.now());
      showDate(form.elements.date.value);
    });
  }
  if (shownVersion === ctx.version) return;
  shownVersion = ctx.version;
  fill(body, loading());
  try {
    data = await api('/api/timeline');
  } catch (err) {
    fill(body, errorBox(err));
    return;
  }
  if (!form.elements.date.value) form.elements.date.value = data.today;
  render(body);
  await showDate(form.elements.date.value);
}

function render(body) {
  if (!data.lanes.length) {
    fill(body, h('div', { class: 'empty card' },
      h('h2', { i18n: 'timeline.empty_title' }), h('p', {}, tr('timeline.empty_body'))));
    return;
  }
  fill(body,
    h('div', { class: 'grid cols-tl' },
      h('article', { class: 'card' },
        h('div', { class: 'card-head' }, h('h2', { i18n: 'timeline.chart' }),
          h('div', { class: 'legend' },
            h('span', { class: 'legend-item' }, h('span', { class: 'swatch active' }), tr('timeline.active')),
            h('span', { class: 'legend-item' }, h('span', { class: 'swatch historical' }), tr('timeline.historical')),
            h('span', { class: 'legend-item' }, h('span', { class: 'swatch asof' }), tr('timeline.asof_marker')))),
        h('div', { class: 'chart-wrap', id: 'tl-chart' }, chart()),
        h('div', { class: 'lanes' }, data.lanes.map(laneDetail))),
      h('div', { class: 'stack' },
        h('article', { class: 'card' },
          h('h2', {}, h('span', { i18n: 'timeline.state_title' })),
          h('div', { id: 'tl-state' }, loading())),
        h('article', { class: 'card' },
          h('h2', { i18n: 'timeline.conflicts' }),
          conflicts()))));
}

function range() {
  let lo = Infinity;
  let hi = ms(data.today);
  for (const lane of data.lanes) {
    for (const p of lane.periods) {
      lo = Math.min(lo, ms(p.valid_from || p.date));
      hi = Math.max(hi, ms(p.valid_from || p.date));
    }
  }
  const span = Math.max(hi - lo, 120 * DAY);
  return [lo - span * 0.04, hi + span * 0.04];
}

function ticks(lo, hi) {
  const out = [];
  const y0 = new Date(lo).getUTCFullYear();
  const y1 = new Date(hi).getUTCFullYear();
  const half = y1 - y0 < 3;
  for (let y = y0; y <= y1 + 1; y += 1) {
    for (const m of half ? [0, 6] : [0]) {
      const t = Date.UTC(y, m, 1);
      if (t >= lo && t <= hi) out.push({ t, label: m ? `${y}-07` : String(y), major: m === 0 });
    }
  }
  return out;
}

function chart() {
  const [lo, hi] = range();
  const x = (t) => LABEL_W + ((t - lo) / (hi - lo)) * (W - LABEL_W - PAD_R);
  const height = TOP + data.lanes.length * LANE_H + AXIS_H;
  const axisY = TOP + data.lanes.length * LANE_H;
  const root = svg('svg', {
    viewBox: `0 0 ${W} ${height}`, class: 'tl-svg', role: 'img', 'data-lo': lo, 'data-hi': hi,
  });
  for (const tk of ticks(lo, hi)) {
    root.append(
      svg('line', { x1: x(tk.t), x2: x(tk.t), y1: TOP - 6, y2: axisY, class: tk.major ? 'grid major' : 'grid' }),
      svg('text', { x: x(tk.t), y: axisY + 18, class: 'tick', 'text-anchor': 'middle' }, tk.label));
  }
  root.append(svg('line', { x1: LABEL_W, x2: W - PAD_R, y1: axisY, y2: axisY, class: 'axis' }));
  data.lanes.forEach((lane, i) => {
    const y = TOP + i * LANE_H;
    root.append(
      svg('text', { x: 12, y: y + LANE_H / 2 - 3, class: 'lane-subject' }, lane.subject),
      svg('text', { x: 12, y: y + LANE_H / 2 + 15, class: 'lane-attr' }, lane.attribute));
    for (const p of lane.periods) {
      const x0 = x(ms(p.valid_from || p.date));
      const x1 = x(p.valid_to ? ms(p.valid_to) : Math.max(ms(data.today), ms(p.valid_from || p.date)));
      const w = Math.max(x1 - x0, 6);
      const cls = p.status === 'ACTIVE' ? 'seg active' : 'seg historical';
      const until = p.valid_to ? p.valid_to.slice(0, 10) : '…';
      const maxChars = Math.floor((w - 14) / 8);
      const label = p.value.length > maxChars ? `${p.value.slice(0, Math.max(maxChars - 1, 0))}…` : p.value;
      root.append(svg('g', { class: cls },
        svg('title', {}, `${lane.subject} · ${lane.attribute} = ${p.value} (${(p.valid_from || p.date).slice(0, 10)} → ${until})`),
        svg('rect', { x: x0, y: y + 10, width: w, height: LANE_H - 20, rx: 7 }),
        maxChars >= 2 ? svg('text', { x: x0 + 8, y: y + LANE_H / 2 + 5, class: 'seg-label' }, label) : null));
    }
    for (const s of lane.statements) {
      root.append(svg('circle', { cx: x(ms(s.date)), cy: y + 10, r: 3.5, class: 'stmt' },
        svg('title', {}, `${s.date.slice(0, 10)}: ${s.value}`)));
    }
  });
  root.append(svg('g', { class: 'asof', id: 'tl-asof', visibility: 'hidden' },
    svg('line', { x1: 0, x2: 0, y1: TOP - 14, y2: axisY, class: 'asof-line' }),
    svg('text', { x: 0, y: TOP - 16, class: 'asof-label', 'text-anchor': 'middle' }, '')));
  root._x = x;
  root._range = [lo, hi];
  return root;
}

function moveMarker(date) {
  const root = document.querySelector('#tl-chart svg');
  const g = document.getElementById('tl-asof');
  if (!root || !g || !date) return;
  const [lo, hi] = root._range;
  const t = ms(date);
  if (Number.isNaN(t) || t < lo || t > hi) {
    g.setAttribute('visibility', 'hidden');
    return;
  }
  const px = root._x(t);
  g.setAttribute('visibility', 'visible');
  g.setAttribute('transform', `translate(${px} 0)`);
  g.querySelector('text').textContent = date;
}

function laneDetail(lane) {
  return h('div', { class: 'lane' },
    h('div', { class: 'lane-key' }, h('strong', { text: lane.subject }), ' · ', lane.attribute),
    h('ol', { class: 'periods' }, lane.periods.map((p) => h('li', { class: p.status === 'ACTIVE' ? 'active' : 'historical' },
      h('span', { class: 'value', text: p.value }),
      h('span', { class: 'when', text: `${(p.valid_from || p.date).slice(0, 10)} → ${p.valid_to ? p.valid_to.slice(0, 10) : ''}` },
        p.valid_to ? null : tr('timeline.now')),
      h('span', { class: `chip ${p.status === 'ACTIVE' ? 'good' : 'muted'}`, i18n: `timeline.status_${p.status}` })))));
}

function conflicts() {
  if (!data.conflicts.length) return h('p', { class: 'hint' }, tr('timeline.no_conflicts'));
  return h('ul', { class: 'conflicts' }, data.conflicts.map((c) => h('li', {},
    h('div', { class: 'change' },
      h('span', { class: 'key', text: `${c.subject} · ${c.attribute}` }),
      h('span', { class: 'old', text: c.old_value }),
      h('span', { class: 'arrow', 'aria-hidden': 'true', text: '→' }),
      h('span', { class: 'new', text: c.new_value })),
    h('p', {
      class: 'sentence',
      i18n: 'timeline.conflict_sentence',
      args: {
        old_date: c.old_date.slice(0, 10), new_date: c.new_date.slice(0, 10),
        subject: c.subject, attribute: c.attribute, old: c.old_value, new: c.new_value,
      },
    }))));
}

async function showDate(date) {
  const host = document.getElementById('tl-state');
  moveMarker(date);
  if (!host || !date) return;
  fill(host, loading());
  const res = await stateTurns.latest(() => api('/api/state', { params: { date } }),
    (err) => fill(host, errorBox(err)));
  if (!res) return; // failed, or another date was chosen meanwhile
  const head = h('p', { class: 'hint', i18n: 'timeline.state_on', args: { date } });
  if (!res.facts.length) {
    fill(host, head, h('p', { class: 'muted', i18n: 'timeline.state_none' }));
    return;
  }
  fill(host, head, h('table', { class: 'state' },
    h('thead', {}, h('tr', {},
      h('th', { i18n: 'timeline.col_fact' }), h('th', { i18n: 'timeline.col_value' }),
      h('th', { i18n: 'timeline.col_since' }), h('th', { i18n: 'timeline.col_now' }))),
    h('tbody', {}, res.facts.map((f) => h('tr', {},
      h('td', {}, h('strong', { text: f.subject }), ' · ', f.attribute),
      h('td', { class: 'value', text: f.value }),
      h('td', { class: 'since', text: (f.valid_from || f.date).slice(0, 10) }),
      h('td', {}, f.status === 'ACTIVE'
        ? h('span', { class: 'chip good', i18n: 'timeline.still_true' })
        : h('span', { class: 'chip warn', i18n: 'timeline.changed_to', args: { value: f.superseded_by || '' } })))))));
}
