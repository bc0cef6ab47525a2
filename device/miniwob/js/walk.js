// One walk of a MiniWoB++ page: the task area (#wrap, less the query box) and the pop-ups attached to the
// body, as nested nodes in device pixels, for the uiautomator XML the device emits (device/miniwob/dump.py).
// Argument: the scale (device pixels per CSS pixel). Returns the root node.
(scale) => {
  const SKIP_IDS = new Set(['query', 'reward-display', 'sync-task-cover', 'click-canvas', 'attention-canvas']);
  const SKIP_TAGS = new Set(['SCRIPT', 'STYLE', 'LINK', 'META', 'TITLE', 'HEAD', 'NOSCRIPT', 'TEMPLATE', 'BR']);
  const TEXT_INPUTS = new Set(['text', 'email', 'password', 'number', 'search', 'tel', 'url', 'date', 'time',
                               'datetime-local', 'month', 'week', '']);
  const BUTTON_INPUTS = new Set(['button', 'submit', 'reset', 'image']);
  const CLICKABLE_TAGS = new Set(['A', 'BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'LABEL', 'OPTION', 'SUMMARY']);
  const CLICKABLE_ROLES = new Set(['button', 'link', 'checkbox', 'radio', 'tab', 'menuitem', 'option', 'switch',
                                   'treeitem', 'gridcell']);
  const latent = window.__latent || { listened: new WeakSet() };
  const view = [0, 0, window.innerWidth, window.innerHeight];
  const active = document.activeElement;

  const squash = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const intersect = (a, b) => [Math.max(a[0], b[0]), Math.max(a[1], b[1]), Math.min(a[2], b[2]), Math.min(a[3], b[3])];
  const empty = (r) => r[2] <= r[0] || r[3] <= r[1];
  const px = (r) => r.map((v) => Math.round(v * scale));
  const rectOf = (el) => { const b = el.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };

  function classOf(el) {
    const tag = el.tagName;
    const role = (el.getAttribute('role') || '').toLowerCase();
    const type = tag === 'INPUT' ? (el.getAttribute('type') || '').toLowerCase() : '';
    if (tag === 'INPUT' && type === 'checkbox' || role === 'checkbox') return 'android.widget.CheckBox';
    if (tag === 'INPUT' && type === 'radio' || role === 'radio') return 'android.widget.RadioButton';
    if (tag === 'BUTTON' || tag === 'INPUT' && BUTTON_INPUTS.has(type) || role === 'button') return 'android.widget.Button';
    if (tag === 'INPUT' && type === 'range' || role === 'slider') return 'android.widget.SeekBar';
    if (tag === 'INPUT' && TEXT_INPUTS.has(type) || tag === 'TEXTAREA' || el.isContentEditable && el.contentEditable === 'true')
      return 'android.widget.EditText';
    if (tag === 'SELECT') return 'android.widget.Spinner';
    if (tag === 'IMG' || tag === 'svg' || tag === 'CANVAS' || role === 'img') return 'android.widget.ImageView';
    if (tag === 'A' || role === 'link') return 'android.widget.TextView';
    if (tag === 'TABLE' || tag === 'UL' || tag === 'OL' || role === 'listbox' || role === 'list') return 'android.widget.ListView';
    if (role === 'option') return 'android.widget.CheckedTextView';
    return 'android.view.View';
  }

  // An icon a page names only by its id or class ("retweet", "trash", "open-search"): what an HTML-reading
  // agent saw, and what an app would give an icon button as its content description.
  function iconName(el) {
    const name = el.id || Array.from(el.classList).find((c) => !c.startsWith('ui-')) || '';
    return name.replace(/[-_]+/g, ' ').trim();
  }

  function named(n) {
    return !!(n.text || n.desc || n.hint) || n.children.some(named);
  }

  function labelOf(el) {
    const parts = [];
    if (el.labels) for (const label of el.labels) parts.push(squash(label.textContent));
    return squash(parts.join(' '));
  }

  function clickable(el, style, parentStyle) {
    // The page's frame is never a target; core.js listens for clicks on the body to draw them.
    if (el === document.body || el.id === 'wrap') return false;
    if (CLICKABLE_TAGS.has(el.tagName) && !(el.tagName === 'A' && !el.hasAttribute('href') && !latent.listened.has(el))) return true;
    if (CLICKABLE_ROLES.has((el.getAttribute('role') || '').toLowerCase())) return true;
    if (el.hasAttribute('onclick') || typeof el.onclick === 'function' || latent.listened.has(el)) return true;
    return style.cursor === 'pointer' && (!parentStyle || parentStyle.cursor !== 'pointer');
  }

  function scrollable(el, style) {
    const y = (style.overflowY === 'auto' || style.overflowY === 'scroll') && el.scrollHeight > el.clientHeight + 1;
    const x = (style.overflowX === 'auto' || style.overflowX === 'scroll') && el.scrollWidth > el.clientWidth + 1;
    return y || x;
  }

  // An element shown only as text: no child element that is a node of its own.
  function textOnly(el) {
    for (const child of el.children) {
      if (SKIP_TAGS.has(child.tagName)) continue;
      if (CLICKABLE_TAGS.has(child.tagName) || child.tagName === 'IMG' || child.children.length) return false;
      if (child.getAttribute('role') || latent.listened.has(child)) return false;
      const cs = getComputedStyle(child);
      if (cs.display === 'block' || cs.display === 'flex' || cs.display === 'grid' || cs.cursor === 'pointer') return false;
    }
    return true;
  }

  // A <label> around one checkbox or radio and text: one node, as a phone shows a CheckBox with its text.
  function labelledControl(el) {
    if (el.tagName !== 'LABEL') return null;
    const inputs = el.querySelectorAll('input');
    if (inputs.length !== 1 || el.querySelector('select, textarea, button')) return null;
    const type = (inputs[0].getAttribute('type') || '').toLowerCase();
    return type === 'checkbox' || type === 'radio' ? inputs[0] : null;
  }

  function node(el, cls, rect, clip, visible, extra) {
    const shown = intersect(rect, clip);
    const isVisible = visible && !empty(shown);
    return Object.assign({
      cls, text: '', desc: '', hint: '', id: el.id || el.classList[0] || '',
      bounds: px(isVisible ? shown : rect.map((v, i) => Math.max(0, v))), visible: isVisible,
      checkable: false, checked: false, clickable: false, enabled: !el.disabled, focusable: false,
      focused: el === active && el !== document.body, scrollable: false, selected: false, password: false, editable: false,
      children: [], ref: el,
    }, extra);
  }

  function textNode(textNodeDom, clip, visible) {
    const text = squash(textNodeDom.textContent);
    if (!text) return null;
    const range = document.createRange();
    range.selectNodeContents(textNodeDom);
    const b = range.getBoundingClientRect();
    if (b.width === 0 && b.height === 0) return null;
    const rect = [b.left, b.top, b.right, b.bottom];
    const shown = intersect(rect, clip);
    const isVisible = visible && !empty(shown);
    return { cls: 'android.widget.TextView', text, desc: '', hint: '', id: '', bounds: px(isVisible ? shown : rect),
             visible: isVisible, checkable: false, checked: false, clickable: false, enabled: true, focusable: false,
             focused: false, scrollable: false, selected: false, password: false, editable: false, children: [] };
  }

  // The nodes of one element; an unnamed clickable one is named after its icon (see iconName).
  function walk(el, clip, visible, parentStyle) {
    const nodes = walkElement(el, clip, visible, parentStyle);
    for (const n of nodes) if (n.clickable && !named(n) && n.ref === el) n.desc = iconName(el);
    for (const n of nodes) delete n.ref;
    return nodes;
  }

  // The nodes of one element (itself, or its children when it is only a layout box).
  function walkElement(el, clip, visible, parentStyle) {
    if (SKIP_TAGS.has(el.tagName) || SKIP_IDS.has(el.id)) return [];
    const style = getComputedStyle(el);
    if (style.display === 'none') return [];
    const seen = visible && style.visibility !== 'hidden' && style.visibility !== 'collapse' && Number(style.opacity) > 0;
    const rect = rectOf(el);
    const control = labelledControl(el);
    const tag = el.tagName;
    const cls = classOf(control || el);
    const base = { clickable: clickable(el, style, parentStyle) };
    const title = el.getAttribute('title') || '';
    const aria = el.getAttribute('aria-label') || '';

    if (control) {
      return [node(el, cls, rect, clip, seen, Object.assign(base, {
        text: squash(el.textContent), checkable: true, checked: control.checked, clickable: true, focusable: true,
        focused: control === active, enabled: !control.disabled, id: control.id || el.id || '', desc: aria || title }))];
    }
    if (cls === 'android.widget.EditText') {
      const isInput = tag === 'INPUT' || tag === 'TEXTAREA';
      return [node(el, cls, rect, clip, seen, Object.assign(base, {
        text: isInput ? el.value : squash(el.textContent), hint: squash(el.getAttribute('placeholder') || labelOf(el)),
        desc: aria || title, clickable: true, focusable: true, editable: !el.readOnly,
        password: (el.getAttribute('type') || '').toLowerCase() === 'password' }))];
    }
    if (cls === 'android.widget.CheckBox' || cls === 'android.widget.RadioButton') {
      const checked = tag === 'INPUT' ? el.checked : el.getAttribute('aria-checked') === 'true';
      return [node(el, cls, rect, clip, seen, Object.assign(base, {
        text: labelOf(el) || squash(el.textContent), desc: aria || title, checkable: true, checked,
        clickable: true, focusable: true }))];
    }
    if (cls === 'android.widget.Spinner') {
      const option = el.options[el.selectedIndex];
      return [node(el, cls, rect, clip, seen, Object.assign(base, {
        text: option ? squash(option.textContent) : '', hint: labelOf(el), desc: aria || title,
        clickable: true, focusable: true }))];
    }
    if (cls === 'android.widget.SeekBar') {
      return [node(el, cls, rect, clip, seen, Object.assign(base, {
        text: String(el.value), desc: aria || title || labelOf(el), clickable: true, focusable: true }))];
    }
    if (tag === 'IMG') {
      return [node(el, cls, rect, clip, seen, Object.assign(base, { desc: el.getAttribute('alt') || aria || title }))];
    }
    if (cls === 'android.widget.Button') {  // a leaf, as on a phone: its text is all the text inside it
      return [node(el, cls, rect, clip, seen, Object.assign(base, {
        text: tag === 'INPUT' ? el.value || '' : squash(el.textContent),
        desc: aria || title || el.getAttribute('alt') || '', clickable: true, focusable: true }))];
    }

    const own = node(el, cls, rect, clip, seen, Object.assign(base, {
      desc: aria || title, scrollable: scrollable(el, style),
      selected: el.getAttribute('aria-selected') === 'true' || el.classList.contains('ui-state-active'),
      focusable: el.tabIndex >= 0 && tag !== 'DIV' }));
    if (textOnly(el)) {
      own.text = squash(el.textContent);
      if (cls === 'android.view.View' && own.text) own.cls = 'android.widget.TextView';
      if (!own.text && !own.desc && !own.clickable && !own.scrollable && cls === 'android.view.View') return [];
      return [own];
    }
    // Children are clipped by this element when it hides its overflow (a scrolling list, a fixed box).
    const clipsChildren = style.overflowX !== 'visible' || style.overflowY !== 'visible';
    const inner = clipsChildren ? intersect(clip, rect) : clip;
    for (const child of el.childNodes) {
      if (child.nodeType === Node.TEXT_NODE) {
        const t = textNode(child, inner, seen);
        if (t) own.children.push(t);
      } else if (child.nodeType === Node.ELEMENT_NODE) {
        own.children.push(...walk(child, inner, seen, style));
      }
    }
    // A box of no size whose content overflows it (a list of floated items) shows what its children show.
    const shown = own.children.filter((c) => c.visible);
    if (!own.visible && seen && shown.length) {
      own.visible = true;
      own.bounds = [Math.min(...shown.map((c) => c.bounds[0])), Math.min(...shown.map((c) => c.bounds[1])),
                    Math.max(...shown.map((c) => c.bounds[2])), Math.max(...shown.map((c) => c.bounds[3]))];
    }
    // A plain layout box with one child and nothing of its own says nothing: keep the child alone.
    const plain = cls === 'android.view.View' && !own.clickable && !own.scrollable && !own.desc && !own.selected;
    if (plain && own.children.length <= 1) return own.children;
    return [own];
  }

  const wrap = document.getElementById('wrap');
  const root = node(document.body, 'android.widget.FrameLayout', view, view, true, { id: '' });
  const scroller = document.scrollingElement;
  root.scrollable = !!scroller && scroller.scrollHeight > window.innerHeight + 1;
  if (wrap) root.children.push(...walk(wrap, view, true, null));
  // Pop-ups attached to the body (the date picker, an autocomplete menu, a <select>'s list) come on top.
  for (const child of document.body.children) {
    if (child === wrap || child.tagName === 'CANVAS') continue;
    root.children.push(...walk(child, view, true, null));
  }
  return root;
}
