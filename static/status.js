// Keeps a submission's status line current while it is queued or running (its place in the
// queue, then what its job is doing: images scored of all, time left), then reloads the page
// to show the scores. Without JavaScript, a <noscript> meta refresh does the same.
(function () {
  var el = document.getElementById("status");
  if (!el) return;
  var id = el.getAttribute("data-submission");
  function poll() {
    fetch("/s/" + id + "/status", { credentials: "same-origin" })
      .then(function (r) { return r.json(); })
      .then(function (s) {
        var text = document.getElementById("status-text");
        if (text) text.textContent = s.status;
        var pos = document.getElementById("queue-position");
        if (pos) pos.textContent = s.queue_position === null ? "" : " · " + s.queue_position + " job(s) ahead in the queue";
        var progress = document.getElementById("progress");
        if (progress) progress.textContent = s.progress ? " · " + s.progress : "";
        if (s.status === "scored" || s.status === "failed" || s.status === "cancelled") { window.location.reload(); return; }
        setTimeout(poll, 1500);
      })
      .catch(function () { setTimeout(poll, 5000); });
  }
  setTimeout(poll, 1000);
})();
