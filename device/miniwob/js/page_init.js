// Installed in every MiniWoB++ page before the page's own scripts run (Playwright's init script).
// It observes; it changes what a task does only where a phone's browser would differ from a desktop one
// (a <select> opens as a list on the page, as Android's WebView shows one, since a headless desktop
// browser draws its native pop-up nowhere).
(() => {
  const latent = { pendingTimers: new Set(), lastMutation: 0, listened: new WeakSet() };
  window.__latent = latent;

  // Elements with pointer or click listeners are clickable (jQuery and d3 both add them this way).
  const POINTER_EVENTS = new Set(['click', 'mousedown', 'mouseup', 'pointerdown', 'pointerup', 'touchstart',
                                  'touchend', 'dblclick', 'change']);
  const addEventListener = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (type, listener, options) {
    if (POINTER_EVENTS.has(type) && this instanceof Element) latent.listened.add(this);
    return addEventListener.call(this, type, listener, options);
  };

  // Short timers still to fire (animations and delayed updates), so waiting for idle can wait for them.
  const SHORT_TIMER_MS = 2000;
  const setTimeoutOriginal = window.setTimeout;
  const clearTimeoutOriginal = window.clearTimeout;
  window.setTimeout = function (handler, delay, ...args) {
    const short = !(delay > SHORT_TIMER_MS);
    let id;
    const run = typeof handler === 'function'
      ? function () { latent.pendingTimers.delete(id); return handler.apply(this, args); }
      : handler;
    id = setTimeoutOriginal.call(window, run, delay, ...(typeof handler === 'function' ? [] : args));
    if (short && typeof handler === 'function') latent.pendingTimers.add(id);
    return id;
  };
  window.clearTimeout = function (id) {
    latent.pendingTimers.delete(id);
    return clearTimeoutOriginal.call(window, id);
  };

  // The page view's walk (js/page_view.js) gives elements their compact ids as attributes: not a change of
  // the page, so waiting for idle does not wait for it.
  const OWN_ATTRIBUTES = new Set(['data-wob_ref', 'data-wob_eps']);
  const watch = () => {
    new MutationObserver((records) => {
      if (records.some((r) => r.type !== 'attributes' || !OWN_ATTRIBUTES.has(r.attributeName))) {
        latent.lastMutation = performance.now();
      }
    }).observe(document.documentElement, { subtree: true, childList: true, attributes: true, characterData: true });
  };
  if (document.documentElement) watch(); else document.addEventListener('DOMContentLoaded', watch);

  // A <select> opens as a list of its options over the page (the dropdown a phone's browser shows):
  // tapping an option chooses it, with the events a person's choice fires.
  const POPUP_ID = 'latent-select-popup';
  const closePopup = () => { const p = document.getElementById(POPUP_ID); if (p) p.remove(); };
  const openPopup = (select) => {
    closePopup();
    const rect = select.getBoundingClientRect();
    const popup = document.createElement('div');
    popup.id = POPUP_ID;
    popup.setAttribute('role', 'listbox');
    const top = Math.max(0, Math.min(rect.bottom, window.innerHeight - 40));
    popup.style.cssText = `position:fixed;left:${Math.max(0, rect.left)}px;top:${top}px;` +
      `width:${Math.max(rect.width, 60)}px;max-height:${window.innerHeight - top}px;overflow-y:auto;` +
      'background:#fff;border:1px solid #444;z-index:10000;font:10px Arial;box-sizing:border-box';
    Array.from(select.options).forEach((option, index) => {
      const row = document.createElement('div');
      row.setAttribute('role', 'option');
      row.setAttribute('aria-selected', String(index === select.selectedIndex));
      row.textContent = option.textContent;
      row.style.cssText = 'padding:3px 4px;cursor:pointer;white-space:nowrap;' +
        (index === select.selectedIndex ? 'background:#cde;' : '');
      row.addEventListener('mousedown', (event) => event.preventDefault());
      row.addEventListener('click', (event) => {
        event.stopPropagation();
        select.selectedIndex = index;
        select.dispatchEvent(new Event('input', { bubbles: true }));
        select.dispatchEvent(new Event('change', { bubbles: true }));
        closePopup();
      });
      popup.appendChild(row);
    });
    document.body.appendChild(popup);
  };
  // A key closes the list, as it closes a phone's dropdown; the focused <select> takes the key itself (the
  // arrows move its choice, as the papers' agents pressed them).
  document.addEventListener('keydown', () => closePopup(), true);
  document.addEventListener('mousedown', (event) => {
    const popup = document.getElementById(POPUP_ID);
    if (popup && popup.contains(event.target)) return;
    const select = event.target instanceof Element ? event.target.closest('select') : null;
    if (select && !select.disabled && !select.multiple && select.size <= 1) {
      event.preventDefault();  // no native pop-up: it would be drawn nowhere
      select.focus();
      openPopup(select);
    } else {
      closePopup();
    }
  }, true);
})();
