// Text helpers shared by the self-contained HTML reports (sim/report.cc,
// sim/fgd/report.cc).
#pragma once

#include <string>

namespace basalt {

// JSON or a library inside <script>: "</" would end the element early.
inline std::string ScriptSafe(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<' && i + 1 < s.size() && s[i + 1] == '/') {
      out += "<\\/";
      ++i;
    } else {
      out += s[i];
    }
  }
  return out;
}

// Text placed in HTML elements and attribute values.
inline std::string HtmlEscape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// Runs after a page's charts are drawn: marks each canvas
// `data-nonblank="true|false"` (any pixel drawn) and the body
// `data-charts-rendered="N"`, which the headless-browser tests read.
inline constexpr const char* kMarkRenderedChartsScript = R"JS(
(function () {
  let rendered = 0;
  document.querySelectorAll('canvas').forEach(c => {
    let nonblank = false;
    try {
      const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      for (let i = 3; i < px.length; i += 4) { if (px[i] !== 0) { nonblank = true; break; } }
    } catch (e) { nonblank = false; }
    c.dataset.nonblank = nonblank ? 'true' : 'false';
    if (nonblank) rendered++;
  });
  document.body.dataset.chartsRendered = String(rendered);
})();
)JS";

}  // namespace basalt
