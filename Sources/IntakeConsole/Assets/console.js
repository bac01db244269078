// Intake console: the one script (served from /console/assets, allowed by the CSP; no inline
// script anywhere). Pages work without it; where it runs, the unread badge stays current.
(function () {
  "use strict";
  function refresh() {
    fetch("/console/badge", { credentials: "same-origin", headers: { "Accept": "application/json" } })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (counts) {
        if (!counts) { return; }
        document.querySelectorAll("[data-badge='unread']").forEach(function (badge) {
          badge.textContent = counts.unreadText;
          badge.setAttribute("data-count", String(counts.unread));
        });
      })
      .catch(function () { /* offline for a moment: the next tick tries again */ });
  }
  if (document.querySelector("[data-badge='unread']")) {
    setInterval(refresh, 15000);
  }
})();
