// Tessera render graph viewer: draws the page model embedded in #tessera-data.
// Plain DOM and SVG strings, no libraries. Large frames stay responsive: every section is
// built as one string and inserted once; zoom only changes the timeline SVG's size (its
// viewBox stays put), so the browser rescales instead of the script redrawing.
(function () {
  'use strict';
  var T0 = performance.now();
  var DATA = JSON.parse(document.getElementById('tessera-data').textContent);
  var P = DATA.page;
  var T = P.totals;

  function $(id) { return document.getElementById(id); }
  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c];
    });
  }
  // Byte sizes and counted nouns, by the rules of the crate's `format` module (the browser
  // test checks they agree): exact bytes below 1 KiB, else one decimal of the largest binary
  // unit that stays below 1024 after rounding half up.
  var UNITS = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  function bytes(b) {
    b = Math.round(b);
    if (b < 1024) return b + ' B';
    for (var i = 0, unit = 1024; ; i++, unit *= 1024) {
      var tenths = Math.floor((b * 20 + unit) / (2 * unit));
      if (tenths < 10240 || i === UNITS.length - 1) return Math.floor(tenths / 10) + '.' + (tenths % 10) + ' ' + UNITS[i];
    }
  }
  function rate(b) { return bytes(b * 60) + '/s'; }
  function plural(n, one, many) { return n + ' ' + (n === 1 ? one : many); }
  window.tesseraFormat = { bytes: bytes, rate: rate, plural: plural };
  function int(b) { return String(b).replace(/\B(?=(\d{3})+(?!\d))/g, ','); }
  function pct(x) { return x.toFixed(1) + '%'; }
  // Stage and access flags as HTML, with a break opportunity after each '|'.
  function flags(list) { return list && list.length ? list.map(esc).join('|<wbr>') : 'NONE'; }
  function queueName(q) { return q === 'async_compute' ? 'async compute' : 'graphics'; }
  function opClass(op) { return op === 'load' || op === 'store' ? 'op-load' : 'op-free'; }
  // Escaped text with break opportunities after '_', '/', '.' and '|', so long names and
  // flag lists wrap at their word boundaries (CSS breaks inside a word only when one word
  // alone is wider than its box).
  function brk(s) { return esc(s).replace(/([_|/.])(?=[^\s])/g, '$1<wbr>'); }

  // Text widths for fitting labels, measured with the page's font; cached per text and size.
  var measure = document.createElement('canvas').getContext('2d');
  var FONT = getComputedStyle(document.body).fontFamily, widths = {};
  function textWidth(s, px) {
    var k = px + '|' + s;
    if (!(k in widths)) { measure.font = px + 'px ' + FONT; widths[k] = measure.measureText(s).width; }
    return widths[k];
  }
  // `s` as it fits in `w` at `px`: whole, or its longest prefix that fits with an ellipsis,
  // keeping a trailing number ("bloom downsample 3" -> "bloom d\u2026 3") so siblings stay
  // apart; '' when not even one letter and the ellipsis fit. The full text goes in a <title>.
  var elided = {};
  function elide(s, w, px) {
    var k = w + '|' + px + '|' + s;
    if (k in elided) return elided[k];
    var out = '';
    if (textWidth(s, px) <= w) out = s;
    else {
      var m = /^(.*\S)([ _\-.]\d+)$/.exec(s), tails = m ? [m[2], ''] : [''];
      for (var t = 0; t < tails.length && !out; t++) {
        var head = m && tails[t] ? m[1] : s, tail = '\u2026' + tails[t].replace(/^[ _\-.]/, '');
        var lo = 1, hi = head.length - 1, best = 0;
        while (lo <= hi) {
          var mid = (lo + hi) >> 1;
          if (textWidth(head.slice(0, mid).replace(/[\s_\-.]+$/, '') + tail, px) <= w) { best = mid; lo = mid + 1; } else hi = mid - 1;
        }
        if (best) out = head.slice(0, best).replace(/[\s_\-.]+$/, '') + tail;
      }
    }
    elided[k] = out;
    return out;
  }
  function title(s) { return '<title>' + esc(s) + '</title>'; }

  var passByName = {};
  P.passes.forEach(function (p) { passByName[p.name] = p; });
  var resByName = {};
  P.resources.forEach(function (r, i) { r.idx = i; resByName[r.name] = r; });
  var culledIdx = {};
  P.culled.forEach(function (c, i) { culledIdx[c.name] = i; });

  // ---- totals -------------------------------------------------------------------------
  function barRow(label, value, max, color, text) {
    var w = max > 0 ? Math.max(0.5, 100 * value / max) : 0;
    return '<div class="row"><span>' + label + '</span><span>' + text + '</span></div>' +
      '<div class="bar"><span style="width:' + w.toFixed(2) + '%;background:' + color + '"></span></div>';
  }
  function totals() {
    var bwMax = Math.max(T.naive_bytes, T.planned_bytes);
    var memMax = Math.max(T.unaliased_bytes, T.aliased_bytes, T.memoryless_bytes, T.lower_bound_bytes);
    var h = '';
    h += '<div class="card"><h3>Tile bandwidth (DRAM)</h3>' +
      '<div class="big">' + bytes(T.planned_bytes) + '<span class="muted" style="font-size:13px"> /frame</span></div>' +
      '<div class="muted">' + rate(T.planned_bytes) + ' at 60 fps · ' + pct(T.bandwidth_saved_percent) + ' saved</div>' +
      barRow('planned', T.planned_bytes, bwMax, 'var(--placed)', bytes(T.planned_bytes) + ' · ' + rate(T.planned_bytes)) +
      barRow('naive', T.naive_bytes, bwMax, 'var(--load)', bytes(T.naive_bytes) + ' · ' + rate(T.naive_bytes)) +
      '<div class="muted">load ' + bytes(T.load_bytes) + ', store ' + bytes(T.store_bytes) + '</div></div>';
    h += '<div class="card"><h3>Transient memory</h3>' +
      '<div class="big">' + bytes(T.aliased_bytes) + '</div>' +
      '<div class="muted">aliased · ' + pct(T.memory_saved_percent) + ' below unaliased</div>' +
      barRow('unaliased', T.unaliased_bytes, memMax, 'var(--imported)', bytes(T.unaliased_bytes)) +
      barRow('aliased', T.aliased_bytes, memMax, 'var(--placed)', bytes(T.aliased_bytes)) +
      barRow('lower bound', T.lower_bound_bytes, memMax, '#5a86c8', bytes(T.lower_bound_bytes)) +
      barRow('memoryless', T.memoryless_bytes, memMax, 'var(--memoryless)', bytes(T.memoryless_bytes)) + '</div>';
    h += '<div class="card"><h3>Cross-queue waits</h3>' +
      '<div class="big">' + T.waits_before + ' \u2192 ' + T.waits_after + '</div>' +
      '<div class="muted">before \u2192 after minimisation (' + T.waits_removed + ' implied by the kept ones plus queue order)</div>' +
      barRow('candidates', T.waits_before, T.waits_before, '#c9ced6', String(T.waits_before)) +
      barRow('kept semaphores', T.waits_after, T.waits_before, 'var(--sem)', String(T.waits_after)) + '</div>';
    h += '<div class="card"><h3>Passes</h3>' +
      '<div class="big">' + T.passes + ' <span class="muted" style="font-size:13px">kept, ' + T.culled + ' culled</span></div>' +
      '<div class="row"><span>render passes</span><span>' + T.render_passes + ' (' + plural(T.subpasses, 'subpass', 'subpasses') + ')</span></div>' +
      '<div class="row"><span>breaks</span><span>' + T.breaks + ' · ' + bytes(T.break_bytes) + ' handed over</span></div>' +
      '<div class="row"><span>barriers</span><span>' + T.barriers + '</span></div>' +
      '<div class="row"><span>async compute passes</span><span>' + T.async_passes + '</span></div></div>';
    $('totals').innerHTML = h;
  }

  // ---- timeline -----------------------------------------------------------------------
  // The SVG has the size of the whole frame (so the scrollbars are right) but holds only
  // what is in view plus a margin: every scroll or zoom redraws that window (a few hundred
  // elements), so a 1,000-pass frame costs what a 30-pass one does. Zooming out far enough
  // to see many passes drops labels and use ticks (level of detail). The pass names (top)
  // and the lane labels (left) stay pinned while scrolling.
  var LW = 150, HH = 118, RPH = 22, LANE = 32, CULL = 26, RH = 14;
  // HEAD: room for a pass name along its rotated header line.
  var HEAD = Math.floor((HH - 12) / Math.sin(Math.PI / 3));
  var CW = 26, W = 0, H = 0, zoom = 1, cullTop = 0, resTop = 0, laneBottom = 0;
  var hasAsync = P.passes.some(function (p) { return p.queue === 'async_compute'; });
  var lanes = hasAsync ? ['graphics', 'async_compute'] : ['graphics'];
  var added = {};
  // New on the timeline: passes added to the frame and passes kept again (culled before).
  if (DATA.diff) DATA.diff.diff.passes_added.concat(DATA.diff.diff.no_longer_culled).forEach(function (n) { added[n] = true; });
  var pending = false, markedKey = null;

  function kindColor(p) {
    if (p.queue === 'async_compute') return 'var(--async)';
    return p.kind === 'raster' ? 'var(--raster)' : p.kind === 'compute' ? 'var(--compute)' : 'var(--transfer)';
  }
  function x(col) { return LW + col * CW; }
  function laneY(q) { return HH + RPH + 6 + lanes.indexOf(q) * LANE; }

  // A render pass's label on the timeline: the longest of these forms that fits its box
  // (nothing when not even its number fits); the full text is its <title>.
  function rpText(rp) {
    return 'RP ' + rp.index + ' \u00b7 ' + plural(rp.subpasses.length, 'subpass', 'subpasses') + ' \u00b7 ' + bytes(rp.dram_bytes) + ' DRAM/frame: ' + rp.subpasses.join(' \u2192 ');
  }
  function rpLabel(rp, w) {
    var n = 'RP ' + rp.index, b = bytes(rp.dram_bytes), forms = [
      n + ' \u00b7 ' + plural(rp.subpasses.length, 'subpass', 'subpasses') + ' \u00b7 ' + b,
      n + ' \u00b7 ' + rp.subpasses.length + ' sub \u00b7 ' + b, n + ' \u00b7 ' + b, n, 'RP' + rp.index, String(rp.index)];
    for (var i = 0; i < forms.length; i++) if (textWidth(forms[i], 11) <= w) return forms[i];
    return '';
  }

  function timeline() {
    var n = Math.max(1, P.passes.length);
    var box = $('timeline');
    var avail = Math.max(400, box.clientWidth - 4);
    CW = Math.max(26, Math.min(110, Math.floor((avail - LW - 20) / n)));
    laneBottom = HH + RPH + 6 + lanes.length * LANE;
    cullTop = laneBottom + 4;
    resTop = cullTop + (P.culled.length ? CULL + 6 : 0) + 18;
    W = LW + Math.max(n, P.culled.length) * CW + 160;
    H = resTop + P.resources.length * RH + 10;
    box.innerHTML = '<svg id="tl" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ' + W + ' ' + H + '" width="' + W + '" height="' + H + '" font-size="11">' +
      '<defs><marker id="arrow" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L8,4 L0,8 z" fill="#c0282f"/></marker>' +
      '<marker id="harrow" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L8,4 L0,8 z" fill="#7a4fb5"/></marker><pattern id="hatch" width="5" height="5" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="5" height="5" fill="#e6dcfa"/><line x1="0" y1="0" x2="0" y2="5" stroke="#8c6bd6" stroke-width="2"/></pattern></defs>' +
      '<g id="tl-content"></g></svg>';
    $('legend').innerHTML =
      '<span><i style="background:var(--raster)"></i>raster</span><span><i style="background:var(--compute)"></i>compute</span>' +
      '<span><i style="background:var(--transfer)"></i>transfer</span><span><i style="background:var(--async)"></i>async compute</span>' +
      '<span><i style="background:var(--rp)"></i>render pass</span><span><i style="background:var(--break)"></i>break</span>' +
      '<span><i style="background:var(--sem)"></i>semaphore</span><span><i style="background:var(--barrier);border-radius:6px"></i>barriers before (after: dark)</span>' +
      '<span><i style="background:var(--placed)"></i>transient lifetime</span><span><i style="background:#d9ccf5"></i>memoryless</span>' +
      '<span><i style="background:#d6dadf;border:1px solid #8b939c"></i>imported</span>' + (P.history.length ? '<span><i style="background:#ece3f8;border:1px solid #7a4fb5"></i>history (dashed: to next frame)</span>' : '') + '<span><i style="background:#1d3a5c"></i>write</span><span><i style="background:#fff;border:1px solid #1d3a5c"></i>read</span>';
    var fit = Math.min(1, (avail - 2) / W);
    setZoom(fit < 1 && P.passes.length <= 60 ? fit : 1);
  }

  function draw() {
    pending = false;
    var box = $('timeline'), g = $('tl-content');
    if (!g) return;
    // The window in SVG units, with half a view of margin on each side.
    var vw = box.clientWidth / zoom, vh = box.clientHeight / zoom;
    var vx0 = box.scrollLeft / zoom, vy0 = box.scrollTop / zoom;
    var ax0 = vx0 - vw / 2, ax1 = vx0 + vw * 1.5, ay0 = vy0 - vh / 2, ay1 = vy0 + vh * 1.5;
    var c0 = Math.max(0, Math.floor((ax0 - LW) / CW)), c1 = Math.ceil((ax1 - LW) / CW);
    var colPx = CW * zoom, rowPx = RH * zoom;
    var detail = colPx >= 9, rowDetail = rowPx >= 6 && colPx >= 4;
    function inCols(a, b) { return b >= c0 && a <= c1; }
    var s = [];
    var i, p;
    // Column shading as one path.
    var shade = [];
    for (i = c0 + (c0 % 2 ? 0 : 1); i <= Math.min(c1, P.passes.length - 1); i += 2) shade.push('M' + x(i) + ',' + (HH - 4) + 'h' + CW + 'V' + H + 'h' + (-CW) + 'z');
    if (shade.length) s.push('<path d="' + shade.join('') + '" fill="#f7f9fc"/>');
    // Lane rules.
    lanes.forEach(function (q) {
      s.push('<line x1="' + Math.max(LW, ax0) + '" x2="' + Math.min(W - 10, ax1) + '" y1="' + (laneY(q) + LANE - 2) + '" y2="' + (laneY(q) + LANE - 2) + '" stroke="#e3e7ec"/>');
    });
    // Zoomed far out, shapes of one kind merge into one path each (no hover there).
    var coarse = colPx < 4, paths = {}, strokes = {};
    function addPath(color, d) { (paths[color] = paths[color] || []).push(d); }
    function addStroke(color, d) { (strokes[color] = strokes[color] || []).push(d); }
    // Render passes.
    P.render_passes.forEach(function (rp) {
      if (!inCols(rp.first, rp.last)) return;
      var x0 = x(rp.first) + 1, w = (rp.last - rp.first + 1) * CW - 2;
      if (coarse) { addPath('var(--rp)', 'M' + x0 + ',' + (HH + 2) + 'h' + w + 'v' + (RPH - 4) + 'h' + (-w) + 'z'); return; }
      s.push('<g class="hit" data-k="rp:' + rp.index + '">' + title(rpText(rp)) + '<rect x="' + x0 + '" y="' + (HH + 2) + '" width="' + w + '" height="' + (RPH - 4) + '" rx="3" fill="var(--rp)" stroke="#7da0dc"/>');
      var rl = rpLabel(rp, w - 8);
      if (rl && w * zoom > 14) s.push('<text x="' + (x0 + 4) + '" y="' + (HH + 15) + '" fill="#234">' + esc(rl) + '</text>');
      s.push('</g>');
    });
    // Pass boxes: one group each with details, or one path per colour when zoomed far out.
    for (i = c0; i <= Math.min(c1, P.passes.length - 1); i++) {
      p = P.passes[i];
      var y = laneY(p.queue) + 4, bx = x(i) + 2, bw = CW - 4;
      if (coarse) { addPath(kindColor(p), 'M' + bx + ',' + y + 'h' + bw + 'v' + (LANE - 10) + 'h' + (-bw) + 'z'); continue; }
      var isNew = added[p.name];
      s.push('<g class="hit" data-k="p:' + i + '">' + title(p.name) + '<rect id="pb' + i + '" x="' + bx + '" y="' + y + '" width="' + bw + '" height="' + (LANE - 10) + '" rx="3" fill="' + kindColor(p) + '" stroke="' + (isNew ? '#1f8a3a' : '#56657a') + '" stroke-width="' + (isNew ? 2 : 0.6) + '"/>');
      if (detail) {
        var px = textWidth(p.name, 11) <= bw - 6 ? 11 : 9, label = elide(p.name, bw - 4, px);
        if (label) s.push('<text x="' + (bx + bw / 2) + '" y="' + (y + 15) + '" text-anchor="middle" font-size="' + px + '" fill="#122">' + esc(label) + '</text>');
        var nb = p.barriers_before.length, na = p.barriers_after.length;
        if (nb) s.push('<circle cx="' + (bx + 1) + '" cy="' + (y - 1) + '" r="5.5" fill="var(--barrier)"/><text x="' + (bx + 1) + '" y="' + (y + 2) + '" font-size="8" text-anchor="middle" fill="#fff">' + nb + '</text>');
        if (na) s.push('<circle cx="' + (bx + bw - 1) + '" cy="' + (y - 1) + '" r="5.5" fill="#9a5b00"/><text x="' + (bx + bw - 1) + '" y="' + (y + 2) + '" font-size="8" text-anchor="middle" fill="#fff">' + na + '</text>');
      }
      s.push('</g>');
    }
    // Breaks: a line at the boundary and a marker on the render pass band.
    P.breaks.forEach(function (b, k) {
      if (!inCols(b.position, b.position)) return;
      var bxp = x(b.position);
      if (coarse) { addStroke('var(--break)', 'M' + bxp + ',' + HH + 'V' + laneBottom); return; }
      s.push('<g class="hit" data-k="b:' + k + '"><line x1="' + bxp + '" x2="' + bxp + '" y1="' + HH + '" y2="' + laneBottom + '" stroke="var(--break)" stroke-width="2" stroke-dasharray="4 3"/>' +
        '<path d="M' + bxp + ',' + (HH + 3) + ' l6,8 l-6,8 l-6,-8 z" fill="var(--break)"/>' +
        '<rect x="' + (bxp - 6) + '" y="' + HH + '" width="12" height="' + (laneBottom - HH) + '" fill="transparent"/></g>');
    });
    // Semaphores.
    P.syncs.forEach(function (e, k) {
      if (!inCols(Math.min(e.signal_position, e.wait_position), Math.max(e.signal_position, e.wait_position))) return;
      var x1 = x(e.signal_position) + CW - 2, y1 = laneY(e.signal_queue) + LANE / 2 - 1;
      var x2 = x(e.wait_position) + 2, y2 = laneY(e.wait_queue) + LANE / 2 - 1;
      var mx = (x1 + x2) / 2, d = 'M' + x1 + ',' + y1 + ' C' + mx + ',' + y1 + ' ' + mx + ',' + y2 + ' ' + x2 + ',' + y2;
      if (coarse) { addStroke('var(--sem)', d); return; }
      s.push('<g class="hit" data-k="s:' + k + '"><path d="' + d + '" fill="none" stroke="var(--sem)" stroke-width="2" marker-end="url(#arrow)"/>' +
        '<path d="' + d + '" fill="none" stroke="transparent" stroke-width="9"/></g>');
    });
    // History: from the last writer to the frame's end, and from the next frame's start to
    // the first reader of the previous content (dashed: across the frame boundary).
    P.history.forEach(function (h, k) {
      var w = h.last_writer !== null ? passByName[h.last_writer] : null, rd = h.first_reader !== null ? passByName[h.first_reader] : null;
      if (!w || !rd || coarse) return;
      var end = x(P.passes.length) + 6, yw = laneY(w.queue) + LANE - 8 - 3 * k, yr = laneY(rd.queue) + LANE - 8 - 3 * k;
      var d = 'M' + (x(w.position) + CW - 2) + ',' + yw + ' H' + end + ' M' + (LW - 2) + ',' + yr + ' H' + (x(rd.position) + 2);
      s.push('<g class="hit" data-k="h:' + k + '">' + title(h.resource + ': written by ' + h.last_writer + ', read by ' + h.first_reader + ' next frame') +
        '<path d="' + d + '" fill="none" stroke="#7a4fb5" stroke-width="1.5" stroke-dasharray="5 3" marker-end="url(#harrow)"/>' +
        '<text x="' + (end + 3) + '" y="' + (yw + 3) + '" font-size="9" fill="#7a4fb5">next frame \u21bb ' + esc(h.resource) + '</text></g>');
    });
    // Culled passes, greyed, in declaration order.
    for (i = c0; i <= Math.min(c1, P.culled.length - 1); i++) {
      var c = P.culled[i], cx = x(i) + 2, cw = CW - 4;
      s.push('<g class="hit" data-k="c:' + i + '">' + title(c.name + (c.skipped ? ' (skipped: outputs still valid)' : ' (culled)')) + '<rect x="' + cx + '" y="' + (cullTop + 2) + '" width="' + cw + '" height="' + (CULL - 6) + '" rx="3" fill="' + (c.skipped ? '#e3f1e7' : '#eceef1') + '" stroke="' + (c.skipped ? '#3b7d4f' : '#a0a6ae') + '" stroke-dasharray="3 2"/>');
      var cpx = textWidth(c.name, 10) <= cw - 6 ? 10 : 9, cl = detail ? elide(c.name, cw - 4, cpx) : '';
      if (cl) s.push('<text x="' + (cx + cw / 2) + '" y="' + (cullTop + 15) + '" text-anchor="middle" font-size="' + cpx + '" fill="#8a9099">' + esc(cl) + '</text>');
      s.push('</g>');
    }
    // Resource lifetimes in view (one path per colour when rows are too thin to point at).
    var r0 = Math.max(0, Math.floor((ay0 - resTop) / RH)), r1 = Math.min(P.resources.length - 1, Math.ceil((ay1 - resTop) / RH));
    for (i = r0; i <= r1; i++) {
      var r = P.resources[i];
      if (!inCols(r.first, r.last + 4)) continue;
      var ry = resTop + i * RH, x0 = x(r.first) + 3, x1 = x(r.last + 1) - 3;
      var fill = r.memoryless ? 'url(#hatch)' : r.history ? '#ece3f8' : r.imported ? '#d6dadf' : r.kind === 'buffer' ? '#9fd3c5' : 'var(--placed)';
      if (rowPx < 3) { addPath(fill, 'M' + x0 + ',' + (ry + 3) + 'h' + Math.max(2, x1 - x0) + 'v' + (RH - 6) + 'h' + (-Math.max(2, x1 - x0)) + 'z'); continue; }
      s.push('<g class="hit" data-k="r:' + i + '">' + title(r.name + historyTag(r) + ' \u00b7 ' + bytes(r.bytes)) + '<rect x="' + x0 + '" y="' + ry + '" width="' + Math.max(2, x1 - x0) + '" height="' + RH + '" fill="transparent"/>');
      s.push('<rect id="rb' + i + '" x="' + x0 + '" y="' + (ry + 3) + '" width="' + Math.max(2, x1 - x0) + '" height="' + (RH - 6) + '" rx="2" fill="' + fill + '" stroke="' + (r.history ? '#7a4fb5' : r.imported ? '#8b939c' : 'none') + '"/>');
      if (rowDetail) {
        var wr = '', rd = '';
        r.uses.forEach(function (u) {
          var t = 'M' + (x(u[0]) + CW / 2 - 2) + ',' + (ry + 2) + 'h4v' + (RH - 4) + 'h-4z';
          if (/write|dst|resolve/.test(u[1])) wr += t; else rd += t;
        });
        if (rd) s.push('<path d="' + rd + '" fill="#fff" stroke="#1d3a5c" stroke-width="0.8"/>');
        if (wr) s.push('<path d="' + wr + '" fill="#1d3a5c"/>');
        var rn = elide(r.name + historyTag(r), W - x1 - 12, 10);
        if (rn) s.push('<text x="' + (x1 + 5) + '" y="' + (ry + 10) + '" font-size="10" fill="#223">' + esc(rn) + '</text>');
      }
      s.push('</g>');
    }
    Object.keys(paths).forEach(function (color) { s.push('<path d="' + paths[color].join('') + '" fill="' + color + '"/>'); });
    Object.keys(strokes).forEach(function (color) { s.push('<path d="' + strokes[color].join('') + '" fill="none" stroke="' + color + '" stroke-width="' + (1.5 / zoom) + '"/>'); });
    // Pinned left column: lane labels and resource sizes.
    var lx = Math.max(0, vx0);
    s.push('<rect x="' + lx + '" y="' + (HH - 4) + '" width="' + (LW - 4) + '" height="' + (H - HH + 4) + '" fill="#fff" opacity="0.92"/>');
    s.push('<text x="' + (lx + 8) + '" y="' + (HH + 15) + '" fill="#567">render passes</text>');
    lanes.forEach(function (q) { s.push('<text x="' + (lx + 8) + '" y="' + (laneY(q) + 20) + '" font-weight="600" fill="#234">' + queueName(q) + '</text>'); });
    if (P.culled.length) s.push('<text x="' + (lx + 8) + '" y="' + (cullTop + 17) + '" fill="#888">culled</text>');
    s.push('<text x="' + (lx + 8) + '" y="' + (resTop - 5) + '" font-weight="600" fill="#234">resources</text>');
    if (rowPx >= 6) {
      for (i = r0; i <= r1; i++) {
        var rr = P.resources[i];
        var size = ' \u00b7 ' + bytes(rr.bytes);
        s.push('<text class="hit" data-k="r:' + i + '" x="' + (lx + LW - 10) + '" y="' + (resTop + i * RH + 10) + '" text-anchor="end" font-size="9" fill="#789">' + title(rr.name + size) +
          esc(elide(rr.name, LW - 18 - textWidth(size, 9), 9) + size) + '</text>');
      }
    }
    // Pinned header: pass names.
    var hy = Math.max(0, vy0);
    s.push('<rect x="' + Math.max(0, ax0) + '" y="' + hy + '" width="' + (ax1 - ax0) + '" height="' + (HH - 4) + '" fill="#fff" opacity="0.95"/>');
    if (detail) {
      for (i = c0; i <= Math.min(c1, P.passes.length - 1); i++) {
        s.push('<text class="hit" data-k="p:' + i + '" transform="translate(' + (x(i) + CW / 2 + 4) + ',' + (hy + HH - 8) + ') rotate(-60)" fill="#333">' + title(P.passes[i].name) + esc(elide(P.passes[i].name, HEAD, 11)) + '</text>');
      }
    }
    s.push('<rect x="' + lx + '" y="' + hy + '" width="' + (LW - 4) + '" height="' + (HH - 4) + '" fill="#fff"/>');
    s.push('<text x="' + (lx + 8) + '" y="' + (hy + HH - 10) + '" fill="#567" font-size="10">' + plural(P.passes.length, 'pass', 'passes') + ' \u00b7 zoom ' + Math.round(zoom * 100) + '%</text>');
    g.innerHTML = s.join('');
    if (markedKey) mark(markedKey);
  }

  function schedule() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(draw);
  }

  function setZoom(z, cx, cy) {
    var box = $('timeline'), svg = $('tl');
    if (!svg) return;
    z = Math.max(0.02, Math.min(8, z));
    var r = box.getBoundingClientRect();
    var px = cx === undefined ? box.clientWidth / 2 : cx - r.left;
    var py = cy === undefined ? 0 : cy - r.top;
    var ux = (box.scrollLeft + px) / zoom, uy = (box.scrollTop + py) / zoom;
    zoom = z;
    svg.setAttribute('width', Math.round(W * z));
    svg.setAttribute('height', Math.round(H * z));
    box.scrollLeft = ux * z - px;
    box.scrollTop = uy * z - py;
    draw();
  }

  function wireZoom() {
    var box = $('timeline');
    box.addEventListener('scroll', schedule);
    window.addEventListener('resize', schedule);
    box.addEventListener('wheel', function (e) {
      if (!e.ctrlKey && !e.metaKey) return;
      e.preventDefault();
      setZoom(zoom * Math.pow(1.0015, -e.deltaY), e.clientX, e.clientY);
    }, { passive: false });
    var drag = null;
    box.addEventListener('pointerdown', function (e) {
      if (e.button !== 0) return;
      drag = { x: e.clientX, y: e.clientY, l: box.scrollLeft, t: box.scrollTop, moved: false };
    });
    window.addEventListener('pointermove', function (e) {
      if (!drag) return;
      var dx = e.clientX - drag.x, dy = e.clientY - drag.y;
      if (!drag.moved && Math.abs(dx) + Math.abs(dy) > 4) { drag.moved = true; box.classList.add('dragging'); }
      if (drag.moved) { box.scrollLeft = drag.l - dx; box.scrollTop = drag.t - dy; }
    });
    window.addEventListener('pointerup', function () {
      if (drag && drag.moved) { suppressClick = true; setTimeout(function () { suppressClick = false; }, 0); }
      drag = null; box.classList.remove('dragging');
    });
    $('zoom-in').onclick = function () { setZoom(zoom * 1.5); };
    $('zoom-out').onclick = function () { setZoom(zoom / 1.5); };
    $('zoom-one').onclick = function () { setZoom(1); };
    $('zoom-fit').onclick = function () { setZoom((box.clientWidth - 2) / W); };
  }

  // ---- two frames ---------------------------------------------------------------------
  // A plan that overlaps frames: frame N then frame N+1 on the queue lanes (equal-width
  // columns from the model), frame N+1 hatched; frame N's tail and frame N+1's head outlined;
  // the cross-frame wait as an arrow; then the memory the overlap costs.
  function twoFrames() {
    var F = P.two_frames;
    if (!F) return;
    $('overlap-section').hidden = false;
    var L2 = 120, TOP = 44, LH = 34, avail = Math.max(400, $('overlap').clientWidth - 4);
    var cw = Math.max(20, Math.min(96, Math.floor((avail - L2 - 150) / Math.max(1, F.columns))));
    var tlanes = ['graphics', 'async_compute'];
    var W2 = L2 + F.columns * cw + 150, H2 = TOP + tlanes.length * LH + 26;
    function cx(c) { return L2 + c * cw; }
    function ly(q) { return TOP + tlanes.indexOf(q) * LH; }
    var s = ['<svg id="tf" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ' + W2 + ' ' + H2 + '" width="' + W2 + '" height="' + H2 + '" font-size="11">' +
      '<defs><pattern id="tfhatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><line x1="0" y1="0" x2="0" y2="6" stroke="#fff" stroke-width="2.5" opacity="0.75"/></pattern>' +
      '<marker id="tfarrow" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L8,4 L0,8 z" fill="#c0282f"/></marker></defs>'];
    // Frame bands: frame N from its first column to its end, frame N+1 from its first
    // graphics pass to the end.
    var f1start = F.passes.filter(function (p) { return p.frame === 1; }).reduce(function (m, p) { return Math.min(m, p.column); }, F.columns);
    function band(c0, c1, y, fill, stroke, label) {
      var w = Math.max(4, (c1 - c0) * cw - 2);
      s.push('<rect x="' + (cx(c0) + 1) + '" y="' + y + '" width="' + w + '" height="15" rx="3" fill="' + fill + '" stroke="' + stroke + '"/>' +
        '<text x="' + (cx(c0) + 6) + '" y="' + (y + 11.5) + '" font-weight="600" fill="#234">' + esc(elide(label, w - 10, 11)) + '</text>');
    }
    band(0, F.frame_end_column, 4, '#e4ecf8', '#9db3d6', 'frame N');
    band(f1start, F.columns, 22, '#f1e9dc', '#c9ab7e', 'frame N+1');
    tlanes.forEach(function (q) {
      s.push('<line x1="' + L2 + '" x2="' + (W2 - 10) + '" y1="' + (ly(q) + LH - 2) + '" y2="' + (ly(q) + LH - 2) + '" stroke="#e3e7ec"/>' +
        '<text x="8" y="' + (ly(q) + 20) + '" font-weight="600" fill="#234">' + queueName(q) + '</text>');
    });
    // Where frame N+1's graphics work starts: right after frame N's last graphics pass.
    var bx = cx(F.next_frame_column);
    s.push('<line class="tf-boundary" x1="' + bx + '" x2="' + bx + '" y1="20" y2="' + (TOP + tlanes.length * LH) + '" stroke="#8a6d3b" stroke-width="1.5" stroke-dasharray="5 3"/>');
    F.passes.forEach(function (fp) {
      var p = P.passes[fp.pass], y = ly(fp.queue) + 4, x0 = cx(fp.column) + 2, w = cw - 4, h = LH - 10;
      var role = fp.tail ? ', tail (may run beside frame N+1)' : fp.head ? ', head (may run beside frame N\u2019s tail)' : '';
      var stroke = fp.tail ? '#b34a00' : fp.head ? '#1f5f9a' : '#56657a', sw = fp.tail || fp.head ? 2 : 0.6;
      s.push('<g class="hit tf-pass" data-frame="' + fp.frame + '" data-k="p:' + fp.pass + '">' + title(fp.name + ' (frame ' + (fp.frame ? 'N+1' : 'N') + role + ')') +
        '<rect x="' + x0 + '" y="' + y + '" width="' + w + '" height="' + h + '" rx="3" fill="' + kindColor(p) + '"' + (fp.frame ? ' opacity="0.7"' : '') + '/>' +
        (fp.frame ? '<rect x="' + x0 + '" y="' + y + '" width="' + w + '" height="' + h + '" rx="3" fill="url(#tfhatch)"/>' : '') +
        '<rect x="' + x0 + '" y="' + y + '" width="' + w + '" height="' + h + '" rx="3" fill="none" stroke="' + stroke + '" stroke-width="' + sw + '"/>');
      var px = textWidth(fp.name, 11) <= w - 6 ? 11 : 9, label = elide(fp.name, w - 4, px);
      if (label) s.push('<text x="' + (x0 + w / 2) + '" y="' + (y + 15) + '" text-anchor="middle" font-size="' + px + '" fill="#122">' + esc(label) + '</text>');
      s.push('</g>');
    });
    // Cross-frame waits: from the tail's last pass (frame N) to the waiting pass (N+1).
    F.waits.forEach(function (wt) {
      var x1 = cx(wt.signal_column) + cw - 2, y1 = ly(wt.signal_queue) + LH / 2 - 1;
      var x2 = cx(wt.wait_column) + 2, y2 = ly(wt.wait_queue) + LH / 2 - 1, mx = (x1 + x2) / 2;
      s.push('<g class="tf-wait">' + title('frame N+1 ' + wt.wait + ' waits for frame N ' + wt.signal + ': ' + wt.resources.join(', ')) +
        '<path d="M' + x1 + ',' + y1 + ' C' + mx + ',' + y1 + ' ' + mx + ',' + y2 + ' ' + x2 + ',' + y2 + '" fill="none" stroke="var(--sem)" stroke-width="2" marker-end="url(#tfarrow)"/></g>');
    });
    // Where the head ends.
    if (F.head_end_column !== null) {
      var hx = cx(F.head_end_column);
      s.push('<g class="tf-head-end">' + title('the head ends at ' + F.head_end) + '<line x1="' + hx + '" x2="' + hx + '" y1="' + TOP + '" y2="' + (TOP + tlanes.length * LH + 4) + '" stroke="var(--sem)" stroke-width="2"/>' +
        '<text x="' + (hx + 3) + '" y="' + (TOP + tlanes.length * LH + 16) + '" fill="var(--sem)" font-size="10">' + esc('head ends: ' + F.head_end + (F.waits.length ? ' (waits for frame N)' : '')) + '</text></g>');
    }
    s.push('</svg>');
    var h = '<div class="legend"><span><i style="background:var(--raster)"></i>frame N</span><span><i style="background:var(--raster);opacity:.6;background-image:repeating-linear-gradient(45deg,#fff 0 2px,transparent 2px 5px)"></i>frame N+1 (hatched)</span>' +
      '<span><i style="border:2px solid #b34a00"></i>tail of frame N</span><span><i style="border:2px solid #1f5f9a"></i>head of frame N+1</span>' +
      '<span><i style="background:var(--sem)"></i>cross-frame wait</span><span><i style="border-left:2px dashed #8a6d3b"></i>frame N+1 starts on graphics</span></div>';
    h += '<div class="tf">' + s.join('') + '</div>';
    h += '<p>Frame N\u2019s tail (' + esc(F.tail.join(', ')) + ') may run on the async compute queue while frame N+1\u2019s head (' + (F.head.length ? esc(F.head.join(', ')) : 'nothing') + ') runs on graphics' +
      (F.head_end ? '; the head ends at <b>' + brk(F.head_end) + '</b>' : '') + '.</p>';
    h += dl([['extra memory', bytes(F.extra_bytes) + ' (' + int(F.extra_bytes) + ' B)'], ['budget', bytes(F.budget_bytes) + ' \u00b7 ' + pct(F.budget_percent) + ' used'],
      ['doubled', plural(F.doubled.length, 'resource', 'resources')], ['placed apart', plural(F.replaced.length, 'resource', 'resources')], ['cross-frame waits', F.waits.length]], 'kv');
    if (F.waits.length) h += '<h3>cross-frame waits</h3><table><tr><th>frame N+1 pass waits</th><th>for frame N pass</th><th>resources</th><th>why</th></tr>' + F.waits.map(function (wt) {
      return '<tr><td>' + brk(wt.wait) + ' <span class="muted">' + queueName(wt.wait_queue) + '</span></td><td>' + brk(wt.signal) + ' <span class="muted">' + queueName(wt.signal_queue) + '</span></td><td>' + esc(wt.resources.join(', ')) + '</td><td>' + esc(wt.reason) + '</td></tr>';
    }).join('') + '</table>';
    if (F.doubled.length) h += '<h3>doubled (one per frame parity)</h3><table><tr><th>resource</th><th class="num">second copy</th><th>tail pass</th><th>head pass</th></tr>' + F.doubled.map(function (d) {
      return '<tr><td>' + brk(d.resource) + '</td><td class="num">' + bytes(d.bytes) + '</td><td>' + brk(d.tail_pass) + '</td><td>' + brk(d.head_pass) + '</td></tr>';
    }).join('') + '</table>';
    if (F.replaced.length) h += '<h3>placed apart</h3><table><tr><th>resource</th><th class="num">own block</th><th>shared memory with</th></tr>' + F.replaced.map(function (r) {
      return '<tr><td>' + brk(r.resource) + '</td><td class="num">' + bytes(r.bytes) + '</td><td>' + brk(r.aliased_with) + '</td></tr>';
    }).join('') + '</table>';
    $('overlap').innerHTML = h;
  }

  // ---- details panel ------------------------------------------------------------------
  var pinned = null, suppressClick = false, marked = [];
  function dl(rows, cls) {
    return '<dl' + (cls ? ' class="' + cls + '"' : '') + '>' + rows.map(function (r) { return '<dt>' + r[0] + '</dt><dd>' + r[1] + '</dd>'; }).join('') + '</dl>';
  }
  function barrierHtml(b) {
    var s = '<div class="barrier"><b>' + brk(b.resource) + '</b><br>' + flags(b.src_stage) + ' / ' + flags(b.src_access) +
      ' \u2192 ' + flags(b.dst_stage) + ' / ' + flags(b.dst_access);
    if (b.old_layout && b.new_layout) s += '<br>layout ' + esc(b.old_layout) + ' \u2192 ' + esc(b.new_layout);
    if (b.queue_transfer) s += '<br>' + esc(b.queue_transfer.half) + ' ' + esc(b.queue_transfer.src_queue) + ' \u2192 ' + esc(b.queue_transfer.dst_queue);
    return s + '</div>';
  }
  // A depth/stencil resolve's mode (a colour resolve averages and has none).
  function resolveMode(a) {
    return a.resolve_mode ? ' (' + esc(a.resolve_mode) + ')' : '';
  }
  function attachmentRow(a) {
    return '<tr><td>' + brk(a.resource) + (a.memoryless ? ' <span class="tag ml">memoryless</span>' : '') +
      (a.resolve_target ? ' \u2192 ' + esc(a.resolve_target) + resolveMode(a) : '') + '</td><td class="' + opClass(a.load_op) + '">' + a.load_op.toUpperCase() +
      '</td><td class="' + opClass(a.store_op) + '">' + a.store_op.toUpperCase() + '</td><td class="num">' + bytes(a.load_bytes + a.store_bytes) + '</td></tr>';
  }
  function passDetails(p) {
    var rows = [['position', p.position], ['kind', p.kind], ['queue', queueName(p.queue)], ['level', p.level]];
    if (p.render_pass !== null) rows.push(['render pass', 'RP ' + p.render_pass + ', subpass ' + p.subpass]);
    var h = '<h3>' + brk(p.name) + (added[p.name] ? ' <span class="tag add">new</span>' : '') + '</h3>' + dl(rows);
    h += '<b>uses</b><ul>' + p.uses.map(function (u) {
      return '<li>' + brk(u.resource) + ': ' + esc(u.access) + (u.clear ? ' (clear)' : '') + '</li>';
    }).join('') + '</ul>';
    p.waits.forEach(function (k) { var y = P.syncs[k]; h += '<div>waits for <b>' + esc(y.signal) + '</b> (' + queueName(y.signal_queue) + ' value ' + y.value + '): ' + esc(y.resources.join(', ')) + '</div>'; });
    p.signals.forEach(function (k) { var y = P.syncs[k]; h += '<div>signals ' + queueName(y.signal_queue) + ' value ' + y.value + ' for <b>' + esc(y.wait) + '</b></div>'; });
    h += '<b>barriers before (' + p.barriers_before.length + ')</b>' + p.barriers_before.map(barrierHtml).join('');
    if (p.barriers_after.length) h += '<b>barriers after (' + p.barriers_after.length + ')</b>' + p.barriers_after.map(barrierHtml).join('');
    return h;
  }
  function historyTag(r) {
    if (r.persistent !== undefined) return r.persistent ? ' \u00b7 persistent, valid' : ' \u00b7 persistent, stale: written this frame';
    if (!r.history) return '';
    return r.history.physical ? ' \u00b7 history, physical ' + r.history.physical : ' \u00b7 history, single';
  }
  function historyText(r) {
    var h = r.history;
    if (!h.physical) return 'single-buffered: one physical resource, read then overwritten';
    return 'double-buffered, swapped each frame: physical ' + h.physical + ' (' + (h.physical === 'A' ? "this frame's content" : "the previous frame's content") + '), twin ' + h.twin;
  }
  function historyDetails(h) {
    var rows = [['buffering', esc(h.buffering)], ['physical', esc(h.previous ? 'A: ' + h.resource + ', B: ' + h.previous + ' (swapped each frame)' : 'one resource')],
      ['size', bytes(h.bytes)], ['written last by', h.last_writer ? brk(h.last_writer) : '\u2014'], ['read next frame by', h.first_reader ? brk(h.first_reader) : '\u2014']];
    return '<h3>history ' + brk(h.resource) + '</h3>' + dl(rows) + '<b>why</b><p>' + esc(h.reason) + '</p>';
  }
  function historySection() {
    if (!P.history.length) return;
    $('history-section').hidden = false;
    $('history').innerHTML = '<table><tr><th>resource</th><th>buffering</th><th>physical resources</th><th class="num">size</th><th>last writer \u2192 first reader (next frame)</th><th>why</th></tr>' +
      P.history.map(function (h, i) {
        return '<tr class="click" data-k="h:' + i + '"><td>' + brk(h.resource) + '</td><td><span class="tag hist">' + esc(h.buffering) + '</span></td><td>' +
          (h.previous ? 'A ' + brk(h.resource) + ' + B ' + brk(h.previous) + ', swapped each frame' : 'one') + '</td><td class="num">' + bytes(h.bytes) + '</td><td>' +
          (h.last_writer ? brk(h.last_writer) : '\u2014') + ' \u2192 ' + (h.first_reader ? brk(h.first_reader) : '\u2014') + '</td><td>' + esc(h.reason) + '</td></tr>';
      }).join('') + '</table>';
  }
  function resourceDetails(r) {
    var rows = [['kind', r.kind], ['shape', esc(r.shape)], ['size', bytes(r.bytes) + ' (' + int(r.bytes) + ' B)'],
      ['lifetime', 'passes ' + r.first + '\u2013' + r.last]];
    var fl = [];
    if (r.imported) fl.push('imported'); if (r.output) fl.push('output'); if (r.memoryless) fl.push('memoryless');
    if (fl.length) rows.push(['flags', fl.join(', ')]);
    if (r.history) rows.push(['history', esc(historyText(r))]);
    if (r.placement) rows.push(['placement', 'block ' + r.placement.block + ' @ ' + bytes(r.placement.offset) + ', ' + P.lifetime_unit + ' ' + r.placement.first + '\u2013' + r.placement.last]);
    var h = '<h3>' + brk(r.name) + '</h3>' + dl(rows) + '<b>uses</b><ul>' + r.uses.map(function (u) {
      return '<li>' + brk(P.passes[u[0]].name) + ': ' + esc(u[1]) + '</li>';
    }).join('') + '</ul>';
    var att = [];
    P.render_passes.forEach(function (rp) { rp.attachments.forEach(function (a) { if (a.resource === r.name) att.push([rp, a]); }); });
    if (att.length) h += '<b>attachments</b><table><tr><th>RP</th><th>load</th><th>store</th><th class="num">DRAM</th></tr>' + att.map(function (x) {
      return attachmentRow(x[1]).replace('<tr><td>', '<tr><td>RP ' + x[0].index + ' ');
    }).join('') + '</table>';
    return h;
  }
  function breakDetails(b) {
    var h = '<h3>break ' + brk(b.after) + ' | ' + brk(b.before) + '</h3><b>why</b><ul class="reasons">' +
      b.reasons.map(function (r) { return '<li>' + esc(r) + '</li>'; }).join('') + '</ul>';
    h += dl([['cost', bytes(b.cost_bytes) + '/frame (' + rate(b.cost_bytes) + ')']]);
    if (b.handovers.length) h += '<b>handed over through DRAM</b><ul>' + b.handovers.map(function (x) {
      return '<li>' + esc(x.resource) + ': store ' + bytes(x.store_bytes) + (x.load_bytes ? ', load ' + bytes(x.load_bytes) : '') + '</li>';
    }).join('') + '</ul>';
    return h;
  }
  function rpDetails(rp) {
    return '<h3>render pass ' + rp.index + '</h3>' + dl([['subpasses', rp.subpasses.map(function (n, i) { return i + ' ' + brk(n); }).join('<br>')],
      ['DRAM', bytes(rp.dram_bytes) + '/frame'], ['dependencies', rp.dependencies.length]]) +
      '<table><tr><th>attachment</th><th>load</th><th>store</th><th class="num">DRAM</th></tr>' + rp.attachments.map(attachmentRow).join('') + '</table>';
  }
  function syncDetails(y) {
    return '<h3>semaphore ' + brk(y.signal) + ' \u2192 ' + brk(y.wait) + '</h3>' + dl([['signal', esc(y.signal) + ' on ' + queueName(y.signal_queue)],
      ['wait', esc(y.wait) + ' on ' + queueName(y.wait_queue)], ['value', y.value], ['covers', esc(y.resources.join(', '))]]);
  }
  function culledDetails(c) {
    return '<h3>' + brk(c.name) + ' <span class="tag">' + (c.skipped ? 'skipped (outputs still valid)' : 'culled') + '</span></h3>' + dl([['kind', c.kind], ['queue', queueName(c.queue)], ['why', esc(c.reason)]]);
  }
  // Whether `k` names an item of the page (a details key: `p:3`, `rp:0`, ...).
  function known(k) {
    var m = /^(p|r|b|rp|s|c|h):(\d+)$/.exec(k || ''), lists = { p: P.passes, r: P.resources, b: P.breaks, rp: P.render_passes, s: P.syncs, c: P.culled, h: P.history };
    return !!m && +m[2] < lists[m[1]].length;
  }
  function setHash(k) {
    try { history.replaceState(null, '', k ? '#' + k : location.pathname + location.search); } catch (e) { /* file: pages may refuse */ }
  }
  function detailsOf(k) {
    var parts = k.split(':'), i = +parts[1];
    switch (parts[0]) {
      case 'p': return passDetails(P.passes[i]);
      case 'r': return resourceDetails(P.resources[i]);
      case 'b': return breakDetails(P.breaks[i]);
      case 'rp': return rpDetails(P.render_passes[i]);
      case 's': return syncDetails(P.syncs[i]);
      case 'c': return culledDetails(P.culled[i]);
      case 'h': return historyDetails(P.history[i]);
    }
    return '';
  }
  function mark(k) {
    markedKey = k;
    marked.forEach(function (el) { el.classList.remove('hl'); });
    marked = [];
    var parts = k.split(':'), i = +parts[1], ids = [];
    if (parts[0] === 'p') {
      ids.push('pb' + i);
      P.passes[i].uses.forEach(function (u) { var r = resByName[u.resource]; if (r) ids.push('rb' + r.idx); });
    } else if (parts[0] === 'r') {
      ids.push('rb' + i);
      P.resources[i].uses.forEach(function (u) { ids.push('pb' + u[0]); });
    }
    ids.forEach(function (id) { var el = document.getElementById(id); if (el) { el.classList.add('hl'); marked.push(el); } });
  }
  function show(k, pin) {
    if (!k) return;
    if (pinned && !pin) return;
    $('details').innerHTML = (pin ? '<div class="pin">pinned \u00b7 click it again or press Esc to unpin</div>' : '') + detailsOf(k);
    mark(k);
  }
  function keyOf(el) {
    while (el && el !== document.body) {
      if (el.getAttribute && el.getAttribute('data-k')) return el.getAttribute('data-k');
      el = el.parentNode;
    }
    return null;
  }
  function wirePanel() {
    document.addEventListener('mouseover', function (e) { var k = keyOf(e.target); if (k) show(k, false); });
    document.addEventListener('click', function (e) {
      if (suppressClick) return;
      var k = keyOf(e.target);
      if (!k) return;
      if (pinned === k) { pinned = null; setHash(null); show(k, false); return; }
      pinned = k;
      setHash(k);
      show(k, true);
    });
    document.addEventListener('keydown', function (e) { if (e.key === 'Escape') { pinned = null; setHash(null); } });
  }

  // ---- tables -------------------------------------------------------------------------
  // Long lists are built when first opened, so a 1,000-pass page lays out quickly.
  var LAZY = 40, lazyBuilders = [];
  function lazy(summary, count, build) {
    if (count <= LAZY) return build();
    lazyBuilders.push(build);
    return '<details class="lazy" data-lazy="' + (lazyBuilders.length - 1) + '"><summary>' + summary + ' (' + count + ', built when opened)</summary></details>';
  }
  document.addEventListener('toggle', function (e) {
    var d = e.target, k = d.getAttribute && d.getAttribute('data-lazy');
    if (!d.open || k === null || d.getAttribute('data-built')) return;
    d.setAttribute('data-built', '1');
    d.insertAdjacentHTML('beforeend', lazyBuilders[+k]());
  }, true);
  function rpTable(rp) {
    return '<div class="tw"><table><tr><th>attachment</th><th>load</th><th>store</th><th>memoryless</th><th class="num">samples</th><th>resolve \u2192</th><th>layouts</th><th class="num">bytes per op</th><th class="num">DRAM/frame</th><th class="num">at 60 fps</th></tr>' +
      rp.attachments.map(function (a) {
        var r = resByName[a.resource];
        return '<tr class="click"' + (r ? ' data-k="r:' + r.idx + '"' : '') + '><td>' + brk(a.resource) + '</td><td class="' + opClass(a.load_op) + '">' + a.load_op.toUpperCase() +
          '</td><td class="' + opClass(a.store_op) + '">' + a.store_op.toUpperCase() + '</td><td>' + (a.memoryless ? '<span class="tag ml">yes</span>' : 'no') +
          '</td><td class="num">' + a.samples + '</td><td>' + (a.resolve_target ? esc(a.resolve_target) + resolveMode(a) : '') + '</td><td class="lay">' + esc(a.initial_layout) + ' \u2192 ' + esc(a.final_layout) +
          '</td><td class="num">' + bytes(a.op_bytes) + '</td><td class="num">' + bytes(a.load_bytes + a.store_bytes) + '</td><td class="num">' + rate(a.load_bytes + a.store_bytes) + '</td></tr>';
      }).join('') + '</table></div>';
  }
  // Many render passes: each table is built when its entry is opened.
  function renderPasses() {
    if (!P.render_passes.length) { $('rps').innerHTML = '<p class="muted">No raster passes.</p>'; return; }
    var open = P.render_passes.length <= 12;
    $('rps').innerHTML = lazy('render passes', P.render_passes.length, function () {
      return P.render_passes.map(function (rp) {
        var subs = rp.subpasses.map(function (n, i) { return '<span><span class="tag">' + i + '</span>' + brk(n) + '</span>'; }).join(' \u2192 ');
        return '<details class="rp" data-rp="' + rp.index + '"' + (open ? ' open' : '') + '><summary data-k="rp:' + rp.index + '"><b>RP ' + rp.index + '</b> \u00b7 ' +
          plural(rp.subpasses.length, 'subpass', 'subpasses') + ' \u00b7 ' + plural(rp.attachments.length, 'attachment', 'attachments') + ' \u00b7 DRAM ' + bytes(rp.dram_bytes) + '/frame</summary>' +
          '<div class="subpasses">' + subs + '</div><div class="rp-body">' + (open ? rpTable(rp) : '') + '</div></details>';
      }).join('');
    });
    $('rps').addEventListener('toggle', function (e) {
      var d = e.target;
      if (!d.open || !d.getAttribute('data-rp')) return;
      var body = d.querySelector('.rp-body');
      if (!body.innerHTML) body.innerHTML = rpTable(P.render_passes[+d.getAttribute('data-rp')]);
    }, true);
  }
  function breaks() {
    if (!P.breaks.length) { $('breaks').innerHTML = '<p class="muted">No breaks: adjacent raster passes all share render passes.</p>'; return; }
    $('breaks').innerHTML = '<p>' + plural(P.breaks.length, 'break hands ', 'breaks hand ') + bytes(T.break_bytes) + ' per frame (' + rate(T.break_bytes) + ') through DRAM.</p>' + lazy('breaks', P.breaks.length, function () { return '<table class="fixed"><colgroup><col style="width:15%"><col style="width:15%"><col style="width:42%"><col style="width:17%"><col style="width:11%"></colgroup><tr><th>after</th><th>before</th><th>why</th><th>handed over through DRAM</th><th class="num">cost/frame</th></tr>' +
      P.breaks.map(function (b, i) {
        return '<tr class="click" data-k="b:' + i + '"><td>' + brk(b.after) + '</td><td>' + brk(b.before) + '</td><td><ul class="reasons">' +
          b.reasons.map(function (r) { return '<li>' + esc(r) + '</li>'; }).join('') + '</ul></td><td>' +
          b.handovers.map(function (x) { return brk(x.resource) + ' (' + bytes(x.store_bytes + x.load_bytes) + ')'; }).join(', ') +
          '</td><td class="num">' + bytes(b.cost_bytes) + '</td></tr>';
      }).join('') + '<tr><th colspan="4">total</th><th class="num">' + bytes(T.break_bytes) + '</th></tr></table>'; });
  }
  function hue(name) {
    var h = 0;
    for (var i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) % 360;
    return h;
  }
  function memory() {
    var h = '<p>' + plural(P.blocks.length, 'block', 'blocks') + ' \u00b7 aliased ' + bytes(T.aliased_bytes) + ' of ' + bytes(T.unaliased_bytes) +
      ' unaliased (lower bound ' + bytes(T.lower_bound_bytes) + ', memoryless ' + bytes(T.memoryless_bytes) + '). x = lifetime in ' +
      (P.lifetime_unit === 'level' ? 'dependency levels' : 'execution positions') + ', y = offset: placements side by side on one band share bytes.</p>';
    P.blocks.forEach(function (b) {
      var MW = 900, L = 70, R = 10, TOP = 8, BOT = 22;
      var PH = Math.max(90, Math.min(320, 24 * b.placements.length));
      var cw = (MW - L - R) / Math.max(1, b.span);
      var sy = PH / Math.max(1, b.size);
      var s = ['<svg viewBox="0 0 ' + MW + ' ' + (PH + TOP + BOT) + '" font-size="10" xmlns="http://www.w3.org/2000/svg">'];
      s.push('<rect x="' + L + '" y="' + TOP + '" width="' + (MW - L - R) + '" height="' + PH + '" fill="#fafbfc" stroke="#ccd"/>');
      [0, 0.5, 1].forEach(function (f) {
        var y = TOP + f * PH;
        s.push('<text x="' + (L - 4) + '" y="' + (y + 3) + '" text-anchor="end" fill="#789">' + bytes(f * b.size) + '</text>');
      });
      var step = Math.max(1, Math.ceil(b.span / 30));
      for (var t = 0; t < b.span; t += step) s.push('<text x="' + (L + (t + 0.5) * cw) + '" y="' + (TOP + PH + 14) + '" text-anchor="middle" fill="#789">' + t + '</text>');
      b.placements.forEach(function (p) {
        var r = resByName[p.resource];
        var x0 = L + p.first * cw + 1, w = (p.last - p.first + 1) * cw - 2, y0 = TOP + p.offset * sy, hh = Math.max(1.5, p.size * sy - 1);
        s.push('<g class="hit"' + (r ? ' data-k="r:' + r.idx + '"' : '') + '><rect x="' + x0 + '" y="' + y0 + '" width="' + Math.max(1, w) + '" height="' + hh +
          '" fill="hsl(' + hue(p.resource) + ',55%,72%)" stroke="hsl(' + hue(p.resource) + ',45%,40%)" stroke-width="0.8"><title>' + esc(p.resource + ': ' + bytes(p.size) + ' @ ' + bytes(p.offset) + ', ' + p.first + '\u2013' + p.last) + '</title></rect>');
        var ml = p.resource + ' ' + bytes(p.size);
        ml = textWidth(ml, 10) <= w - 8 ? ml : elide(p.resource, w - 8, 10);
        if (ml && hh > 11) s.push('<text x="' + (x0 + 4) + '" y="' + (y0 + Math.min(hh / 2 + 4, 13)) + '" fill="#123">' + esc(ml) + '</text>');
        s.push('</g>');
      });
      s.push('</svg>');
      h += '<div class="memmap"><b>block ' + b.index + '</b> <span class="muted">class ' + b['class'] + ' \u00b7 ' + bytes(b.size) + ' \u00b7 ' + plural(b.placements.length, 'resource', 'resources') + '</span>' + s.join('') + '</div>';
    });
    $('memory').innerHTML = h;
  }
  function sync() {
    var h = dl([['waits before minimisation', T.waits_before], ['removed as implied', T.waits_removed], ['kept (semaphores)', T.waits_after]], 'kv');
    if (P.syncs.length) h += lazy('semaphores', P.syncs.length, function () { return '<table><tr><th>signal</th><th>wait</th><th class="num">value</th><th>resources</th></tr>' + P.syncs.map(function (y, i) {
      return '<tr class="click" data-k="s:' + i + '"><td>' + esc(y.signal) + ' <span class="muted">' + queueName(y.signal_queue) + '</span></td><td>' + esc(y.wait) +
        ' <span class="muted">' + queueName(y.wait_queue) + '</span></td><td class="num">' + y.value + '</td><td>' + esc(y.resources.join(', ')) + '</td></tr>';
    }).join('') + '</table>'; });
    if (P.batches.length) {
      h += '<h3>submissions</h3>' + lazy('submissions', P.batches.length, function () { return '<table><tr><th>graphics</th><th>async compute</th></tr>' + P.batches.map(function (b) {
        var cell = b.waits.map(function (w) { return '<span class="tag">wait ' + (w.queue === 'async_compute' ? 'a' : 'g') + w.value + '</span>'; }).join('') +
          esc(b.passes.length > 8 ? b.passes.slice(0, 4).join(', ') + ', \u2026 (' + b.passes.length + ' passes) \u2026, ' + b.passes[b.passes.length - 1] : b.passes.join(', ')) +
          (b.signal !== null ? ' <span class="tag">signal ' + (b.queue === 'async_compute' ? 'a' : 'g') + b.signal + '</span>' : '');
        return b.queue === 'async_compute' ? '<tr><td></td><td>' + cell + '</td></tr>' : '<tr><td>' + cell + '</td><td></td></tr>';
      }).join('') + '</table>'; });
    }
    if (P.sharing.length) h += '<h3>sharing across queues</h3><table><tr><th>resource</th><th>mode</th><th>why</th></tr>' + P.sharing.map(function (s) {
      return '<tr><td>' + esc(s.resource) + '</td><td>' + esc(s.mode) + '</td><td>' + esc(s.reason) + '</td></tr>';
    }).join('') + '</table>';
    $('sync').innerHTML = h;
  }
  function culled() {
    $('culled').innerHTML = P.culled.length ? '<table><tr><th>pass</th><th>kind</th><th>why</th></tr>' + P.culled.map(function (c, i) {
      return '<tr class="click muted" data-k="c:' + i + '"><td>' + brk(c.name) + (c.skipped ? ' <span class="tag skipped">skipped (outputs still valid)</span>' : '') + '</td><td>' + esc(c.kind) + '</td><td>' + esc(c.reason) + '</td></tr>';
    }).join('') + '</table>' : '<p class="muted">Nothing culled.</p>';
  }
  function passes() {
    $('passes').innerHTML = '<p>' + plural(P.passes.length, 'pass', 'passes') + ', ' + plural(T.barriers, 'barrier', 'barriers') + '; click a row for its barriers.</p>' + lazy('passes', P.passes.length, function () { return '<table><tr><th class="num">#</th><th>pass</th><th>kind</th><th>queue</th><th class="num">level</th><th>render pass</th><th class="num">barriers</th><th>waits for</th></tr>' +
      P.passes.map(function (p, i) {
        return '<tr class="click" data-k="p:' + i + '"><td class="num">' + i + '</td><td>' + brk(p.name) + (added[p.name] ? ' <span class="tag add">new</span>' : '') + '</td><td>' + p.kind + '</td><td>' + queueName(p.queue) +
          '</td><td class="num">' + p.level + '</td><td>' + (p.render_pass !== null ? 'RP ' + p.render_pass + ' \u00b7 ' + p.subpass : '') + '</td><td class="num">' +
          p.barriers_before.length + (p.barriers_after.length ? ' + ' + p.barriers_after.length + ' after' : '') + '</td><td>' +
          esc(p.waits.map(function (k) { return P.syncs[k].signal; }).join(', ')) + '</td></tr>';
      }).join('') + '</table>'; });
  }
  function diff() {
    if (!DATA.diff) return;
    var d = DATA.diff.diff;
    $('diff-section').hidden = false;
    $('diff-title').textContent = 'Changes against ' + DATA.diff.against;
    var h = '<p>' + [
      ['passes added', d.passes_added.length], ['removed', d.passes_removed.length], ['merged pairs', d.merged.length], ['split pairs', d.split.length],
      ['attachment changes', d.attachments.length], ['placement changes', d.placements.length], ['history changes', d.history.length],
      ['barriers', d.barrier_count[0] + ' \u2192 ' + d.barrier_count[1] + ' (+' + d.barriers_added.length + ' \u2212' + d.barriers_removed.length + ')']
    ].map(function (x) { return '<span class="tag">' + x[0] + ': ' + x[1] + '</span>'; }).join(' ') + '</p>';
    if (d.figures.length) h += '<table><tr><th>figure</th><th class="num">before</th><th class="num">after</th><th class="num">change</th></tr>' + d.figures.map(function (f) {
      var delta = f.new - f.old;
      return '<tr><td>' + esc(f.what) + '</td><td class="num">' + int(f.old) + '</td><td class="num">' + int(f.new) + '</td><td class="num">' + (delta > 0 ? '+' : '') + int(delta) + '</td></tr>';
    }).join('') + '</table>';
    h += '<details><summary>full list</summary><pre>' + esc(DATA.diff.text) + '</pre></details>';
    $('diff').innerHTML = h;
  }

  totals();
  diff();
  timeline();
  wireZoom();
  twoFrames();
  wirePanel();
  renderPasses();
  breaks();
  memory();
  historySection();
  sync();
  culled();
  passes();
  // A link to `page.html#rp:2` (any details key) opens with that item pinned.
  var start = decodeURIComponent(location.hash.slice(1));
  if (known(start)) { pinned = start; show(start, true); } else if (P.passes.length) show('p:0', false);
  document.documentElement.setAttribute('data-viewer-ms', (performance.now() - T0).toFixed(1));
  document.documentElement.setAttribute('data-viewer-load-ms', performance.now().toFixed(1));
  document.documentElement.setAttribute('data-viewer', 'ok');
})();
