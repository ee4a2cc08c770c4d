// The stylesheet of index.html, inlined by html.ts. Verdict colours follow the usual CI reading
// (green pass, red fail); observed is blue because it is information, not a problem.
// A line ending in a backslash continues on the next (a template literal's line continuation adds
// no character), so long runs of rules are split over lines and the stylesheet's text stays the same.
export const REPORT_CSS = `
:root{--pass:#1a7f37;--fail:#cf222e;--observed:#0969da;--skipped:#6e7781;--error:#bc4c00;--line:#d0d7de;--muted:#57606a;--bg2:#f6f8fa}
*{box-sizing:border-box}
[hidden]{display:none!important}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328;background:#fff;overflow-wrap:break-word}
header,main,footer{max-width:1200px;margin:0 auto;padding:0 20px}
header{padding-top:16px;border-bottom:1px solid var(--line);padding-bottom:12px}
h1{font-size:22px;margin:0 0 8px;overflow-wrap:anywhere}\
h2{font-size:19px;margin:28px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}\
h3{font-size:16px;margin:18px 0 6px}
h4.std-heading{font-size:14px;margin:12px 0 4px;padding:3px 8px;background:#fbefff;border-left:4px solid #8250df}
h5{font-size:12px;margin:8px 0 2px;color:var(--muted);text-transform:uppercase;letter-spacing:.03em}
.meta,.src,.counts,.none,.more,.dur,.purpose{color:var(--muted)}
.src{font-size:12px;font-weight:normal}
.headline{display:flex;flex-wrap:wrap;align-items:center;gap:6px 16px;padding:10px 16px;border-radius:8px;color:#fff;margin:6px 0}
.headline .big{font-size:30px;font-weight:800;letter-spacing:.02em;white-space:nowrap}
.headline .why{font-size:15px;min-width:0;flex:1 1 18em}.headline a{color:#fff;font-weight:600}
.h-pass{background:var(--pass)}.h-fail{background:var(--fail)}.h-error{background:var(--error)}
ul.notes{margin:6px 0;padding:6px 10px 6px 28px;background:#fff8c5;border:1px solid #d4a72c;border-radius:6px}
.tallies{display:flex;flex-wrap:wrap;gap:4px 32px}.tally{flex:1 1 340px;min-width:0}
.tally h2{font-size:15px;margin:10px 0 0;border:0;padding:0}.tally p{margin:2px 0;color:var(--muted);font-size:12px}
ul.counts{list-style:none;display:flex;gap:8px;padding:0;margin:6px 0;flex-wrap:wrap}
ul.counts li{border:1px solid var(--line);border-radius:6px;padding:4px 10px;min-width:72px}
ul.counts b{font-size:20px;display:block}
dl.facts{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:2px 12px;margin:8px 0;font-size:13px}
dl.facts dt{color:var(--muted)}dl.facts dd{margin:0;overflow-wrap:anywhere}
.c-pass b{color:var(--pass)}.c-fail b{color:var(--fail)}.c-observed b{color:var(--observed)}.c-skipped b{color:var(--skipped)}.c-error b{color:var(--error)}
nav{margin-top:8px}
.verdict,.kind{display:inline-block;font-size:11px;font-weight:600;padding:1px 6px;border-radius:10px;color:#fff;text-transform:uppercase;vertical-align:1px}
.v-pass{background:var(--pass)}.v-fail{background:var(--fail)}.v-observed{background:var(--observed)}\
.v-skipped{background:var(--skipped)}.v-error{background:var(--error)}
.kind{background:#fff;border:1px solid var(--line);color:var(--muted)}.k-std{border-color:#8250df;color:#8250df}.k-observe{border-style:dashed}
.toolbar{margin:6px 0 10px;color:var(--muted)}
.toolbar button{font:inherit;font-size:12px;margin:0 2px;padding:2px 8px;border:1px solid var(--line);background:var(--bg2);border-radius:4px;cursor:pointer}
.toolbar button[aria-pressed=true]{background:#1f2328;border-color:#1f2328;color:#fff;font-weight:600}
details.rule{border:1px solid var(--line);border-radius:6px;margin:4px 0}
details.rule>summary,details.obs-rule>summary{display:flex;flex-wrap:wrap;align-items:baseline;gap:2px 8px;padding:5px 8px;cursor:pointer;list-style:none}
details.rule>summary::-webkit-details-marker,details.obs-rule>summary::-webkit-details-marker{display:none}
details.rule>summary::before,details.obs-rule>summary::before{content:"\\25B8";color:var(--muted)}
details.rule[open]>summary::before,details.obs-rule[open]>summary::before{content:"\\25BE"}
summary .title{flex:1 1 16em;min-width:0}
summary .counts{margin-left:auto;font-size:12px;white-space:nowrap}
details.obs-rule{border:1px solid var(--line);border-radius:6px;margin:4px 0}
details.obs-rule>*:not(summary){margin-left:10px;margin-right:10px}
details.rule[data-verdict=fail]{border-color:var(--fail);border-left-width:4px}
details.rule[data-verdict=error]{border-left:4px solid var(--error)}
details.rule[open]>summary{background:var(--bg2);border-bottom:1px solid var(--line)}
.rid{font-weight:600;font-family:ui-monospace,monospace;display:inline-block;min-width:72px}
.checks{padding:4px 10px 8px 18px}
.check{margin:3px 0}.check>summary{cursor:pointer}
.cid{font-size:12px;overflow-wrap:anywhere}.msg{overflow-wrap:anywhere}
.evidence{margin:4px 0 10px 18px;padding-left:10px;border-left:2px solid var(--line)}
.cols{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:10px}
mark{background:#fff3a3;color:inherit;outline:1px solid #d4a72c}
.path-key{text-transform:none;letter-spacing:0}
.scroll{overflow-x:auto;max-width:100%}
pre{background:var(--bg2);border:1px solid var(--line);border-radius:4px;padding:6px 8px;margin:2px 0;font-size:12px;\
white-space:pre-wrap;word-break:break-word;max-height:360px;overflow:auto}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace}
.exchange{margin:8px 0;padding-top:4px;border-top:1px dashed var(--line)}
.xline{font-size:12px;word-break:break-all}.method{font-weight:600}
ul.xlist{margin:4px 0;padding-left:18px;font-size:12px;word-break:break-all}
dl.obs{display:grid;grid-template-columns:minmax(0,max-content) minmax(0,1fr);gap:1px 10px;margin:2px 0;font-size:12px}
dl.obs dt{font-family:ui-monospace,monospace;color:var(--muted);overflow-wrap:anywhere}\
dl.obs dd{margin:0;font-family:ui-monospace,monospace;overflow-wrap:anywhere}
table{border-collapse:collapse;margin:6px 0;font-size:13px}
th,td{border:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top}
thead th{background:var(--bg2)}
.obs-table{width:100%}
table.params td.explain{color:var(--muted);font-size:12px;min-width:16em}
table.params th{font-weight:600;white-space:nowrap}
table.drift td{font-family:ui-monospace,monospace;font-size:12px}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,640px),1fr));gap:10px 24px}
figure.chart{margin:8px 0}figcaption{font-weight:600;font-size:13px;margin-bottom:2px}
.chart-svg{width:100%;height:auto;max-width:900px;display:block}
.chart-svg text{font-size:11px;fill:#57606a}
.grid{stroke:#eaeef2;stroke-width:1;fill:none}.axis{stroke:#57606a;fill:none}
.series.line{fill:none;stroke-width:1.6}.series.markers{stroke:none}
.series.line.predicted,.legend .series.line.predicted{stroke:#8250df;stroke-dasharray:5 3}
.series.markers.predicted{fill:none;stroke:#8250df;stroke-width:1.2}
.series.markers.observed{fill:#0969da}.series.line.observed{stroke:#0969da}
.bars.accepted{fill:#2da44e}.bars.limited{fill:#cf222e}.bars.other{fill:#bf8700}
.hline{fill:none;stroke-width:1.4;stroke-dasharray:6 4}.hline.cap{stroke:#cf222e}.hline.ref{stroke:#6e7781}
.hline-label{font-size:11px}
.empty{font-size:13px}
ul.legend{list-style:none;display:flex;gap:14px;padding:0;margin:2px 0;font-size:12px;flex-wrap:wrap}
ul.legend svg{vertical-align:middle;margin-right:4px}
#comparison table{width:100%}#comparison td{overflow-wrap:anywhere}
#comparison .verdict{white-space:nowrap;overflow-wrap:normal}#comparison code{font-size:12px;word-break:break-word}
table.diffs td.did{font-weight:600;white-space:nowrap}tr.waived{background:var(--bg2)}tr.moved>td:first-child{border-left:3px solid var(--fail)}
.waiver{display:inline-block;font-size:11px;padding:0 6px;border-radius:10px;border:1px dashed #8250df;color:#8250df}
.waiver.expired{border-color:var(--error);color:var(--error)}p.waived{margin:2px 0;font-size:12px;color:#8250df}
.absent{color:var(--muted);font-style:italic}a.cmp{font-size:11px;font-family:ui-monospace,monospace;color:var(--muted)}
ul.sides{margin:4px 0;padding-left:18px}details.places ul{margin:2px 0;padding-left:16px;font-size:12px}
dl.cmp-rules{margin:4px 0;font-size:13px}dl.cmp-rules dt{font-weight:600;margin-top:6px}dl.cmp-rules dd{margin:0 0 0 12px}
@media (max-width:600px){#comparison table,#comparison tbody,#comparison tr,#comparison td{display:block;width:auto;min-width:0}
#comparison thead{display:none}#comparison tr{border:1px solid var(--line);border-radius:4px;margin:6px 0;padding:3px 0}
#comparison td{border:0;padding:1px 8px}#comparison td::before{content:attr(data-label) ": ";color:var(--muted);font-size:12px}}
footer{color:var(--muted);font-size:12px;margin-top:30px;padding-bottom:30px}
@media (max-width:600px){ul.counts{gap:4px}\
ul.counts li{min-width:0;flex:1 1 0;padding:3px 4px;font-size:11px;overflow-wrap:normal}\
ul.counts b{font-size:17px}.headline .big{font-size:24px}
table.params,table.params tbody,table.params tr,table.params th,table.params td{display:block;width:auto;min-width:0}
table.params thead{display:none}table.params tr{border:1px solid var(--line);border-radius:4px;margin:4px 0;padding:3px 0}
table.params th,table.params td{border:0;padding:1px 8px;white-space:normal}table.params td:empty{display:none}}
@media (max-width:800px){.cols{grid-template-columns:minmax(0,1fr)}header,main,footer{padding:0 10px}\
.checks{padding:4px 4px 8px 8px}.evidence{margin-left:4px;padding-left:6px}summary .counts{margin-left:0}}
`;
