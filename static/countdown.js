// Keeps the time left of a challenge's phase current ("(in 2 days 3 hours)", "(5 minutes left)")
// and reloads the page once the phase changes, so the upload form appears or goes on time. The
// server renders the same text; without JavaScript it is as fresh as the page.
(function () {
  var el = document.getElementById("phase");
  if (!el || !el.dataset.until) return;
  var until = Date.parse(el.dataset.until);
  if (isNaN(until)) return;
  function plural(n, unit) { return n + " " + unit + (n === 1 ? "" : "s"); }
  function left(ms) {
    var s = Math.floor(ms / 1000), d = Math.floor(s / 86400), h = Math.floor(s % 86400 / 3600),
        m = Math.floor(s % 3600 / 60);
    if (d > 0) return plural(d, "day") + " " + plural(h, "hour");
    if (h > 0) return plural(h, "hour") + " " + plural(m, "minute");
    if (m > 0) return plural(m, "minute");
    return "less than a minute";
  }
  function reloadedLately() {
    try {
      var key = "phase-reload", last = +sessionStorage.getItem(key) || 0, now = Date.now();
      if (Math.abs(now - last) < 10000) return true;
      sessionStorage.setItem(key, String(now));
    } catch (e) {
      return true;
    }
    return false;
  }
  function tick() {
    var ms = until - Date.now();
    if (ms <= 0) {
      // A clock far ahead of the server's would reload forever; give up after a minute. A clock
      // a little ahead gets the same time back from the server: reload at most every ten
      // seconds, not in a loop until the server's clock catches up.
      if (ms > -60000 && !reloadedLately()) location.reload();
      return;
    }
    el.textContent = el.textContent.replace(/\((in )?[^()]*?( left)?\)/, function (_, pre, post) {
      return "(" + (pre || "") + left(ms) + (post || "") + ")";
    });
  }
  tick();
  setInterval(tick, 15000);
})();
