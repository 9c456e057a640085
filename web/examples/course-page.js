// course-page.js: the course page talks to the embedded planner with postMessage (README.md, "Embedding").
// Send {hwplan: 'scenario', id} or {hwplan: 'workload', workload}; the planner answers every change with
// {hwplan: 'plan', summary, workload, plan}.
const planner = document.getElementById('planner');
document.getElementById('send-robot').addEventListener('click', () => {
  planner.contentWindow.postMessage({ hwplan: 'scenario', id: 'warehouse-robot' }, '*');
});
window.addEventListener('message', (e) => {
  if (e.source !== planner.contentWindow || !e.data || e.data.hwplan !== 'plan') return;
  document.getElementById('planner-says').textContent = e.data.summary;
});
