// The Now page: the server sends the live part, rendered, on every change of the box.
"use strict";
(function () {
  var now = document.getElementById("now");
  var controls = document.getElementById("controls");  // only on a paired phone's page
  if (!now || !window.EventSource) return;
  var source = new EventSource("/events");
  source.onmessage = function (event) {
    var data = JSON.parse(event.data);
    now.innerHTML = data.html;
    now.dataset.version = data.version;
    if (controls) controls.innerHTML = data.controls;
  };
})();
