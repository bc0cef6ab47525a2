// The page as the web papers observe it (accessibility/web_page.py), evaluated in the same page.evaluate as
// walk.js (device/miniwob/dump.py): every displayed element of the task area (#wrap, less the query box) and
// of the pop-ups attached to the body, each with MiniWoB++'s compact id (data-wob_ref, given as its own
// core.getDOMInfo gives it: once per element and episode), and the task area's HTML cleaned for Synapse.
// Argument: the scale (device pixels per CSS pixel). Returns {elements, html}.
(scale) => {
  const SKIP_IDS = new Set(['query', 'reward-display', 'sync-task-cover', 'click-canvas', 'attention-canvas']);
  const SKIP_TAGS = new Set(['SCRIPT', 'STYLE', 'LINK', 'META', 'TITLE', 'HEAD', 'NOSCRIPT', 'TEMPLATE']);
  // The list a <select> opens as (js/page_init.js): shown on screen, but the page's HTML has the options.
  const SELECT_POPUP = 'latent-select-popup';
  const SHAPES = { circle: 'circle', ellipse: 'ellipse', rect: 'rectangle', line: 'line', path: 'path',
                   polyline: 'polyline' };
  const POLYGONS = { 3: 'triangle', 4: 'quadrilateral', 5: 'pentagon', 6: 'hexagon' };
  // Names a colour is read as when the page gives it by value (#F92525, rgb(...)): the nearest of these.
  const PALETTE = {
    black: [0, 0, 0], white: [255, 255, 255], grey: [128, 128, 128], silver: [192, 192, 192], red: [255, 0, 0],
    maroon: [128, 0, 0], orange: [255, 165, 0], yellow: [255, 255, 0], olive: [128, 128, 0], lime: [0, 255, 0],
    green: [0, 128, 0], cyan: [0, 255, 255], teal: [0, 128, 128], blue: [0, 0, 255], navy: [0, 0, 128],
    magenta: [255, 0, 255], purple: [128, 0, 128], pink: [255, 192, 203], brown: [165, 42, 42],
  };
  const NOT_A_NAME = new Set(['transparent', 'inherit', 'initial', 'unset', 'currentcolor', 'none', 'revert']);
  const view = [0, 0, window.innerWidth, window.innerHeight];
  const episode = 'e' + (typeof WOB_EPISODE_ID !== 'undefined' ? WOB_EPISODE_ID : 0);
  const refs = typeof core !== 'undefined' && core ? core : (window.__latentRefs = window.__latentRefs || { nextRefCode: 1 });

  const squash = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const intersect = (a, b) => [Math.max(a[0], b[0]), Math.max(a[1], b[1]), Math.min(a[2], b[2]), Math.min(a[3], b[3])];
  const empty = (r) => r[2] <= r[0] || r[3] <= r[1];
  const px = (r) => r.map((v) => Math.round(v * scale));
  const rectOf = (el) => { const b = el.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
  const clips = (style) => style.overflowX !== 'visible' || style.overflowY !== 'visible';

  // The element's compact id: MiniWoB++'s data-wob_ref, kept for the episode (core.getDOMInfo's rule).
  function refOf(el) {
    if (!el.dataset) return nextTextId--;  // an element of neither HTML nor SVG (MathML) holds no data-*
    if (el.dataset.wob_ref !== undefined && el.dataset.wob_eps === episode) return Number(el.dataset.wob_ref);
    const ref = refs.nextRefCode++;
    el.dataset.wob_ref = String(ref);
    el.dataset.wob_eps = episode;
    return ref;
  }

  function colourName(declared, computed) {
    const word = (declared || '').trim().toLowerCase();
    if (/^[a-z]+$/.test(word) && !NOT_A_NAME.has(word)) return word === 'gray' ? 'grey' : word;
    const m = /rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)/.exec(computed || '');
    if (!m || (m[4] !== undefined && Number(m[4]) === 0)) return '';
    const rgb = [Number(m[1]), Number(m[2]), Number(m[3])];
    let best = '', distance = Infinity;
    for (const [name, c] of Object.entries(PALETTE)) {
      const d = (c[0] - rgb[0]) ** 2 + (c[1] - rgb[1]) ** 2 + (c[2] - rgb[2]) ** 2;
      if (d < distance) { best = name; distance = d; }
    }
    return best;
  }

  // What tasks ask about where the page draws it: a colour given by the element's own style or fill, the
  // shape and the size of a drawn (SVG) shape.
  const attributeCache = new Map();
  function attributesOf(el) {
    if (attributeCache.has(el)) return attributeCache.get(el);
    const out = {};
    const svg = el instanceof SVGElement;
    const inline = el.style;
    const fill = svg ? el.getAttribute('fill') || (inline && inline.fill) : '';
    const background = inline ? inline.backgroundColor : '';
    const text = inline ? inline.color : '';
    if (fill || background || text) {
      const style = getComputedStyle(el);
      const colour = fill ? colourName(fill, style.fill) : background ? colourName(background, style.backgroundColor) : '';
      if (colour) out.color = colour;
      const textColour = text ? colourName(text, style.color) : '';
      if (textColour) out['text-color'] = textColour;
    }
    if (svg) {
      const tag = el.tagName.toLowerCase();
      let shape = SHAPES[tag] || '';
      if (tag === 'polygon') {
        const corners = el.points ? el.points.numberOfItems : 0;
        shape = POLYGONS[corners] || 'polygon';
      }
      if (shape) out.shape = shape;
      if (shape || tag === 'text') {
        const b = el.getBoundingClientRect();
        out.size = `${Math.round(b.width)}x${Math.round(b.height)}`;
      }
    }
    attributeCache.set(el, out);
    return out;
  }

  function fieldState(el) {
    const tag = el.tagName;
    if (tag === 'INPUT') {
      const type = (el.type || 'text').toLowerCase();
      if (type === 'checkbox' || type === 'radio') return { tag: 'input_' + type, value: '', checked: el.checked };
      return { tag: 'input_' + type, value: el.value, checked: null };
    }
    if (tag === 'TEXTAREA') return { tag: 'textarea', value: el.value, checked: null };
    if (tag === 'SELECT') {
      const option = el.options[el.selectedIndex];
      return { tag: 'select', value: option ? squash(option.textContent) : '', checked: null };
    }
    if (tag === 'OPTION') return { tag: 'option', value: '', checked: el.selected };
    return { tag: el.tagName.toLowerCase(), value: '', checked: null };
  }

  const elements = [];
  let nextTextId = -1;

  function textPiece(node, clip, seen) {
    const text = squash(node.textContent);
    if (!text) return false;
    const range = document.createRange();
    range.selectNodeContents(node);
    const b = range.getBoundingClientRect();
    const rect = [b.left, b.top, b.right, b.bottom];
    const shown = intersect(rect, clip);
    const visible = seen && !empty(rect) && !empty(shown);
    elements.push({ id: nextTextId--, tag: 't', bounds: px(visible ? shown : rect), visible, leaf: true,
                    classes: [], dom_id: '', text, placeholder: '', value: '', checked: null, attributes: {} });
    return visible;
  }

  // Adds el and what it holds to the elements; returns whether anything of it is visible.
  function visit(el, clip, seen) {
    // A line break is no element a person sees (MiniWoB++'s DOM info leaves it out: it has no width).
    if (SKIP_TAGS.has(el.tagName) || SKIP_IDS.has(el.id) || el.tagName === 'BR') return false;
    const style = getComputedStyle(el);
    if (style.display === 'none') return false;
    const shownHere = seen && style.visibility !== 'hidden' && style.visibility !== 'collapse' && Number(style.opacity) > 0;
    const rect = rectOf(el);
    const box = intersect(rect, clip);
    const visible = shownHere && !empty(rect) && !empty(box);
    const state = fieldState(el);
    const record = {
      id: refOf(el), tag: state.tag, bounds: px(visible ? box : rect), visible, leaf: true,
      classes: Array.from(el.classList), dom_id: el.id || '', text: '', placeholder: el.getAttribute('placeholder') || '',
      value: state.value, checked: state.checked, attributes: attributesOf(el),
    };
    elements.push(record);
    // A field's own content is its value; a dropdown's options are drawn nowhere until it opens (a list box,
    // multiple or of several rows, shows them: they are its elements).
    const listBox = el.tagName === 'SELECT' && (el.multiple || el.size > 1);
    if (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || (el.tagName === 'SELECT' && !listBox)) return visible;
    const inner = clips(style) ? intersect(clip, rect) : clip;
    const children = Array.from(el.children).filter((c) => !SKIP_TAGS.has(c.tagName) && c.tagName !== 'BR');
    let shownInside = false;
    if (!children.length) {
      record.text = squash(el.textContent);
    } else {
      for (const child of el.childNodes) {
        if (child.nodeType === Node.TEXT_NODE) shownInside = textPiece(child, inner, shownHere) || shownInside;
        else if (child.nodeType === Node.ELEMENT_NODE) shownInside = visit(child, inner, shownHere) || shownInside;
      }
    }
    record.leaf = !shownInside;
    return visible || shownInside;
  }

  // The HTML of one displayed part of the page, for Synapse: as it is now (typed values, checked boxes,
  // chosen options), scripts, styles, handlers and comments removed, what tasks ask about as attributes.
  function cleaned(root) {
    const copy = root.cloneNode(true);
    const originals = [root, ...root.querySelectorAll('*')];
    const copies = [copy, ...copy.querySelectorAll('*')];
    const drop = [];
    originals.forEach((orig, i) => {
      const c = copies[i];
      if (SKIP_TAGS.has(orig.tagName) || SKIP_IDS.has(orig.id)) { drop.push(c); return; }
      for (const name of Array.from(c.getAttributeNames())) {
        if (name === 'style' || name === 'data-wob_eps' || name.startsWith('on')) c.removeAttribute(name);
      }
      if (orig.tagName === 'INPUT') {
        const type = (orig.type || 'text').toLowerCase();
        if (type === 'checkbox' || type === 'radio') c.toggleAttribute('checked', orig.checked);
        else c.setAttribute('value', orig.value);
      } else if (orig.tagName === 'TEXTAREA') {
        c.textContent = orig.value;
      } else if (orig.tagName === 'OPTION') {
        c.toggleAttribute('selected', orig.selected);
      }
      for (const [name, value] of Object.entries(attributesOf(orig))) {
        if (!c.hasAttribute('data-' + name)) c.setAttribute('data-' + name, value);
      }
    });
    for (const c of drop) c.remove();
    const walker = document.createTreeWalker(copy, NodeFilter.SHOW_COMMENT | NodeFilter.SHOW_TEXT);
    const gone = [];
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.nodeType === Node.COMMENT_NODE) { gone.push(n); continue; }
      const text = n.textContent.replace(/\s+/g, ' ');
      if (text === ' ') gone.push(n); else n.textContent = text;
    }
    for (const n of gone) n.remove();
    return copy.outerHTML;
  }

  const wrap = document.getElementById('wrap');
  const html = [];
  if (wrap) visit(wrap, view, true);
  const popups = [];
  for (const child of document.body.children) {
    if (child === wrap || child.tagName === 'CANVAS') continue;
    if (visit(child, view, true) && child.id !== SELECT_POPUP) popups.push(child);
  }
  if (wrap) html.push(cleaned(wrap));
  for (const popup of popups) html.push(cleaned(popup));
  return { elements, html: html.join('\n') };
}
