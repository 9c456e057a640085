// course-page.js: the course page talks to the embedded planner with postMessage (README.md, "Embedding").
// Send {hwplan: 'scenario', id}, {hwplan: 'workload', workload} or {hwplan: 'get'}; the planner answers each with
// {hwplan: 'plan', summary, headline, workload, plan}, and again after every change. The planner says
// {hwplan: 'ready'} once it listens: this page asks for the plan then, so "The planner says" fills in at load.
const planner = document.getElementById('planner');
const ask = (message) => planner.contentWindow.postMessage(message, '*');
document.getElementById('send-robot').addEventListener('click', () => ask({ hwplan: 'scenario', id: 'warehouse-robot' }));
window.addEventListener('message', (e) => {
  if (e.source !== planner.contentWindow || !e.data) return;
  if (e.data.hwplan === 'ready') ask({ hwplan: 'get' });
  // The recommendation as the planner's page words it; a plan without one (a team plan) gives its status line.
  else if (e.data.hwplan === 'plan') document.getElementById('planner-says').textContent = e.data.headline || e.data.summary;
});
