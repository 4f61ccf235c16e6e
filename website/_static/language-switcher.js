// The language switcher keeps the reader's place: it opens the same page in the other language at the section
// the reader is at. Every text cell starts with a language-neutral anchor, `cell-<page>-<cell id>` (the notebook
// cell's id, the same in every language; ./lab site adds it), so the place is found by position, whichever
// heading, link or scrolling brought the reader there.
"use strict";

// The reader's place: the lowest anchor that has reached the top fifth of the window.
function currentAnchor() {
  const line = window.innerHeight / 5;
  let current = null;
  let currentTop = -Infinity;
  for (const anchor of document.querySelectorAll('[id^="cell-"]')) {
    const top = anchor.getBoundingClientRect().top;
    if (top <= line && top > currentTop) {
      current = anchor;
      currentTop = top;
    }
  }
  return current;
}

document.addEventListener("click", (event) => {
  const link = event.target.closest("a[data-language-switch]");
  if (!link) return;
  const anchor = currentAnchor();
  if (!anchor) return;
  event.preventDefault();
  window.location.href = `${link.href.split("#")[0]}#${anchor.id}`;
});
