// Your bots: while a version is still being built or validated, look again every three seconds.
(function () {
  "use strict";
  if (document.querySelector(".status-pending, .status-uploading, .status-building, .status-validating")) {
    setTimeout(function () { window.location.reload(); }, 3000);
  }
})();
