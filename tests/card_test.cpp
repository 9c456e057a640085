// card_test.cpp: workload cards and the team plan (lesson 003's worksheet and its small team).
#include "hwplan/card.h"

#include <gtest/gtest.h>

#include "hwplan/catalog_embedded.h"

namespace hwplan {

namespace {

const Catalog& catalog() { return embedded_catalog().catalog; }

} // namespace

// Export -> import -> export is the identical text, for every scenario of the lessons.
TEST(Card, WorkloadJsonLoadsBackUnchanged) {
    for (const auto& s : catalog().scenarios) {
        if (s.workload_json.empty()) continue; // a team: TeamPlan's own round trip below
        const auto first = parse_workload(s.workload_json, catalog());
        ASSERT_TRUE(first.issues.empty()) << s.id;
        const std::string exported = workload_to_json(first.workload);
        const auto again = parse_workload(exported, catalog());
        ASSERT_TRUE(again.issues.empty()) << s.id << ": " << to_string(again.issues[0]);
        EXPECT_EQ(workload_to_json(again.workload), exported) << s.id;
    }
}

// Lesson 003: "Fill out: model, input size, output size, precision, latency target, concurrency, batch
// window, memory estimate, data source, retry plan, observability fields, and cost per useful result.
// Recommend CPU, GPU, TPU, or managed API and list the first load test you would run."
TEST(Card, HasEveryWorksheetField) {
    const auto w = parse_workload(find_scenario(catalog(), "team-live-chat")->workload_json, catalog()).workload;
    const Plan p = plan_from_json(find_scenario(catalog(), "team-live-chat")->workload_json, catalog());
    const std::string md = render_card(p, w, catalog());
    for (const char* field : {"| model |", "| input size |", "| output size |", "| precision |", "| latency target |", "| concurrency |",
                              "| memory estimate |", "| data source |", "| retry plan |", "| observability |",
                              "| cost per useful result |", "| recommended path |", "| first load test |"})
        EXPECT_NE(md.find(field), std::string::npos) << field;
    EXPECT_NE(md.find("| recommended path | GPU"), std::string::npos);
}

// Lesson 003's small team: a chat endpoint, nightly embeddings, an occasional fine-tune; the fleet's
// monthly cost is the sum of the cards' monthly figures.
TEST(Team, SmallTeamFleetAndMonthlyCost) {
    const TeamPlan t = team_plan(find_scenario(catalog(), "small-team-three-jobs")->team_json, catalog());
    ASSERT_TRUE(t.issues.empty()) << to_string(t.issues[0]);
    ASSERT_EQ(t.plans.size(), 3u);
    double sum = 0;
    for (const auto& p : t.plans) {
        ASSERT_TRUE(p.recommendation.found);
        if (p.recommendation.option.usd_per_month >= 0) sum += p.recommendation.option.usd_per_month;
    }
    EXPECT_GT(t.usd_per_month, 0);
    EXPECT_GE(t.usd_per_month, sum - 1e-9);
    // Each card's monthly figure (the page's team view shows them) adds up to the fleet's.
    ASSERT_EQ(t.card_usd_per_month.size(), 3u);
    double cards = 0;
    for (double m : t.card_usd_per_month) cards += m >= 0 ? m : 0;
    EXPECT_DOUBLE_EQ(cards, t.usd_per_month);
    EXPECT_EQ(t.plans[0].recommendation.option.count, 1); // one GPU endpoint for chat
    const std::string md = render_team(t, catalog());
    EXPECT_NE(md.find("# Team plan"), std::string::npos);
    EXPECT_NE(md.find("Fleet cost: $"), std::string::npos);
    // The team's JSON export loads back unchanged.
    const TeamPlan again = team_plan(team_to_json(t), catalog());
    ASSERT_TRUE(again.issues.empty());
    EXPECT_EQ(team_to_json(again), team_to_json(t));
}

TEST(Team, BadCardIsNamedByIndexAndPath) {
    const TeamPlan t = team_plan(R"({"cards": [{"stage": "serve", "model": "Llama-3.1-8B"}, {"stage": "embed", "model": "bge-base-en-v1.5",
        "embed": {"items": -1}}]})", catalog());
    ASSERT_EQ(t.issues.size(), 1u);
    EXPECT_EQ(t.issues[0], (Issue{"cards[1].embed.items", "implausible value -1; expected 1 to 10000000000000"}));
    EXPECT_TRUE(t.plans.empty());
    EXPECT_EQ(team_plan(R"({"name": "x"})", catalog()).issues[0], (Issue{"cards", "required field is missing (a list of workloads)"}));
}

// One answer everywhere: the card and the team plan show the plan's decision, what feasibility eliminated
// and why, choose.go's first cut and the three checks (lesson 004).
TEST(Card, ShowsTheSameDecisionWithEliminatedOptions) {
    const Scenario* s = find_scenario(catalog(), "bank-70b-fp8");
    ASSERT_NE(s, nullptr);
    const Plan p = plan_from_json(s->workload_json, catalog(), false);
    ASSERT_TRUE(p.recommendation.found);
    ASSERT_FALSE(p.decision.eliminated.empty());
    const auto parsed = parse_workload(s->workload_json, catalog());
    const std::string card = render_card(p, parsed.workload, catalog());
    // The headline sentence, then its cost breakdown as a term | value table (issue 10).
    EXPECT_NE(card.find("**Recommendation:** " + p.recommendation.headline), std::string::npos);
    for (const auto& t : p.recommendation.option.cost_terms) EXPECT_NE(card.find("| " + t.term + " | " + t.value + " |"), std::string::npos) << t.term;
    EXPECT_NE(card.find("eliminated before price (" + std::to_string(p.decision.eliminated.size()) + ")"), std::string::npos);
    EXPECT_NE(card.find(p.decision.eliminated.front()), std::string::npos);
    EXPECT_NE(card.find("first-cut guide (lesson 004, choose.go)"), std::string::npos);
    EXPECT_NE(card.find("the three checks before signing"), std::string::npos);

    const Scenario* team = find_scenario(catalog(), "small-team-three-jobs");
    ASSERT_NE(team, nullptr);
    const TeamPlan t = team_plan(team->team_json, catalog());
    ASSERT_EQ(t.plans.size(), 3u);
    const std::string md = render_team(t, catalog());
    for (const auto& tp : t.plans) {
        EXPECT_NE(md.find(tp.recommendation.headline), std::string::npos);
        if (!tp.decision.eliminated.empty()) {
            EXPECT_NE(md.find(tp.decision.eliminated.front()), std::string::npos);
        }
    }
}

} // namespace hwplan
