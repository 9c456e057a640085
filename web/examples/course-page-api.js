// course-page-api.js: the JavaScript API called directly (hwplan_js.js defines createHwplan): JSON text in,
// JSON text out. Here: the weight memory of a 70B model at FP8, written into the page.
createHwplan().then((hw) => {
  const w = JSON.parse(hw.weights(JSON.stringify({ params: 70e9, precision: 'fp8' })));
  document.getElementById('answer').textContent = w.errors ? 'an error' : `${w.weights_bytes / 1e9} GB`;
});
