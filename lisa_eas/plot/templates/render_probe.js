// The render probe, read by the browser test (tests/browser.py): it writes on <body> the
// rendered Bokeh roots, JavaScript errors, invisible tables/plots, visible plots, network
// requests and the page height. One source: lisa_eas's pages include it (base.html) and the
// Sphinx docs ship it as _static/render_probe.js (docs/conf.py, html_static_path).
(function () {
  window.__lisaErrors = window.__lisaErrors || [];
  window.addEventListener('error', function (e) { window.__lisaErrors.push(String(e.message)); });
  window.addEventListener('unhandledrejection', function (e) { window.__lisaErrors.push(String(e.reason)); });
  function visible(el) {
    var r = el.getBoundingClientRect(), s = window.getComputedStyle(el);
    return r.width > 20 && r.height > 10 && s.visibility !== 'hidden' && s.display !== 'none';
  }
  function probe() {
    var n = 0;
    if (window.Bokeh && Bokeh.documents) {
      Bokeh.documents.forEach(function (d) { n += d.roots().length; });
    }
    // the docs pages' tables are those of the article (not the theme's); lisa_eas pages: all
    var tables = document.querySelector('article') ? 'article table' : 'table';
    var hidden = [], plots = 0;
    document.querySelectorAll(tables + ', .plot, [data-root-id]').forEach(function (el, i) {
      var isPlot = el.classList.contains('plot') || el.hasAttribute('data-root-id');
      // bokeh's root wrappers are display:contents (no box of their own): measure the plot inside
      while (el && window.getComputedStyle(el).display === 'contents') { el = el.firstElementChild; }
      if (!el) { return; }  // a root with nothing to draw (the extension's loader)
      var tall = el.getBoundingClientRect().height > 100;
      if (isPlot && !el.classList.contains('plot') && visible(el) && tall) { plots += 1; }
      if (!visible(el) || (isPlot && !tall)) {
        hidden.push(el.id || el.getAttribute('data-plot') || el.tagName + i);
      }
    });
    var net = performance.getEntriesByType('resource').map(function (e) { return e.name; })
      .filter(function (u) { return !/^(file|data|blob|about):/.test(u); });
    var b = document.body;
    b.setAttribute('data-bokeh-roots', String(n));
    b.setAttribute('data-js-errors', String(window.__lisaErrors.length));
    b.setAttribute('data-invisible', hidden.join(' '));
    b.setAttribute('data-visible-plots', String(plots));
    b.setAttribute('data-n-tables', String(document.querySelectorAll(tables).length));
    b.setAttribute('data-network', net.join(' '));
    b.setAttribute('data-page-height', String(document.documentElement.scrollHeight));
    b.setAttribute('data-js-error-text', window.__lisaErrors.join(' | '));
    var pre = document.getElementById('js-errors');
    if (pre && window.__lisaErrors.length) { pre.textContent = window.__lisaErrors.join('\n'); }
  }
  window.addEventListener('load', function () { setTimeout(probe, 500); setTimeout(probe, 3000); });
})();
