// Injected by tests/slides/render_test.cpp before </body> of a copy of a deck's HTML, then read back from Chromium's
// --dump-dom: one line per problem in <pre id="slides-test-report">. A slide must be readable when projected:
//   - no content overflows its section (height or width): course.css never scales code down to fit, so a block too
//     long for its slide shows up here instead of shrinking to an unreadable size;
//   - a code block has at most 20 lines of code plus the line naming its source;
//   - code is no smaller than the slide's prose (its first paragraph or list item; the section's own size without).
(function () {
  const MAX_LINES = 21;
  const px = (el) => parseFloat(getComputedStyle(el).fontSize);
  function report() {
    const problems = [];
    const sections = document.querySelectorAll('section[id]');
    sections.forEach((s) => {
      const title = ((s.querySelector('h1, h2') || {}).textContent || '').trim();
      const where = 'slide ' + s.id + ' (' + title + ')';
      if (s.scrollHeight > s.clientHeight + 1)
        problems.push(where + ': content overflows the slide by ' + (s.scrollHeight - s.clientHeight) + ' px of height');
      if (s.scrollWidth > s.clientWidth + 1)
        problems.push(where + ': content overflows the slide by ' + (s.scrollWidth - s.clientWidth) + ' px of width');
      const prose = s.querySelector('p:not(.source), li');
      const prose_px = prose ? px(prose) : px(s);
      s.querySelectorAll('pre').forEach((pre) => {
        const lines = pre.textContent.replace(/\n+$/, '').split('\n').length;
        if (lines > MAX_LINES)
          problems.push(where + ': a code block of ' + lines + ' lines (at most ' + MAX_LINES + ', its source line included)');
        if (pre.scrollWidth > pre.clientWidth + 1)
          problems.push(where + ': a code block overflows its width by ' + (pre.scrollWidth - pre.clientWidth) + ' px');
        const code_px = px(pre.querySelector('code') || pre);
        if (code_px + 0.01 < prose_px)
          problems.push(where + ': code at ' + code_px + ' px, smaller than the prose at ' + prose_px + ' px');
      });
    });
    let out = document.getElementById('slides-test-report');
    if (!out) {
      out = document.createElement('pre');
      out.id = 'slides-test-report';
      document.body.appendChild(out);
    }
    out.textContent = 'slides checked: ' + sections.length + '\n' + problems.join('\n');
  }
  report();
  window.addEventListener('load', report);  // again once images and fonts are in
})();
