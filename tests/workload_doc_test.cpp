// workload_doc_test.cpp: the page's address fragment (wasm/app/workload_doc.cpp, browser-free C++ compiled
// natively), for the form side it carries: the open form tab ("tab=") and the weight check's inputs
// ("weights=PARAMS[,PRECISION]"). Each key is written only when it differs from the default (the bare page
// is the default plan), restores exactly what was written, and a damaged or hostile value is a short notice
// naming the key while that input keeps its default and the rest of the link still opens (issue 10). And the
// form's edits by path, list entries included ("hardware.owned[0].count").
#include "workload_doc.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hwplan/catalog_embedded.h"

namespace hwplan::ui {

namespace {

const Catalog& cat() { return embedded_catalog().catalog; }

AppState fresh() {
    AppState s;
    load_default(s, cat());
    return s;
}

void set_params(AppState& s, const std::string& text) {
    s.params_text.fill('\0');
    text.copy(s.params_text.data(), s.params_text.size() - 1);
}

int precision_index(const char* name) {
    const auto formats = all_precisions();
    for (size_t i = 0; i < formats.size(); ++i)
        if (hwplan::name(formats[i]) == name) return static_cast<int>(i);
    return -1;
}

} // namespace

// [SECTION] writing the link ---------------------------------------------------------------------------

TEST(WorkloadDocFragment, TheDefaultsWriteNothing) {
    const AppState s = fresh();
    EXPECT_EQ(std::string(s.params_text.data()), "7e9"); // lesson 001's worked 7B example
    EXPECT_EQ(s.precision_index, precision_index("bf16"));
    EXPECT_EQ(fragment_of(s), "");
}

TEST(WorkloadDocFragment, TheWeightCheckAndTabAreWrittenOnlyWhenTheyDiffer) {
    struct Row { const char* params; const char* precision; FormTab tab; const char* scenario; const char* expected; };
    const Row rows[] = {
        {"70e9", "bf16", FormTab::workload, "", "weights=70e9"},
        {"7e9", "fp8", FormTab::workload, "", "weights=7e9,fp8"},
        {"7e9", "bf16", FormTab::weights, "", "tab=weights"},
        {"7e9", "bf16", FormTab::hardware, "", "tab=hardware"},
        {"4.5e10", "int4", FormTab::weights, "", "tab=weights&weights=4.5e10,int4"},
        {"70e9", "fp8", FormTab::weights, "bank-70b-fp8", "scenario=bank-70b-fp8&tab=weights&weights=70e9,fp8"},
    };
    for (const auto& r : rows) {
        AppState s = fresh();
        if (*r.scenario) {
            ASSERT_TRUE(load_scenario(s, r.scenario, cat()));
        }
        set_params(s, r.params);
        s.precision_index = precision_index(r.precision);
        s.form_tab = r.tab;
        EXPECT_EQ(fragment_of(s), r.expected) << r.params << " " << r.precision;
    }
}

TEST(WorkloadDocFragment, AnInvalidCountTypedIntoTheWeightCheckStaysOutOfTheLink) {
    for (const char* bad : {"seven", "-1", "0", "nan", "1e400", ""}) {
        AppState s = fresh();
        set_params(s, bad);
        s.precision_index = precision_index("fp8");
        EXPECT_EQ(fragment_of(s), "") << bad;
    }
}

// [SECTION] opening the link ---------------------------------------------------------------------------

TEST(WorkloadDocFragment, ALinkRestoresTheTabAndTheWeightCheckExactly) {
    const std::string link = "scenario=bank-70b-fp8&tab=weights&weights=70e9,int4";
    AppState s = fresh();
    apply_fragment(s, link, cat());
    EXPECT_EQ(s.notice, "");
    EXPECT_EQ(s.scenario_id, "bank-70b-fp8");
    EXPECT_EQ(s.form_tab, FormTab::weights);
    EXPECT_TRUE(s.form_tab_pending) << "the tab bar is asked to switch";
    EXPECT_EQ(std::string(s.params_text.data()), "70e9");
    EXPECT_EQ(s.precision_index, precision_index("int4"));
    EXPECT_EQ(fragment_of(s), link);
}

TEST(WorkloadDocFragment, FormKeysWithoutAWorkloadOpenTheDefaultPlan) {
    AppState s = fresh();
    ASSERT_TRUE(load_scenario(s, "bank-70b-fp8", cat()));
    apply_fragment(s, "tab=hardware&weights=4.5e10", cat());
    EXPECT_EQ(s.notice, "");
    EXPECT_EQ(s.workload.dump(), s.default_json);
    EXPECT_EQ(s.form_tab, FormTab::hardware);
    EXPECT_EQ(std::string(s.params_text.data()), "4.5e10");
    EXPECT_EQ(s.precision_index, precision_index("bf16"));
    EXPECT_EQ(fragment_of(s), "tab=hardware&weights=4.5e10");
}

TEST(WorkloadDocFragment, PrecisionNamesAreReadCaseInsensitivelyAndWrittenCanonically) {
    AppState s = fresh();
    apply_fragment(s, "weights=%207e9%20,FP8", cat()); // spaces around the count are trimmed
    EXPECT_EQ(s.notice, "");
    EXPECT_EQ(std::string(s.params_text.data()), "7e9");
    EXPECT_EQ(fragment_of(s), "weights=7e9,fp8");
}

TEST(WorkloadDocFragment, ALinkWithoutTheKeysResetsAnEditedWeightCheck) {
    // The link is the whole state: a course page's link to a scenario opens the Workload tab and the defaults.
    AppState s = fresh();
    apply_fragment(s, "tab=weights&weights=70e9,fp8", cat());
    apply_fragment(s, "scenario=bank-70b-fp8", cat());
    EXPECT_EQ(s.notice, "");
    EXPECT_EQ(s.form_tab, FormTab::workload);
    EXPECT_EQ(std::string(s.params_text.data()), "7e9");
    EXPECT_EQ(s.precision_index, precision_index("bf16"));
}

TEST(WorkloadDocFragment, AnAnchorThatIsNotALinkOfOursChangesNothing) {
    AppState s = fresh();
    apply_fragment(s, "tab=weights&weights=70e9,fp8", cat());
    apply_fragment(s, "top", cat());
    EXPECT_EQ(s.notice, "");
    EXPECT_EQ(s.form_tab, FormTab::weights);
    EXPECT_EQ(std::string(s.params_text.data()), "70e9");
}

TEST(WorkloadDocFragment, ADamagedWeightsValueNamesTheKeyAndKeepsTheDefault) {
    const std::string hostile = "%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E" + std::string(500, 'A');
    const std::vector<std::string> damaged = {"-1", "0", "seven", "nan", "inf", "1e400", "7e9,fp7", "7e9,", ",bf16", "", "7e9,bf16,x",
                                              "1" + std::string(70, '0'), hostile};
    for (const auto& bad : damaged) {
        AppState s = fresh();
        apply_fragment(s, "scenario=bank-70b-fp8&tab=weights&weights=" + bad, cat());
        EXPECT_NE(s.notice.find("The link's weights value"), std::string::npos) << bad << ": " << s.notice;
        EXPECT_LT(s.notice.size(), 200u) << bad;
        EXPECT_EQ(s.notice.find("<img"), std::string::npos) << "no echo";
        EXPECT_EQ(s.notice.find("AAAAAAAAAAAAAAAAAAAAAAAAAA"), std::string::npos) << "no echo";
        EXPECT_EQ(std::string(s.params_text.data()), "7e9") << bad;
        EXPECT_EQ(s.precision_index, precision_index("bf16")) << bad;
        EXPECT_EQ(s.scenario_id, "bank-70b-fp8") << "the rest of the link still opens: " << bad;
        EXPECT_EQ(s.form_tab, FormTab::weights) << bad;
    }
}

TEST(WorkloadDocFragment, AnUnknownTabNamesTheKeyAndKeepsTheWorkloadTab) {
    for (const std::string& bad : std::vector<std::string>{"plan", "WEIGHTS", "", "%3Cscript%3E"}) {
        AppState s = fresh();
        apply_fragment(s, "scenario=bank-70b-fp8&tab=" + bad, cat());
        if (bad.empty()) { // "tab=" with no value is the default tab, as an absent key
            EXPECT_EQ(s.notice, "");
        } else {
            EXPECT_NE(s.notice.find("The link's tab value"), std::string::npos) << bad << ": " << s.notice;
            EXPECT_EQ(s.notice.find("<script"), std::string::npos) << "no echo";
        }
        EXPECT_EQ(s.form_tab, FormTab::workload) << bad;
        EXPECT_EQ(s.scenario_id, "bank-70b-fp8") << bad;
    }
}

// The view key names the view the link opens; an unknown one (a typo, an injected value) is named in the
// notice, not echoed whole, and the plan opens in the devices view.
TEST(WorkloadDocFragment, AnUnknownViewNamesTheKeyAndOpensTheDevicesView) {
    for (const std::string& bad : std::vector<std::string>{"charts", "TEAM", "%3Cscript%3E"}) {
        AppState s = fresh();
        apply_fragment(s, "scenario=bank-70b-fp8&view=" + bad, cat());
        EXPECT_NE(s.notice.find("The link's view value"), std::string::npos) << bad << ": " << s.notice;
        EXPECT_EQ(s.notice.find("<script"), std::string::npos) << "no echo";
        EXPECT_EQ(s.view, View::candidates) << bad;
        EXPECT_EQ(s.scenario_id, "bank-70b-fp8") << bad;
    }
    AppState s = fresh();
    apply_fragment(s, "scenario=bank-70b-fp8&view=costs", cat());
    EXPECT_EQ(s.notice, "");
    EXPECT_EQ(s.view, View::costs);
}

// [SECTION] editing by path: list entries by index, as the core's issue paths name them ------------------

TEST(WorkloadDocPath, AListEntryIsReadAndEditedByIndexAndNeverMadeUp) {
    AppState s = fresh();
    set_value(s, "hardware.owned", nlohmann::json::array({{{"device", "h100-sxm"}, {"count", 8}}, {{"device", "l4"}, {"count", 2}}}));
    EXPECT_EQ(field_text(s.workload, "hardware.owned[1].device"), "l4");
    EXPECT_TRUE(set_field(s, owned_path(0, "count"), "16"));
    EXPECT_EQ(s.workload["hardware"]["owned"][0]["count"], 16);
    EXPECT_TRUE(s.workload["hardware"]["owned"][0]["count"].is_number_integer());
    EXPECT_FALSE(set_field(s, owned_path(2, "count"), "4")); // no third row: nothing is added
    EXPECT_EQ(field(s.workload, "hardware.owned[2]"), nullptr);
    EXPECT_EQ(field(s.workload, "hardware.owned[x]"), nullptr);
    erase_field(s, owned_path(1, "count")); // the row stays, without its count (the core names the missing field)
    EXPECT_EQ(s.workload["hardware"]["owned"][1], (nlohmann::json{{"device", "l4"}}));
    sync_text(s);
    EXPECT_EQ(std::string(s.text[owned_path(0, "count")].data()), "16");
}

TEST(WorkloadDocPath, RemovingTheLastEntryRemovesTheListAndItsEmptySection) {
    AppState s = fresh();
    set_value(s, "hardware.owned", nlohmann::json::array({{{"device", "h100-sxm"}, {"count", 8}}}));
    erase_field(s, "hardware.owned[0]");
    EXPECT_FALSE(s.workload.contains("hardware"));
    EXPECT_EQ(s.workload.dump(), s.default_json);
}

// A grouped GEMM's tiles (train.grouped_gemm.wi/.wo) are typed as nine whole numbers; the form writes the core's
// [[tile_m, tile_k, tile_n] x 3] and reads it back the same way. Anything else goes in as typed, for the core to name.
TEST(WorkloadDocPath, GroupedGemmTilesAreNineNumbersAndRoundTrip) {
    AppState s = fresh();
    // DeepSeek-V3's forward, dlhs and drhs tiles of wi in an Ironwood recipe (tests/validation/cases, tpu-recipes-ironwood).
    EXPECT_TRUE(set_tiles(s, "train.grouped_gemm.wi", "128 7168 2048, 256 2048 3584; 256x1792x2048"));
    EXPECT_EQ(s.workload["train"]["grouped_gemm"]["wi"],
              (nlohmann::json{{128, 7168, 2048}, {256, 2048, 3584}, {256, 1792, 2048}}));
    sync_text(s);
    EXPECT_EQ(std::string(s.text["train.grouped_gemm.wi"].data()), "128 7168 2048, 256 2048 3584, 256 1792 2048");
    EXPECT_EQ(std::string(s.text["train.grouped_gemm.wo"].data()), "");
    // Eight numbers, a sign or a letter: kept as text, so the core's reader names train.grouped_gemm.wi.
    EXPECT_TRUE(set_tiles(s, "train.grouped_gemm.wi", "128 7168 2048, 256 2048 3584, 256 1792"));
    EXPECT_EQ(s.workload["train"]["grouped_gemm"]["wi"], "128 7168 2048, 256 2048 3584, 256 1792");
    EXPECT_TRUE(set_tiles(s, "train.grouped_gemm.wi", "-128 7168 2048, 256 2048 3584, 256 1792 2048"));
    EXPECT_TRUE(s.workload["train"]["grouped_gemm"]["wi"].is_string());
    // Emptied: the key goes, and with it the emptied section.
    EXPECT_TRUE(set_tiles(s, "train.grouped_gemm.wi", " "));
    EXPECT_EQ(field(s.workload, "train.grouped_gemm"), nullptr);
}

} // namespace hwplan::ui
