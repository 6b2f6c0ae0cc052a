// The document of an extension panel's sandboxed frame (served as-is, a classic script: the frame has
// an opaque origin, so it may not load modules). It holds nothing of the Studio: no token, no storage,
// no access to the parent page. It speaks only this narrow message set with the parent:
//   frame → parent: { type: 'svc-extension:ready' }, { type: 'svc-extension:resize', height }
//   parent → frame: { type: 'svc-extension:render', theme, siteId, panel: { id, title }, result }
// and draws the run's JSON output as text (never as HTML).
(function () {
  'use strict';
  var root = document.getElementById('root');

  // Styles go through the CSSOM (the inherited CSP refuses inline style markup; a stylesheet link would
  // be a cross-origin read from this opaque origin).
  var colors = { light: { text: '#0f172a', background: '#ffffff', line: '#cbd5e1', bad: '#b91c1c' }, dark: { text: '#f1f5f9', background: '#0f1729', line: '#334155', bad: '#f87171' } };
  var palette = colors.light;

  function el(tag, text) {
    var node = document.createElement(tag);
    if (text !== undefined) node.textContent = text;
    if (tag === 'th' || tag === 'td') {
      node.style.textAlign = 'left';
      node.style.padding = '.2rem .5rem';
      node.style.borderBottom = '1px solid ' + palette.line;
      node.style.verticalAlign = 'top';
    }
    if (tag === 'table') node.style.borderCollapse = 'collapse';
    return node;
  }

  function applyTheme(theme) {
    palette = theme === 'dark' ? colors.dark : colors.light;
    var html = document.documentElement;
    html.setAttribute('data-theme', theme === 'dark' ? 'dark' : 'light');
    html.style.fontFamily = 'system-ui, sans-serif';
    html.style.fontSize = '14px';
    html.style.color = palette.text;
    html.style.background = palette.background;
    document.body.style.margin = '0';
    document.body.style.padding = '.75rem';
  }

  function render(value, depth) {
    if (value === null || value === undefined) return el('span', '—');
    if (typeof value !== 'object') return el('span', String(value));
    if (depth > 6) return el('span', JSON.stringify(value));
    if (Array.isArray(value)) {
      var list = el('ul');
      value.slice(0, 200).forEach(function (entry) {
        var item = el('li');
        item.appendChild(render(entry, depth + 1));
        list.appendChild(item);
      });
      return list;
    }
    var table = el('table');
    var body = el('tbody');
    Object.keys(value).slice(0, 200).forEach(function (key) {
      var row = el('tr');
      var head = el('th', key);
      head.setAttribute('scope', 'row');
      var cell = el('td');
      cell.appendChild(render(value[key], depth + 1));
      row.appendChild(head);
      row.appendChild(cell);
      body.appendChild(row);
    });
    table.appendChild(body);
    return table;
  }

  function resize() {
    window.parent.postMessage({ type: 'svc-extension:resize', height: Math.ceil(document.documentElement.scrollHeight) }, '*');
  }

  window.addEventListener('message', function (event) {
    if (event.source !== window.parent) return;
    var message = event.data;
    if (!message || message.type !== 'svc-extension:render') return;
    applyTheme(message.theme);
    document.documentElement.setAttribute('data-site', String(message.siteId || ''));
    root.textContent = '';
    var result = message.result || {};
    if (result.status === 'failed') {
      var failure = el('p', 'The extension failed: ' + (result.error ? result.error.kind + ': ' + result.error.message : 'unknown error'));
      failure.style.color = palette.bad;
      failure.setAttribute('role', 'alert');
      root.appendChild(failure);
    } else {
      root.appendChild(render(result.output, 0));
    }
    resize();
  });

  window.parent.postMessage({ type: 'svc-extension:ready' }, '*');
})();
