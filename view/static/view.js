// clinevo view: two small enhancements; every page works without them.
"use strict";

// A live part (data-refresh="URL") is reloaded in place every data-every
// seconds while the page is visible, until the server says nothing on it runs
// any more (X-Clinevo-Live: 0).
for (const el of document.querySelectorAll("[data-refresh]")) {
  const every = 1000 * (Number(el.dataset.every) || 3);
  const tick = async () => {
    if (document.visibilityState === "visible") {
      try {
        const r = await fetch(el.dataset.refresh, { credentials: "same-origin" });
        if (r.ok) {
          el.innerHTML = await r.text();
          if (r.headers.get("X-Clinevo-Live") === "0") {
            return;
          }
        }
      } catch (e) {
        // The viewer is restarting or the network dropped: try again later.
      }
    }
    setTimeout(tick, every);
  };
  setTimeout(tick, every);
}

// A slider and the field it mirrors follow each other (the field is what
// the form sends); a control marked
// data-autosubmit submits its form when changed.
for (const r of document.querySelectorAll("input[data-mirror]")) {
  const out = document.getElementById(r.dataset.mirror);
  r.addEventListener("input", () => { out.value = r.value; });
  out.addEventListener("input", () => { r.value = out.value; });
}
for (const c of document.querySelectorAll("[data-autosubmit]")) {
  c.addEventListener("change", () => c.form.requestSubmit());
}
