// decide.cpp: from numbers to a decision in lesson 004's order. Numbers first: each option priced per unit of
// useful work (decide_pricing.cpp: rented in the provider's billing increments, owned with colocation and power at
// the load the usage implies; what feasibility eliminates recorded as data) and ranked by the user's priority,
// feasible first (decide_ranking.cpp). Words after, and only when asked: each option's reasons and cost derivation
// (decide_option_words.cpp), then the decision, the recommendation and the three checks (decide_explain.cpp).
#include "decide_internal.h"

namespace hwplan {

void decide(Plan& p, const Workload& w, const Catalog& cat, const AssumptionSet& as, bool words) {
    using namespace decide_parts;
    const DecideInputs in = decide_inputs(w, cat, as, words);
    if (words) missing_inputs_words(p, w, in);
    Priced priced = price_options(p, w, cat, in);
    if (words) option_words(p, priced, w, cat, in);
    rank_options(p, priced, w, cat, in);
    Recommendation& r = p.recommendation;
    r.found = !p.options.empty() && p.options.front().feasible;
    if (r.found) r.option = p.options.front();
    if (words) explain_decision(p, priced, w, cat, in);
}

} // namespace hwplan
