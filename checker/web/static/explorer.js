// hwcheck explorer: keys, and "jump to a violation" (POST /api/jump, then poll its status).
(function () {
  var path = JSON.parse(document.body.dataset.path || "[]");
  document.addEventListener("keydown", function (e) {
    if (e.target.tagName === "SELECT" || e.target.tagName === "INPUT") { return; }
    if (e.key === "ArrowLeft") {
      var back = document.getElementById("back");
      if (back) { window.location.href = back.href; e.preventDefault(); }
    } else if (/^[1-9]$/.test(e.key)) {
      var acts = document.querySelectorAll("a.act");
      var act = acts[Number(e.key) - 1];
      if (act) { window.location.href = act.href; e.preventDefault(); }
    }
  });
  var form = document.getElementById("jump"), status = document.getElementById("jump-status"),
      start = document.getElementById("jump-start"), cancel = document.getElementById("jump-cancel"),
      job = null;
  function say(text) { status.textContent = text; }
  function running(on) { start.disabled = on; cancel.hidden = !on; }
  function poll() {
    if (job === null) { return; }
    fetch("/api/jump/" + job).then(function (r) { return r.json(); }).then(function (d) {
      if (d.status === "running") {
        say("searching: depth " + d.depth + ", " + d.states.toLocaleString() + " states, " +
            d.seconds.toFixed(0) + " s");
        setTimeout(poll, 400);
        return;
      }
      running(false); job = null;
      if (d.status === "found") {
        say(d.property + " violated " + (d.path.length - path.length) +
            " steps from here: loading it");
        window.location.href = d.page;
      } else if (d.status === "none") {
        say("No violation is reachable from this state within the bounds (" +
            d.states.toLocaleString() + " states checked, depth " + d.depth + ").");
      } else {
        say("Stopped: " + d.reason + " (" + d.states.toLocaleString() + " states checked).");
      }
    }).catch(function (err) { running(false); say("The server did not answer: " + err); });
  }
  form.addEventListener("submit", function (e) {
    e.preventDefault();
    var invariant = document.getElementById("jump-invariant").value || null;
    running(true); say("starting");
    fetch("/api/jump", {method: "POST", headers: {"Content-Type": "application/json"},
                        body: JSON.stringify({path: path, invariant: invariant})})
      .then(function (r) { return r.json(); }).then(function (d) {
        if (d.error) { running(false); say(d.error); return; }
        job = d.id; poll();
      }).catch(function (err) { running(false); say("The server did not answer: " + err); });
  });
  cancel.addEventListener("click", function () {
    if (job !== null) { fetch("/api/jump/" + job, {method: "DELETE"}); say("cancelling"); }
  });
})();
