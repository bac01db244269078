// Intake console: the one script (served from /console/assets, allowed by the CSP; no inline
// script anywhere). Pages work without it. Where it runs, it follows the inbox over the
// notification stream (/console/events, Server-Sent Events): the unread badge is refreshed and the
// page says that something new arrived. Without EventSource it refreshes the badge every 15 s.
(function () {
  "use strict";
  var meta = document.querySelector("meta[name='intake-live']");
  if (!meta) { return; }

  function refreshBadge() {
    fetch("/console/badge", { credentials: "same-origin", headers: { "Accept": "application/json" } })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (counts) {
        if (!counts) { return; }
        document.querySelectorAll("[data-badge='unread']").forEach(function (badge) {
          badge.textContent = counts.unreadText;
          badge.setAttribute("data-count", String(counts.unread));
        });
      })
      .catch(function () { /* offline for a moment: the next event or tick tries again */ });
  }

  function arrived() {
    refreshBadge();
    var live = document.getElementById("live");
    if (live) {
      live.textContent = meta.getAttribute("data-text");
      live.hidden = false;
    }
  }

  if (window.EventSource) {
    var source = new EventSource("/console/events");
    meta.getAttribute("content").split(" ").forEach(function (type) {
      if (type) { source.addEventListener(type, arrived); }
    });
  } else {
    setInterval(refreshBadge, 15000);
  }
})();
