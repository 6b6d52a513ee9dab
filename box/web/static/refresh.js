// The Cards page follows the box: when a reader sees a tag or an enrolment moves on, reload it.
"use strict";
(function () {
  var heading = document.getElementById("cards");
  if (!heading || !window.EventSource) return;
  var shown = heading.dataset.signature;
  var source = new EventSource("/events");
  source.onmessage = function (event) {
    if (JSON.parse(event.data).cards === shown) return;
    source.close();
    var deck = heading.dataset.deck;  // the card list shown stays shown
    window.location.replace("/cards" + (deck ? "?deck=" + encodeURIComponent(deck) : ""));
  };
})();
