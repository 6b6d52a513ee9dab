// While the box enrols, reload the Cards page when its state changes (a tag was laid on a reader).
"use strict";
(function () {
  if (!window.EventSource) return;
  var source = new EventSource("/events");
  var first = true;
  source.onmessage = function () {
    if (first) { first = false; return; }
    source.close();
    window.location.replace("/cards");
  };
})();
