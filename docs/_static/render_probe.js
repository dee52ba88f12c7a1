// Written on <body> for the browser test (tests/browser.py): rendered Bokeh roots, JS errors,
// invisible tables/plots, network requests, page height. Same probe as lisa_eas/plot/templates/base.html.
(function () {
  // Read by the browser test: rendered plots, JS errors, network requests, invisible elements.
  function visible(el) {
    var r = el.getBoundingClientRect(), s = window.getComputedStyle(el);
    return r.width > 20 && r.height > 10 && s.visibility !== 'hidden' && s.display !== 'none';
  }
  function probe() {
    var n = 0;
    if (window.Bokeh && Bokeh.documents) {
      Bokeh.documents.forEach(function (d) { n += d.roots().length; });
    }
    var hidden = [], plots = 0;
    document.querySelectorAll('article table, [data-root-id]').forEach(function (el, i) {
      var isPlot = el.hasAttribute('data-root-id');
      // bokeh's root wrappers are display:contents (no box of their own): measure the plot inside
      while (el && window.getComputedStyle(el).display === 'contents') { el = el.firstElementChild; }
      if (!el) { return; }  // a root with nothing to draw (the extension's loader)
      if (isPlot && visible(el) && el.getBoundingClientRect().height > 100) { plots += 1; }
      var plotOk = !isPlot || el.getBoundingClientRect().height > 100;
      if (!visible(el) || !plotOk) { hidden.push(el.id || el.getAttribute('data-plot') || el.tagName + i); }
    });
    var net = performance.getEntriesByType('resource').map(function (e) { return e.name; })
      .filter(function (u) { return !/^(file|data|blob|about):/.test(u); });
    var b = document.body;
    b.setAttribute('data-bokeh-roots', String(n));
    b.setAttribute('data-js-errors', String(window.__lisaErrors.length));
    b.setAttribute('data-invisible', hidden.join(' '));
    b.setAttribute('data-visible-plots', String(plots));
    b.setAttribute('data-n-tables', String(document.querySelectorAll('table').length));
    b.setAttribute('data-network', net.join(' '));
    b.setAttribute('data-page-height', String(document.documentElement.scrollHeight));
    b.setAttribute('data-js-error-text', window.__lisaErrors.join(' | '));
  }
  window.__lisaErrors = window.__lisaErrors || [];
  window.addEventListener('error', function (e) { window.__lisaErrors.push(String(e.message)); });
  window.addEventListener('load', function () { setTimeout(probe, 500); setTimeout(probe, 3000); });
})();
