// The inspector page's inline assets: its stylesheet, its only script, and that script's CSP hash.
import { createHash } from "node:crypto";

export const STYLE = `
:root{--text:#1f2328;--muted:#656d76;--line:#d0d7de;--soft:#f6f8fa;--accent:#0969da;--summary:#8250df;--hidden:#9a6700;--removed:#cf222e;--ok:#1a7f37}
*{box-sizing:border-box}
body{margin:0;background:#fff;color:var(--text);font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
.page-header,main{max-width:1200px;margin:0 auto;padding:0 20px}
.page-header{padding-top:20px;padding-bottom:8px}
h1{font-size:22px;margin:0 0 4px;overflow-wrap:anywhere}
h2{font-size:17px;margin:28px 0 8px}
code,pre{font-family:ui-monospace,SFMono-Regular,"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:12.5px}
.meta,.hint,.muted{color:var(--muted)}
.hint{margin:0 0 10px}
a{color:var(--accent);text-decoration:none}
a:hover{text-decoration:underline}
.totals{display:grid;grid-template-columns:repeat(auto-fill,minmax(150px,1fr));gap:8px;margin-top:14px}
.total{border:1px solid var(--line);border-radius:6px;padding:6px 12px;background:var(--soft)}
.total .figure{display:block;font-size:18px;font-weight:600;font-variant-numeric:tabular-nums}
.total .label{color:var(--muted);font-size:12.5px}
.total.bad .figure{color:var(--removed)}
.warnings{border:1px solid #d4a72c;background:#fff8c5;border-radius:6px;padding:4px 16px;margin-top:20px}
.warnings h2{margin-top:8px}
.table-wrap{overflow-x:auto;border:1px solid var(--line);border-radius:6px}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}
th,td{text-align:left;padding:5px 10px;border-bottom:1px solid var(--line);vertical-align:top}
th{font-weight:600;background:var(--soft);white-space:nowrap}
td.num,th.num{text-align:right;white-space:nowrap}
td.time{white-space:nowrap;color:var(--muted)}
td.reason{min-width:260px;max-width:460px}
.status{display:inline-block;padding:0 6px;border-radius:10px;font-size:12px;border:1px solid var(--line);background:#fff}
.status-summarized,.status-compacted{color:var(--summary);border-color:#c8b3f5}
.status-truncated{color:var(--removed);border-color:#ffb3b8}
.status-failed{color:#fff;background:var(--removed);border-color:var(--removed)}
.status-noop{color:var(--muted)}
.status-repaired{color:var(--hidden);border-color:#e5c07b}
svg{display:block;width:100%;height:auto;border:1px solid var(--line);border-radius:6px;background:#fff}
svg .grid{stroke:#eaeef2;stroke-width:1}
svg .axis,svg .axis-title{fill:var(--muted);font-size:11px}
svg .tokens{fill:none;stroke:var(--accent);stroke-width:1.5;stroke-linejoin:round}
svg .chart-marker line{stroke:var(--summary);stroke-width:1;stroke-dasharray:3 3}
svg .chart-marker.status-failed line{stroke:var(--removed)}
svg .chart-marker:hover line{stroke-width:2.5;stroke-dasharray:none}
svg .chart-recall path{fill:var(--summary);opacity:.8}
svg .chart-recall:hover path{opacity:1}
svg .marker-label{fill:var(--summary);font-size:11px;font-weight:600}
svg .limit line{stroke-width:1.5;stroke-dasharray:8 4}
svg .limit text{font-size:11px;font-weight:600}
svg .limit-window line{stroke:var(--removed)}
svg .limit-window text{fill:var(--removed)}
svg .limit-trigger line{stroke:var(--hidden)}
svg .limit-trigger text{fill:var(--hidden)}
svg .peak circle{fill:#fff;stroke:var(--ok);stroke-width:2.5}
svg .peak text{fill:var(--ok);font-size:12px;font-weight:700}
.timeline{display:flex;flex-direction:column;gap:6px;padding-bottom:40px}
.node{border:1px solid var(--line);border-left-width:4px;border-radius:6px;background:#fff;padding:6px 12px;min-width:0}
#timeline>.node{content-visibility:auto;contain-intrinsic-size:auto 90px}
.head{display:flex;flex-wrap:wrap;align-items:baseline;gap:4px 10px}
.head .spacer{flex:1}
.head .type{font-weight:600}
.head .id{font-size:11.5px}
.tool-name{font-family:ui-monospace,SFMono-Regular,"DejaVu Sans Mono",Menlo,monospace;font-size:12.5px;background:var(--soft);border-radius:4px;padding:0 4px}
.type-human{border-left-color:#1a7f37}
.type-ai{border-left-color:var(--accent)}
.type-tool{border-left-color:#8c959f}
.type-system{border-left-color:#24292f}
.kind-summary{border-left-color:var(--summary);background:#fbf8ff}
.kind-summary>.head .type::after{content:" · summary";color:var(--summary)}
.kind-hidden{border-left-color:var(--hidden);background:#fffbf0}
.kind-replacement{border-left-color:var(--hidden)}
.note{color:var(--muted)}
pre{margin:6px 0 2px;white-space:pre-wrap;overflow-wrap:anywhere;max-height:24em;overflow:auto}
pre.text{background:var(--soft);border-radius:4px;padding:6px 8px}
.nested .kind-summary>pre.text{max-height:12em}
.calls{list-style:none;margin:4px 0 0;padding:0}
.calls li{margin:4px 0}
.call-label{color:var(--muted);font-size:12.5px}
pre.args{margin:2px 0 0;padding:4px 8px;border-left:2px solid var(--line);max-height:12em}
details.archived{margin:6px 0 2px}
details.archived>summary{cursor:pointer;color:var(--accent);user-select:none;padding:2px 0}
details.archived[open]>summary{margin-bottom:4px}
.nested{display:flex;flex-direction:column;gap:6px;padding-left:14px;border-left:2px dashed var(--line)}
.marker-n{font-weight:700;color:var(--summary)}
.compaction{border-color:#c8b3f5;border-left-color:var(--summary);background:#faf7ff;scroll-margin-top:12px}
.compaction.failed{border-color:#ffb3b8;border-left-color:var(--removed);background:#fff5f5}
.compaction .explain{margin:4px 0 2px}
.compaction .time{color:var(--muted)}
.recall-note{color:var(--ok)}
.recalled-by{margin:4px 0 2px;color:var(--muted)}
.context-heading{margin-top:14px;display:flex;align-items:baseline;gap:10px}
.context-heading h3{font-size:15px;margin:0}
.flash{outline:3px solid #ffd33d;outline-offset:2px}
.empty{color:var(--muted);font-style:italic}
`.trim();

/**
 * The page's only script. Following a link to an element inside a collapsed region opens the
 * regions around it first (browsers do not, for element links), then scrolls to it and flashes it.
 */
export const SCRIPT = `
(function () {
  function reveal(id) {
    var target = document.getElementById(id);
    if (!target) return false;
    for (var parent = target.parentElement; parent; parent = parent.parentElement) {
      if (parent.tagName === "DETAILS") parent.open = true;
    }
    target.scrollIntoView({ block: "start" });
    var flashed = document.querySelector(".flash");
    if (flashed) flashed.classList.remove("flash");
    target.classList.add("flash");
    return true;
  }
  document.addEventListener("click", function (event) {
    var link = event.target instanceof Element ? event.target.closest("a") : null;
    var href = link && link.getAttribute("href");
    if (!href || href.charAt(0) !== "#") return;
    if (reveal(decodeURIComponent(href.slice(1)))) {
      event.preventDefault();
      history.replaceState(null, "", href);
    }
  });
  if (location.hash) reveal(decodeURIComponent(location.hash.slice(1)));
})();
`.trim();

/** The Content-Security-Policy source of the page's script: this script runs, no other inline one would. */
export const SCRIPT_HASH = `sha256-${createHash("sha256").update(SCRIPT).digest("base64")}`;
