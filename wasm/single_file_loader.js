// Single-file loader (dist/hwplan.html only; wasm/assemble_dist.cmake inlines it before the Emscripten glue).
// The WebAssembly module travels in the page as base64 of its gzip-compressed bytes, which keeps the file
// small once served compressed (base64 of the raw module gzips poorly). The glue asks for the module
// through Module.instantiateWasm (Emscripten's hook); this unpacks it with the browser's DecompressionStream
// (Chromium 80+, Firefox 113+, Safari 16.4+) and instantiates it. No request is made, so the page works
// from file://. The build writes the module's bytes in place of the placeholder below.
(function () {
  var packed = 'HWPLAN_WASM_GZIP_BASE64';
  function fail(why) {
    console.error('hwplan: cannot start the WebAssembly module: ' + why);
    var loading = document.getElementById('hwplan-loading');
    if (loading) loading.textContent = 'hwplan could not start in this browser: ' + why;
  }
  Module.instantiateWasm = function (imports, receiveInstance) {
    if (typeof DecompressionStream !== 'function') {
      fail('it lacks DecompressionStream (Chromium 80, Firefox 113 or Safari 16.4 or later needed)');
      return {};
    }
    var text = atob(packed), bytes = new Uint8Array(text.length);
    packed = null;
    for (var i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'))).arrayBuffer()
      .then(function (wasm) { return WebAssembly.instantiate(wasm, imports); })
      .then(function (result) { receiveInstance(result.instance, result.module); },
            function (e) { fail(e && e.message ? e.message : String(e)); });
    return {}; // the exports arrive through receiveInstance
  };
})();
