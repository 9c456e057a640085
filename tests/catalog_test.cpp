// catalog_test.cpp: the loader and validator. A lint over every real catalog file, each preset's derived
// parameter count against its published one, name resolution, SI conversion, and one error test per
// class of bad input with its exact file, path and message.
#include "hwplan/catalog.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "hwplan/catalog_embedded.h"
#include "hwplan/catalog_files.h"
#include "hwplan/cost.h"

#ifndef HWPLAN_CATALOG_DIR
#error "HWPLAN_CATALOG_DIR must point at the source tree's catalog/"
#endif

namespace hwplan {

namespace {

const CatalogLoad& real_catalog() {
    static const CatalogLoad load = [] {
        std::string error;
        auto files = read_catalog_dir(HWPLAN_CATALOG_DIR, error);
        EXPECT_EQ(error, "");
        return load_catalog(files);
    }();
    return load;
}

// A minimal valid device file; tests break one thing at a time.
const char* kDevice = R"({
  "id": "test-gpu", "name": "Test GPU 48GB", "aliases": ["TG48"], "vendor": "Acme", "kind": "gpu",
  "memory": {"capacity_GB": 48, "type": "GDDR6", "bandwidth_GBps": 960, "source": "ds"},
  "compute": {"fp32_dense_TFLOPS": 90, "bf16_dense_TFLOPS": 180, "fp8_dense_TFLOPS": null, "source": "ds"},
  "interconnect": {"kind": "pcie4", "bandwidth_GBps": 64, "domain_size": 1, "source": "ds"},
  "power": {"tdp_W": 300, "source": "ds"},
  "software": ["cuda", "pytorch"],
  "availability": {"buy": true, "rent": false, "cloud_only": null},
  "prices": [{"kind": "purchase", "usd": 5000, "provider": "list price", "source": "ds"}],
  "sources": {"ds": {"title": "Test GPU datasheet", "locator": "table 1", "read_on": "2026-11-29"}}
})";

std::string replace(std::string s, const std::string& from, const std::string& to) {
    auto pos = s.find(from);
    EXPECT_NE(pos, std::string::npos) << "test setup: \"" << from << "\" not in the fixture";
    if (pos != std::string::npos) s.replace(pos, from.size(), to);
    return s;
}

// Loads the fixture catalog: one device file plus valid defaults.
CatalogLoad load_device(const std::string& text, const std::string& path = "devices/test-gpu.json") {
    const std::string defaults = R"({
      "electricity_usd_per_kWh": {"value": 0.12, "source": "s"}, "pue_ratio": {"value": 1.5, "source": "s"},
      "amortization_years": {"value": 4, "source": "s"},
      "sources": {"s": {"title": "t", "locator": "l", "read_on": "2026-11-29"}}})";
    const std::string formats = R"({"formats": {"bf16": {"bits_per_weight": 16, "kind": "float", "meaning": "m", "source": "s"}},
      "sources": {"s": {"title": "t", "locator": "l", "read_on": "2026-11-29"}}})";
    const std::string assumptions = R"({"assumptions": {"kv_block_tokens": {"value": 16, "low": 16, "high": 16, "unit": "tokens",
      "meaning": "m", "source": "s"}}, "sources": {"s": {"title": "t", "locator": "l", "read_on": "2026-11-29"}}})";
    return load_catalog({{path, text}, {"defaults.json", defaults}, {"formats.json", formats}, {"assumptions.json", assumptions}});
}

} // namespace

// [SECTION] the real catalog -----------------------------------------------------------------------

TEST(RealCatalog, EveryFileIsValid) {
    const auto& load = real_catalog();
    for (const auto& i : load.issues) ADD_FAILURE() << to_string(i);
    EXPECT_TRUE(load.catalog.has_defaults);
}

// Issue 3 asks for at least 45 devices and 30 model presets; the catalog README lists what was left out.
TEST(RealCatalog, CoversTheDevicesAndModelsTheLessonsName) {
    const auto& c = real_catalog().catalog;
    EXPECT_GE(c.models.size(), 30u);
    for (const char* name : {"H100 SXM", "H200", "B200", "A100 80GB", "RTX 3090", "RTX 4090", "RTX 5090", "MI300X",
                             "TPU v5e", "TPU v5p", "M3 Ultra", "M4 Max", "L40S", "RTX PRO 6000", "GB200 NVL72"})
        EXPECT_TRUE(resolve_device(c, name).item) << name << ": " << resolve_device(c, name).issue.message;
    for (const char* name : {"Llama-3.1-70B", "Mistral-7B-Instruct", "Qwen2.5-32B", "bge-base-en-v1.5", "Llama-3.1-8B",
                             "DeepSeek-V3", "Mixtral-8x7B"})
        EXPECT_TRUE(resolve_model(c, name).item) << name << ": " << resolve_model(c, name).issue.message;
}

// Every preset's parameter count derived from its architecture lies within 2 % of the published count
// (total, and active for mixture-of-experts models).
TEST(RealCatalog, DerivedParamsWithinTwoPercentOfPublished) {
    for (const auto& m : real_catalog().catalog.models) {
        const auto c = derive_params(m.arch, m.extra_params);
        EXPECT_NEAR(c.total / m.published_params, 1.0, 0.02) << m.id << ": derived " << c.total;
        if (m.published_active_params > 0) {
            const double active = c.active - (m.active_excludes_embedding ? double(m.arch.vocab) * m.arch.hidden : 0);
            EXPECT_NEAR(active / m.published_active_params, 1.0, 0.02) << m.id << ": derived active " << active;
        }
    }
}

TEST(RealCatalog, FiguresArePlausibleAndSourced) {
    for (const auto& d : real_catalog().catalog.devices) {
        EXPECT_GT(d.memory_bytes, 0) << d.id;
        EXPECT_GT(d.bandwidth_bytes_per_s, 0) << d.id;
        EXPECT_TRUE(d.source_of.count("memory.bandwidth_GBps")) << d.id;
        EXPECT_TRUE(d.source_of.count("memory.capacity_GB") || d.source_of.count("memory.capacity_GiB")) << d.id;
        for (const auto& [figure, id] : d.source_of) {
            bool found = false;
            for (const auto& s : d.sources) found = found || s.id == id;
            EXPECT_TRUE(found) << d.id << ": " << figure;
        }
        for (const auto& s : d.sources) EXPECT_FALSE(s.read_on.empty()) << d.id << ": " << s.id;
    }
}

// A sanity net for swapped or mistyped peaks: a narrower format is never slower than the wider one, and
// at most 4x faster (Blackwell Ultra's FP4 is 3x its FP8, GB300 tables; GeForce FP8 at FP32 accumulate is
// a quarter of FP4). Rounding in datasheets gets 2 %.
TEST(RealCatalog, NarrowerFormatsAreNoSlowerAndAtMostFourTimesFaster) {
    auto check = [](const Device& d, const PeakRate& wide, const PeakRate& narrow, const char* what) {
        if (!wide.supported || !narrow.supported) return;
        EXPECT_GE(narrow.flop_per_s, wide.flop_per_s * 0.98) << d.id << " " << what;
        EXPECT_LE(narrow.flop_per_s, wide.flop_per_s * 4 * 1.02) << d.id << " " << what;
    };
    for (const auto& d : real_catalog().catalog.devices) {
        check(d, d.bf16, d.fp8, "fp8 vs bf16");
        check(d, d.fp8, d.fp4, "fp4 vs fp8");
    }
}

// The web build's embedded copy is the same catalog, file for file.
TEST(RealCatalog, EmbeddedCopyMatchesTheFolder) {
    std::string error;
    const auto disk = read_catalog_dir(HWPLAN_CATALOG_DIR, error);
    const auto embedded = embedded_catalog_files();
    ASSERT_EQ(embedded.size(), disk.size());
    for (size_t i = 0; i < disk.size(); ++i) {
        EXPECT_EQ(embedded[i].path, disk[i].path);
        EXPECT_EQ(embedded[i].text, disk[i].text) << disk[i].path;
    }
}

// [SECTION] prices: every device priced, or a stated reason why no price is public ------------------

// Issue 19: a plan must not recommend what it cannot price without saying why. Every device file has a purchase
// or a rental price, or a `price_unpublished` reason; hwplan check-catalog prints the same coverage.
TEST(CatalogPrices, EveryDeviceHasAPriceOrAStatedReason) {
    const auto c = price_coverage(real_catalog().catalog.devices);
    for (const auto& id : c.unpriced) ADD_FAILURE() << id << ": no purchase or rental price and no price_unpublished reason";
    EXPECT_EQ(c.devices, static_cast<int>(real_catalog().catalog.devices.size()));
}

// Stricter, per kind: a device that can be bought has a purchase price or says why not; one that can be rented
// has a rental price or says why not.
TEST(CatalogPrices, EachWayToGetADeviceIsPricedOrExplained) {
    const auto c = price_coverage(real_catalog().catalog.devices);
    for (const auto& id : c.purchase_unexplained) ADD_FAILURE() << id << ": can be bought, no purchase price, no reason";
    for (const auto& id : c.rental_unexplained) ADD_FAILURE() << id << ": can be rented, no rental price, no reason";
}

// The lint itself: the same device with its prices and reasons removed is reported, and a reason alone clears it.
TEST(CatalogPrices, ADeviceWithoutPriceOrReasonIsReported) {
    auto d = real_catalog().catalog.devices.front();
    d.prices.clear();
    d.purchase_unpublished.clear();
    d.rental_unpublished.clear();
    EXPECT_EQ(price_coverage({d}).unpriced, std::vector<std::string>{d.id});
    d.rental_unpublished = "sold only by quote";
    EXPECT_TRUE(price_coverage({d}).unpriced.empty());
}

// A server of 8 is priced per device, and compared per device with a single card's price.
TEST(CatalogPrices, AServerPriceIsPerDevice) {
    auto load = load_device(replace(kDevice, R"("prices": [)",
                                    R"("prices": [{"kind": "purchase", "usd": 32000, "devices_per_unit": 8, "unit": "8-GPU server",
                                                   "provider": "list price", "source": "ds"}, )"));
    ASSERT_TRUE(load.issues.empty()) << to_string(load.issues[0]);
    const Device& d = load.catalog.devices[0];
    EXPECT_EQ(d.prices[0].unit, "8-GPU server");
    EXPECT_DOUBLE_EQ(devices_per_purchase(d, d.prices[0]), 8);
    EXPECT_DOUBLE_EQ(purchase_usd_per_device(d), 4000); // 32,000 / 8 beats the 5,000 card
}

// A rental rented only whole: its instance size and name are read, with the document that gives the size.
TEST(CatalogPrices, ARentalInstanceSizeIsReadWithItsSource) {
    auto load = load_device(replace(replace(kDevice, R"("prices": [)",
                                            R"("prices": [{"kind": "cloud_on_demand", "usd_per_hour": 4, "devices_per_unit": 8,
                                                           "unit": "big.8x", "provider": "AWS big.8x / 8", "source": "ds",
                                                           "source_overrides": {"devices_per_unit": "sizes"}}, )"),
                                    R"("read_on": "2026-11-29"}})",
                                    R"("read_on": "2026-11-29"}, "sizes": {"title": "instance sizes", "locator": "table", "read_on": "2026-12-02"}})"));
    ASSERT_TRUE(load.issues.empty()) << to_string(load.issues[0]);
    const Device& d = load.catalog.devices[0];
    EXPECT_EQ(d.prices[0].devices_per_unit, 8);
    EXPECT_EQ(d.prices[0].unit, "big.8x");
    EXPECT_EQ(d.source_of.at("prices[0].devices_per_unit"), "sizes");
    // In the real catalog: CoreWeave rents the GB200 NVL72 only by the 72-GPU rack, AWS the H100 by the 8-GPU p5.48xlarge.
    const Device* gb200 = real_catalog().catalog.device_by_id("gb200-nvl72");
    ASSERT_NE(gb200, nullptr);
    const auto coreweave = std::find_if(gb200->prices.begin(), gb200->prices.end(), [](const Price& p) { return p.provider.rfind("CoreWeave", 0) == 0; });
    ASSERT_NE(coreweave, gb200->prices.end());
    EXPECT_EQ(coreweave->devices_per_unit, 72);
    const Device* h100 = real_catalog().catalog.device_by_id("h100-sxm");
    ASSERT_NE(h100, nullptr);
    const auto p5 = std::find_if(h100->prices.begin(), h100->prices.end(), [](const Price& p) { return p.unit == "p5.48xlarge"; });
    ASSERT_NE(p5, h100->prices.end());
    EXPECT_EQ(p5->devices_per_unit, 8);
}

// The lowest power mode: read with its source, and never above the board power.
TEST(CatalogPower, LowestPowerModeIsReadAndChecked) {
    auto load = load_device(replace(kDevice, R"("power": {"tdp_W": 300, "source": "ds"})", R"("power": {"tdp_W": 300, "min_W": 100, "source": "ds"})"));
    ASSERT_TRUE(load.issues.empty()) << to_string(load.issues[0]);
    EXPECT_DOUBLE_EQ(load.catalog.devices[0].min_power_w, 100);
    auto bad = load_device(replace(kDevice, R"("power": {"tdp_W": 300, "source": "ds"})", R"("power": {"tdp_W": 300, "min_W": 400, "source": "ds"})"));
    ASSERT_EQ(bad.issues.size(), 1u);
    EXPECT_EQ(bad.issues[0], (Issue{"power.min_W", "is above tdp_W (300): the lowest power mode cannot draw more than the maximum", "devices/test-gpu.json"}));
    EXPECT_DOUBLE_EQ(real_catalog().catalog.device_by_id("jetson-agx-orin-64gb")->min_power_w, 15);
}

// Which cloud a rental price is from: its provider's words; a cloud-only chip's prices count for its cloud.
TEST(CatalogPrices, RentalCloudsComeFromTheOffers) {
    Price aws{.kind = PriceKind::cloud_on_demand, .usd_per_hour = 1, .provider = "AWS p5.48xlarge / 8"};
    Price gcp{.kind = PriceKind::cloud_spot, .usd_per_hour = 1, .provider = "Google Cloud a3-highgpu-8g / 8"};
    Price lambda{.kind = PriceKind::cloud_on_demand, .usd_per_hour = 1, .provider = "Lambda"};
    EXPECT_EQ(cloud_of(aws), "aws");
    EXPECT_EQ(cloud_of(gcp), "gcp");
    EXPECT_EQ(cloud_of(lambda), "");
    Device d{.id = "x", .prices = {aws, gcp, lambda}};
    const auto c = price_coverage({d});
    EXPECT_EQ(c.rental_by_cloud, (std::map<std::string, int>{{"aws", 1}, {"gcp", 1}}));
    EXPECT_EQ(c.rental_elsewhere, 1);
    EXPECT_EQ(c.with_purchase, 0);
}

// [SECTION] conversion to SI ----------------------------------------------------------------------

TEST(Loader, ConvertsCatalogUnitsToSI) {
    auto load = load_device(kDevice);
    ASSERT_TRUE(load.issues.empty()) << to_string(load.issues.front());
    ASSERT_EQ(load.catalog.devices.size(), 1u);
    const Device& d = load.catalog.devices[0];
    EXPECT_DOUBLE_EQ(d.memory_bytes, 48e9);
    EXPECT_DOUBLE_EQ(d.bandwidth_bytes_per_s, 960e9);
    EXPECT_DOUBLE_EQ(d.bf16.flop_per_s, 180e12);
    EXPECT_TRUE(d.fp8.published);
    EXPECT_FALSE(d.fp8.supported); // null: no FP8 path in hardware
    EXPECT_FALSE(d.fp4.published); // absent: no public figure
    EXPECT_DOUBLE_EQ(d.interconnect_bytes_per_s, 64e9);
    EXPECT_EQ(d.source_of.at("memory.bandwidth_GBps"), "ds");
    EXPECT_DOUBLE_EQ(load.catalog.defaults.electricity_usd_per_j, 0.12 / 3.6e6);
}

TEST(Loader, GibibytesAreNotGigabytes) {
    auto load = load_device(replace(kDevice, R"("capacity_GB": 48)", R"("capacity_GiB": 48)"));
    ASSERT_EQ(load.catalog.devices.size(), 1u);
    EXPECT_DOUBLE_EQ(load.catalog.devices[0].memory_bytes, 48.0 * 1024 * 1024 * 1024);
}

// The total a runtime sees is its own key beside the datasheet capacity: 46.0 GiB read from a driver.
TEST(Loader, RuntimeTotalIsKeptApartFromTheDatasheetCapacity) {
    auto load = load_device(replace(kDevice, R"("capacity_GB": 48,)", R"("capacity_GB": 48, "runtime_total_GiB": 44.4,)"));
    ASSERT_TRUE(load.issues.empty()) << to_string(load.issues.front());
    const Device& d = load.catalog.devices.at(0);
    EXPECT_DOUBLE_EQ(d.memory_bytes, 48e9);                                 // the datasheet figure stays
    EXPECT_DOUBLE_EQ(d.runtime_total_bytes, 44.4 * 1024.0 * 1024.0 * 1024.0); // 47.67e9 bytes
    EXPECT_EQ(d.source_of.at("memory.runtime_total_GiB"), "ds");
    EXPECT_DOUBLE_EQ(load_device(kDevice).catalog.devices.at(0).runtime_total_bytes, 0); // absent: not measured
}

// What a device's own runtime reserves is its own key (memory.runtime_reserved_MB, in 1e6 bytes): 0 is a reading
// (Groq: no GPU runtime context on a chip), absent is -1 (the assumptions' GPU context applies).
TEST(Loader, RuntimeReserveIsReadInMegabytesAndAbsentIsNotRecorded) {
    auto load = load_device(replace(kDevice, R"("capacity_GB": 48,)", R"("capacity_GB": 48, "runtime_reserved_MB": 150,)"));
    ASSERT_TRUE(load.issues.empty()) << to_string(load.issues.front());
    const Device& d = load.catalog.devices.at(0);
    EXPECT_DOUBLE_EQ(d.runtime_reserved_bytes, 150e6);
    EXPECT_EQ(d.source_of.at("memory.runtime_reserved_MB"), "ds");
    auto zero = load_device(replace(kDevice, R"("capacity_GB": 48,)", R"("capacity_GB": 48, "runtime_reserved_MB": 0,)"));
    ASSERT_TRUE(zero.issues.empty()) << to_string(zero.issues.front());
    EXPECT_DOUBLE_EQ(zero.catalog.devices.at(0).runtime_reserved_bytes, 0);
    EXPECT_LT(load_device(kDevice).catalog.devices.at(0).runtime_reserved_bytes, 0); // absent: not recorded
}

// The shipped Groq entry: no reserve on a chip (Groq's ISCA 2022 abstract, 220 MiB of each chip in the global memory),
// 480 GB/s of chip-to-chip links (16 links of four 30 Gbps lanes: 16 x 4 x 30e9 / 8 = 240 GB/s each way, the Linley
// Newsletter's 480 GB/s in total), eight chips to a server; a GPU records no reserve.
TEST(Loader, GroqEntryRecordsNoRuntimeReserveAndItsChipToChipLinks) {
    const Catalog& cat = real_catalog().catalog;
    const Device* groq = cat.device_by_id("groq-lpu");
    ASSERT_NE(groq, nullptr);
    EXPECT_DOUBLE_EQ(groq->runtime_reserved_bytes, 0);
    EXPECT_EQ(groq->source_of.at("memory.runtime_reserved_MB"), "groq-isca-2022");
    EXPECT_DOUBLE_EQ(groq->interconnect_bytes_per_s, 2 * 16 * 4 * 30e9 / 8);
    EXPECT_EQ(groq->domain_size, 8);
    const Device* h100 = cat.device_by_id("h100-sxm");
    ASSERT_NE(h100, nullptr);
    EXPECT_LT(h100->runtime_reserved_bytes, 0);
}

// [SECTION] one error test per class of bad input -------------------------------------------------

TEST(LoaderErrors, EachClassNamesFilePathAndReason) {
    struct Row { std::string text; std::string path; std::string message; };
    const std::string f = "devices/test-gpu.json";
    const Row rows[] = {
        {R"({"id": )", "", "malformed JSON: parse error at line 1, column 8: syntax error while parsing value - unexpected end of input; expected '[', '{', or a literal"},
        {"[]", "", "expected a JSON object, got an array"},
        {replace(kDevice, R"("vendor": "Acme", )", ""), "vendor", "required field is missing"},
        {replace(kDevice, R"("tdp_W": 300)", R"("tdp_W": "300")"), "power.tdp_W", "expected a number, got a string"},
        {replace(kDevice, R"("bandwidth_GBps": 960)", R"("bandwidth_GBps": 0.5)"), "memory.bandwidth_GBps",
         "implausible value 0.5; expected 1 to 100000"},
        {replace(kDevice, R"("bandwidth_GBps": 960)", R"("bandwidth_GBps": -960)"), "memory.bandwidth_GBps",
         "implausible value -960; expected 1 to 100000"},
        {replace(kDevice, R"("type": "GDDR6", )", R"("type": "GDDR6", "bandwith_GBps": 1, )"), "memory.bandwith_GBps",
         "unknown key"},
        {replace(kDevice, R"("kind": "gpu")", R"("kind": "gpgpu")"), "kind",
         "unknown value \"gpgpu\"; expected one of gpu, tpu, cpu, soc, npu, sram_system, rack_system, accelerator"},
        {replace(kDevice, R"(, "source": "ds"},
  "compute")", R"(},
  "compute")"), "memory.source", "required field is missing"},
        {replace(kDevice, R"("tdp_W": 300, "source": "ds")", R"("tdp_W": 300, "source": "dsx")"), "power.source",
         "names \"dsx\", which is not in sources"},
        {replace(kDevice, R"("read_on": "2026-11-29")", R"("read_on": "29/11/2026")"), "sources.ds.read_on",
         "expected an ISO date YYYY-MM-DD, got \"29/11/2026\""},
        {replace(kDevice, R"("locator": "table 1", )", ""), "sources.ds.locator", "required field is missing"},
        {replace(kDevice, R"("id": "test-gpu")", R"("id": "other-gpu")"), "id",
         "\"other-gpu\" must equal the file name \"test-gpu\""},
        {replace(kDevice, R"("software": ["cuda", "pytorch"])", R"("software": ["cuda", "pytroch"])"), "software[1]",
         "unknown ecosystem \"pytroch\" (catalog/README.md lists the known ones)"},
        {replace(kDevice, R"("domain_size": 1)", R"("domain_size": 1.5)"), "interconnect.domain_size",
         "expected an integer, got 1.5"},
        {replace(kDevice, R"("kind": "purchase", "usd": 5000)", R"("kind": "purchase", "usd_per_hour": 2)"),
         "prices[0].usd", "required field is missing"},
        {replace(kDevice, R"("usd": 5000,)", R"("usd": 40000, "devices_per_unit": 0,)"), "prices[0].devices_per_unit",
         "implausible value 0; expected 1 to 1000000"},
        {replace(kDevice, R"("prices": [)", R"("price_unpublished": {}, "prices": [)"), "price_unpublished",
         "must give a \"purchase\" or a \"rental\" reason"},
        {replace(kDevice, R"("prices": [)", R"("price_unpublished": {"rental": ""}, "prices": [)"), "price_unpublished.rental",
         "must not be empty"},
        // whether a sustained rate was measured needs the rate it speaks of; a flag is a boolean
        {replace(kDevice, R"("fp8_dense_TFLOPS": null,)", R"("fp8_dense_TFLOPS": null, "sustained_16bit_measured": false,)"),
         "compute.sustained_16bit_measured", "needs sustained_16bit_TFLOPS: it says whether that rate was measured on this board"},
        {replace(kDevice, R"("fp8_dense_TFLOPS": null,)", R"("fp8_dense_TFLOPS": null, "sustained_16bit_TFLOPS": 90, "sustained_16bit_measured": "no",)"),
         "compute.sustained_16bit_measured", "expected true or false, got a string"},
        // 48 GB of chips is at most 48 GiB: a larger runtime total is a typo, not a reading
        {replace(kDevice, R"("capacity_GB": 48,)", R"("capacity_GB": 48, "runtime_total_GiB": 48.5,)"), "memory.runtime_total_GiB",
         "must not exceed the capacity read in GiB (48), got 48.5"},
        // a reserve is what the runtime keeps of the device's memory: all of it or more is a typo
        {replace(kDevice, R"("capacity_GB": 48,)", R"("capacity_GB": 48, "runtime_reserved_MB": 48000,)"), "memory.runtime_reserved_MB",
         "must be below the capacity (48000 MB), got 48000"},
    };
    for (const auto& r : rows) {
        auto load = load_device(r.text);
        ASSERT_FALSE(load.issues.empty()) << r.path << " " << r.message;
        EXPECT_EQ(load.issues[0], (Issue{r.path, r.message, f})) << to_string(load.issues[0]);
        EXPECT_TRUE(load.catalog.devices.empty()) << "a bad entry is left out";
    }
}

// efficiencies.json: a rule's weight-format kinds must be formats.json kinds, and a fitted step time comes
// with its band (all three fields or none, the value inside low..high).
TEST(LoaderErrors, EfficiencyRuleFormatKindsAndStepTime) {
    const std::string rule = R"({"decode_bandwidth_efficiency": {"r": {"meaning": "m", "kinds": ["gpu"], "frameworks": ["llama.cpp"],
      "weight_format_kinds": ["gguf"], "value": 0.5, "low": 0.4, "high": 0.6, "step_overhead_s": 0.003, "step_overhead_low_s": 0.002,
      "step_overhead_high_s": 0.004, "measurements": 2, "source": "s"}}, "training_mfu": {},
      "sources": {"s": {"title": "t", "locator": "l", "read_on": "2026-12-01"}}})";
    struct Row { std::string text; std::string path; std::string message; };
    const Row rows[] = {
        {replace(rule, R"(["gguf"])", R"(["ggml"])"), "decode_bandwidth_efficiency.r.weight_format_kinds",
         "unknown format kind \"ggml\"; expected float, int, blockquant or gguf"},
        {replace(rule, R"("step_overhead_low_s": 0.002,)", ""), "decode_bandwidth_efficiency.r.step_overhead_s",
         "give step_overhead_s, step_overhead_low_s and step_overhead_high_s together"},
        {replace(rule, R"("step_overhead_s": 0.003)", R"("step_overhead_s": 0.005)"), "decode_bandwidth_efficiency.r.step_overhead_s",
         "must lie within step_overhead_low_s..step_overhead_high_s (0.002..0.004)"},
    };
    const auto good = load_catalog({{"efficiencies.json", rule}});
    EXPECT_TRUE(std::none_of(good.issues.begin(), good.issues.end(), [](const Issue& i) { return i.file == "efficiencies.json"; }));
    ASSERT_EQ(good.catalog.decode_bandwidth_rules.size(), 1u);
    EXPECT_EQ(good.catalog.decode_bandwidth_rules[0].step_overhead_s, 0.003);
    for (const auto& r : rows) {
        const auto load = load_catalog({{"efficiencies.json", r.text}});
        const auto it = std::find_if(load.issues.begin(), load.issues.end(), [](const Issue& i) { return i.file == "efficiencies.json"; });
        ASSERT_NE(it, load.issues.end()) << r.message;
        EXPECT_EQ(*it, (Issue{r.path, r.message, "efficiencies.json"})) << to_string(*it);
    }
}

// efficiencies.json: a rule's weight_formats name formats.json ids, each of a kind the rule names (checked once
// formats.json is read, which sorts after efficiencies.json).
TEST(LoaderErrors, EfficiencyRuleWeightFormatsAreKnownFormatsOfItsKinds) {
    const std::string formats = R"({"formats": {"q4_0": {"bits_per_weight": 4.5, "kind": "gguf", "meaning": "m", "source": "s"},
      "nf4": {"bits_per_weight": 4.127, "kind": "blockquant", "meaning": "m", "source": "s"}},
      "sources": {"s": {"title": "t", "locator": "l", "read_on": "2026-12-04"}}})";
    const std::string rule = R"({"decode_bandwidth_efficiency": {"r": {"meaning": "m", "kinds": ["gpu"], "frameworks": ["llama.cpp"],
      "weight_format_kinds": ["gguf"], "weight_formats": ["q4_0"], "value": 0.5, "low": 0.4, "high": 0.6, "measurements": 1,
      "source": "s"}}, "training_mfu": {}, "sources": {"s": {"title": "t", "locator": "l", "read_on": "2026-12-04"}}})";
    auto issues_of = [&](const std::string& text) {
        std::vector<Issue> out;
        for (const auto& i : load_catalog({{"efficiencies.json", text}, {"formats.json", formats}}).issues)
            if (i.file == "efficiencies.json") out.push_back(i);
        return out;
    };
    EXPECT_TRUE(issues_of(rule).empty());
    const auto unknown = issues_of(replace(rule, R"(["q4_0"])", R"(["q4_0", "q9_z"])"));
    ASSERT_EQ(unknown.size(), 1u);
    EXPECT_EQ(unknown[0], (Issue{"decode_bandwidth_efficiency.r.weight_formats", "unknown weight format \"q9_z\" (an id in formats.json)",
                                 "efficiencies.json"}));
    const auto other_kind = issues_of(replace(rule, R"(["q4_0"])", R"(["nf4"])"));
    ASSERT_EQ(other_kind.size(), 1u);
    EXPECT_EQ(other_kind[0], (Issue{"decode_bandwidth_efficiency.r.weight_formats",
                                    "\"nf4\" is of kind blockquant, which the rule's weight_format_kinds do not name", "efficiencies.json"}));
}

// runtimes.json: shard_embeddings_and_head is a yes/no property of the runtime with its source; a string is refused.
TEST(LoaderErrors, RuntimeShardEmbeddingsAndHeadIsABoolean) {
    const std::string runtimes = R"({"runtimes": {"r": {"name": "n", "meaning": "m", "adapter_bytes_per_param": 2,
      "adapter_gradient_bytes_per_param": 2, "optimizer_state_bytes_per_value": 2, "logits_kept_bytes_per_value": 2,
      "loss_fp32_bytes_per_value": 8, "loss_chunks": 8, "paged_optimizer": false, "full_master_weights": false,
      "optimizer_in_backward": false, "attention": "sdpa", "offload_parameters": true, "shard_embeddings_and_head": true,
      "default_for": ["full", "lora", "qlora"], "source": "s"}},
      "sources": {"s": {"title": "t", "locator": "l", "read_on": "2026-12-01"}}})";
    const auto good = load_catalog({{"runtimes.json", runtimes}});
    EXPECT_TRUE(std::none_of(good.issues.begin(), good.issues.end(), [](const Issue& i) { return i.file == "runtimes.json"; }));
    ASSERT_EQ(good.catalog.training_runtimes.size(), 1u);
    EXPECT_TRUE(good.catalog.training_runtimes[0].shard_embeddings_and_head);
    const auto bad = load_catalog({{"runtimes.json", replace(runtimes, R"("shard_embeddings_and_head": true)", R"("shard_embeddings_and_head": "yes")")}});
    const auto it = std::find_if(bad.issues.begin(), bad.issues.end(), [](const Issue& i) { return i.file == "runtimes.json"; });
    ASSERT_NE(it, bad.issues.end());
    EXPECT_EQ(*it, (Issue{"runtimes.r.shard_embeddings_and_head", "expected true or false, got a string", "runtimes.json"})) << to_string(*it);
}

// runtimes.json: default_for_device_kinds names device kinds (the profile a full run on such a device gets when it names
// no runtime) and caching_allocator is a yes/no property, both read with their source; an unknown kind names itself, and a
// second profile for the same kind is refused.
TEST(LoaderErrors, RuntimeDeviceKindDefaultsAreRead) {
    const std::string r = R"("name": "n", "meaning": "m", "adapter_bytes_per_param": 2,
      "adapter_gradient_bytes_per_param": 2, "optimizer_state_bytes_per_value": 2, "logits_kept_bytes_per_value": 2,
      "loss_fp32_bytes_per_value": 8, "loss_chunks": 8, "paged_optimizer": false, "full_master_weights": false,
      "optimizer_in_backward": false, "attention": "sdpa", "source": "s")";
    const std::string runtimes = R"({"runtimes": {"a": {)" + r + R"(, "default_for": ["full", "lora", "qlora"]},
      "b": {)" + r + R"(, "default_for_device_kinds": ["tpu"], "caching_allocator": false}},
      "sources": {"s": {"title": "t", "locator": "l", "read_on": "2026-12-04"}}})";
    const auto good = load_catalog({{"runtimes.json", runtimes}});
    EXPECT_TRUE(std::none_of(good.issues.begin(), good.issues.end(), [](const Issue& i) { return i.file == "runtimes.json"; }));
    ASSERT_EQ(good.catalog.training_runtimes.size(), 2u);
    EXPECT_TRUE(good.catalog.training_runtimes[0].default_for_device_kinds.empty());
    EXPECT_TRUE(good.catalog.training_runtimes[0].caching_allocator);
    EXPECT_EQ(good.catalog.training_runtimes[1].default_for_device_kinds, std::vector<std::string>{"tpu"});
    EXPECT_FALSE(good.catalog.training_runtimes[1].caching_allocator);
    auto issue = [](const std::string& json) {
        const auto bad = load_catalog({{"runtimes.json", json}});
        const auto it = std::find_if(bad.issues.begin(), bad.issues.end(), [](const Issue& i) { return i.file == "runtimes.json"; });
        return it == bad.issues.end() ? Issue{} : *it;
    };
    EXPECT_EQ(issue(replace(runtimes, R"(["tpu"])", R"(["tensor"])")),
              (Issue{"runtimes.b.default_for_device_kinds", "unknown device kind \"tensor\"", "runtimes.json"}));
    EXPECT_EQ(issue(replace(runtimes, R"("default_for": ["full", "lora", "qlora"]})", R"("default_for": ["full", "lora", "qlora"], "default_for_device_kinds": ["tpu"]})")),
              (Issue{"runtimes", "at most one profile may be the default for device kind \"tpu\", found 2", "runtimes.json"}));
}

// runtimes.json: the layouts a trainer offers (max_zero_stage 0 to 3, a fixed recomputation, tensor-parallel overlap
// yes or no) are read with their source; absent, any ZeRO stage, the search's recomputation and the overlap; a value
// outside names its field.
TEST(LoaderErrors, RuntimeLayoutLimitsAreRead) {
    const std::string runtimes = R"({"runtimes": {"r": {"name": "n", "meaning": "m", "adapter_bytes_per_param": 2,
      "adapter_gradient_bytes_per_param": 2, "optimizer_state_bytes_per_value": 2, "logits_kept_bytes_per_value": 2,
      "loss_fp32_bytes_per_value": 8, "loss_chunks": 8, "paged_optimizer": false, "full_master_weights": false,
      "optimizer_in_backward": false, "attention": "sdpa", "max_zero_stage": 0, "recompute": "full", "tensor_parallel_overlap": false,
      "default_for": ["full", "lora", "qlora"], "source": "s"}},
      "sources": {"s": {"title": "t", "locator": "l", "read_on": "2026-12-03"}}})";
    const auto good = load_catalog({{"runtimes.json", runtimes}});
    EXPECT_TRUE(std::none_of(good.issues.begin(), good.issues.end(), [](const Issue& i) { return i.file == "runtimes.json"; }));
    ASSERT_EQ(good.catalog.training_runtimes.size(), 1u);
    EXPECT_EQ(good.catalog.training_runtimes[0].max_zero_stage, 0);
    EXPECT_EQ(good.catalog.training_runtimes[0].recompute, "full");
    EXPECT_FALSE(good.catalog.training_runtimes[0].tensor_parallel_overlap);
    const auto plain = load_catalog({{"runtimes.json", replace(replace(replace(runtimes, R"("max_zero_stage": 0, )", ""), R"("recompute": "full", )", ""),
                                                               R"("tensor_parallel_overlap": false,)", "")}});
    ASSERT_EQ(plain.catalog.training_runtimes.size(), 1u);
    EXPECT_EQ(plain.catalog.training_runtimes[0].max_zero_stage, 3);
    EXPECT_EQ(plain.catalog.training_runtimes[0].recompute, "");
    EXPECT_TRUE(plain.catalog.training_runtimes[0].tensor_parallel_overlap);
    for (const auto& [from, to, path, message] : std::vector<std::tuple<std::string, std::string, std::string, std::string>>{
             {R"("max_zero_stage": 0)", R"("max_zero_stage": 4)", "runtimes.r.max_zero_stage", "implausible value 4; expected 0 to 3"},
             {R"("recompute": "full")", R"("recompute": "some")", "runtimes.r.recompute",
              "unknown value \"some\"; expected one of none, selective, full"},
             {R"("tensor_parallel_overlap": false)", R"("tensor_parallel_overlap": 1)", "runtimes.r.tensor_parallel_overlap",
              "expected true or false, got a number"}}) {
        const auto bad = load_catalog({{"runtimes.json", replace(runtimes, from, to)}});
        const auto it = std::find_if(bad.issues.begin(), bad.issues.end(), [](const Issue& i) { return i.file == "runtimes.json"; });
        ASSERT_NE(it, bad.issues.end()) << message;
        EXPECT_EQ(*it, (Issue{path, message, "runtimes.json"})) << to_string(*it);
    }
}

// runtimes.json: fp8_attention_at_16_bits (under FP8 compute the attention kernel stays at 16 bits, item 124) is read with its
// source; absent, false.
TEST(LoaderErrors, RuntimeFp8AttentionAt16BitsIsRead) {
    const std::string runtimes = R"({"runtimes": {"r": {"name": "n", "meaning": "m", "adapter_bytes_per_param": 2,
      "adapter_gradient_bytes_per_param": 2, "optimizer_state_bytes_per_value": 2, "logits_kept_bytes_per_value": 2,
      "loss_fp32_bytes_per_value": 0, "loss_chunks": 1, "paged_optimizer": false, "full_master_weights": true,
      "optimizer_in_backward": false, "attention": "sdpa", "fp8_attention_at_16_bits": true,
      "default_for": ["full", "lora", "qlora"], "source": "s"}},
      "sources": {"s": {"title": "t", "locator": "l", "read_on": "2026-12-05"}}})";
    const auto good = load_catalog({{"runtimes.json", runtimes}});
    EXPECT_TRUE(std::none_of(good.issues.begin(), good.issues.end(), [](const Issue& i) { return i.file == "runtimes.json"; }));
    ASSERT_EQ(good.catalog.training_runtimes.size(), 1u);
    EXPECT_TRUE(good.catalog.training_runtimes[0].fp8_attention_at_16_bits);
    EXPECT_FALSE(good.catalog.training_runtimes[0].fp8_output_head_at_16_bits);
    const auto plain = load_catalog({{"runtimes.json", replace(runtimes, R"("fp8_attention_at_16_bits": true,)", "")}});
    ASSERT_EQ(plain.catalog.training_runtimes.size(), 1u);
    EXPECT_FALSE(plain.catalog.training_runtimes[0].fp8_attention_at_16_bits);
}

// runtimes.json: fp8_linear_input_bytes_per_value (the width of the linear layers' saved inputs under FP8 compute, 0 to 2 bytes)
// is read with its source; absent, 0 (the activations' own width); a value outside names its field.
TEST(LoaderErrors, RuntimeFp8LinearInputBytesIsRangeChecked) {
    const std::string runtimes = R"({"runtimes": {"r": {"name": "n", "meaning": "m", "adapter_bytes_per_param": 2,
      "adapter_gradient_bytes_per_param": 2, "optimizer_state_bytes_per_value": 2, "logits_kept_bytes_per_value": 2,
      "loss_fp32_bytes_per_value": 0, "loss_chunks": 1, "paged_optimizer": false, "full_master_weights": true,
      "optimizer_in_backward": false, "attention": "sdpa", "fp8_linear_input_bytes_per_value": 1,
      "default_for": ["full", "lora", "qlora"], "source": "s"}},
      "sources": {"s": {"title": "t", "locator": "l", "read_on": "2026-12-04"}}})";
    const auto good = load_catalog({{"runtimes.json", runtimes}});
    EXPECT_TRUE(std::none_of(good.issues.begin(), good.issues.end(), [](const Issue& i) { return i.file == "runtimes.json"; }));
    ASSERT_EQ(good.catalog.training_runtimes.size(), 1u);
    EXPECT_DOUBLE_EQ(good.catalog.training_runtimes[0].fp8_linear_input_bytes_per_value, 1.0);
    const auto plain = load_catalog({{"runtimes.json", replace(runtimes, R"("fp8_linear_input_bytes_per_value": 1,)", "")}});
    ASSERT_EQ(plain.catalog.training_runtimes.size(), 1u);
    EXPECT_DOUBLE_EQ(plain.catalog.training_runtimes[0].fp8_linear_input_bytes_per_value, 0.0);
    const auto bad = load_catalog({{"runtimes.json", replace(runtimes, R"("fp8_linear_input_bytes_per_value": 1)", R"("fp8_linear_input_bytes_per_value": 3)")}});
    const auto it = std::find_if(bad.issues.begin(), bad.issues.end(), [](const Issue& i) { return i.file == "runtimes.json"; });
    ASSERT_NE(it, bad.issues.end());
    EXPECT_EQ(*it, (Issue{"runtimes.r.fp8_linear_input_bytes_per_value", "implausible value 3; expected 0 to 2", "runtimes.json"})) << to_string(*it);
}

// runtimes.json: an adapter timing is a per-step time in seconds (0 to 10) and a causal attention share from 0.5
// (a kernel that skips the masked half) to 1 (the full count); a value outside names its field.
TEST(LoaderErrors, RuntimeAdapterTimingIsRangeChecked) {
    const std::string runtimes = R"({"runtimes": {"r": {"name": "n", "meaning": "m", "adapter_bytes_per_param": 2,
      "adapter_gradient_bytes_per_param": 2, "optimizer_state_bytes_per_value": 2, "logits_kept_bytes_per_value": 2,
      "loss_fp32_bytes_per_value": 8, "loss_chunks": 8, "paged_optimizer": false, "full_master_weights": false,
      "optimizer_in_backward": false, "attention": "sdpa", "adapter_step_overhead_s": 0.2, "causal_attention_flops_ratio": 0.5,
      "adapter_timing_calibrated_by": ["some-case"], "default_for": ["full", "lora", "qlora"], "source": "s"}},
      "sources": {"s": {"title": "t", "locator": "l", "read_on": "2026-12-01"}}})";
    const auto good = load_catalog({{"runtimes.json", runtimes}});
    EXPECT_TRUE(std::none_of(good.issues.begin(), good.issues.end(), [](const Issue& i) { return i.file == "runtimes.json"; }));
    ASSERT_EQ(good.catalog.training_runtimes.size(), 1u);
    EXPECT_DOUBLE_EQ(good.catalog.training_runtimes[0].adapter_step_overhead_s, 0.2);
    EXPECT_DOUBLE_EQ(good.catalog.training_runtimes[0].causal_attention_flops_ratio, 0.5);
    EXPECT_EQ(good.catalog.training_runtimes[0].adapter_timing_calibrated_by, std::vector<std::string>{"some-case"});
    for (const auto& [from, to, path, message] : std::vector<std::tuple<std::string, std::string, std::string, std::string>>{
             {R"("causal_attention_flops_ratio": 0.5)", R"("causal_attention_flops_ratio": 0.25)", "runtimes.r.causal_attention_flops_ratio",
              "implausible value 0.25; expected 0.5 to 1"},
             {R"("adapter_step_overhead_s": 0.2)", R"("adapter_step_overhead_s": -1)", "runtimes.r.adapter_step_overhead_s",
              "implausible value -1; expected 0 to 10"}}) {
        const auto bad = load_catalog({{"runtimes.json", replace(runtimes, from, to)}});
        const auto it = std::find_if(bad.issues.begin(), bad.issues.end(), [](const Issue& i) { return i.file == "runtimes.json"; });
        ASSERT_NE(it, bad.issues.end()) << to;
        EXPECT_EQ(*it, (Issue{path, message, "runtimes.json"})) << to_string(*it);
    }
}

TEST(LoaderErrors, UnusedSourceIsReported) {
    auto load = load_device(replace(kDevice, R"("read_on": "2026-11-29"}})",
                                    R"("read_on": "2026-11-29"}, "old": {"title": "t", "locator": "l", "read_on": "2020-01-01"}})"));
    ASSERT_EQ(load.issues.size(), 1u);
    EXPECT_EQ(load.issues[0], (Issue{"sources.old", "is not used by any figure", "devices/test-gpu.json"}));
}

TEST(LoaderErrors, BadEntryDoesNotStopTheRest) {
    const std::string good = kDevice;
    const std::string bad = replace(replace(kDevice, R"("id": "test-gpu")", R"("id": "bad-gpu")"),
                                    R"("bandwidth_GBps": 960)", R"("bandwidth_GBps": "fast")");
    auto load = load_catalog({{"devices/test-gpu.json", good}, {"devices/bad-gpu.json", bad}});
    ASSERT_EQ(load.catalog.devices.size(), 1u);
    EXPECT_EQ(load.catalog.devices[0].id, "test-gpu");
    EXPECT_EQ(load.issues[0], (Issue{"memory.bandwidth_GBps", "expected a number, got a string", "devices/bad-gpu.json"}));
}

TEST(LoaderErrors, DuplicateIdAndClashingAliases) {
    const std::string twin = replace(replace(kDevice, R"("id": "test-gpu")", R"("id": "twin-gpu")"),
                                     R"("name": "Test GPU 48GB")", R"("name": "Twin GPU")");
    auto load = load_catalog({{"devices/test-gpu.json", kDevice}, {"devices/twin-gpu.json", twin}});
    ASSERT_FALSE(load.issues.empty());
    EXPECT_EQ(load.issues[0], (Issue{"aliases", "name \"TG48\" also names \"test-gpu\"", "devices/twin-gpu.json"}));
}

TEST(LoaderErrors, ModelLayersMustAddUp) {
    const std::string model = R"({
      "id": "tiny", "name": "Tiny", "family": "test", "kind": "decoder",
      "published": {"params": 2e7, "source": "c"},
      "architecture": {"layers": 4, "hidden": 256, "heads": 4, "kv_heads": 4, "head_dim": 64, "intermediate": 1024,
        "vocab": 32000, "tied_embeddings": true, "max_context": 2048, "mlp": "gated", "norm": "rmsnorm", "bias": "none",
        "position": "rope", "attention_layers": [{"kind": "full", "count": 3}], "source": "c"},
      "sources": {"c": {"title": "config.json", "locator": "all keys", "read_on": "2026-11-29"}}})";
    auto load = load_catalog({{"models/tiny.json", model}});
    ASSERT_FALSE(load.issues.empty());
    EXPECT_EQ(load.issues[0], (Issue{"architecture.attention_layers", "counts add up to 3 blocks, but layers is 4", "models/tiny.json"}));
}

// [SECTION] extensions and name resolution --------------------------------------------------------

TEST(Extension, UserDeviceGoesThroughTheSameValidator) {
    Catalog c = real_catalog().catalog;
    const size_t before = c.devices.size();
    const std::string ext = std::string(R"({"devices": [)") + kDevice + "]}";
    EXPECT_TRUE(extend_catalog(c, ext).empty());
    EXPECT_EQ(c.devices.size(), before + 1);
    EXPECT_TRUE(resolve_device(c, "tg48").item);

    Catalog c2 = real_catalog().catalog;
    auto issues = extend_catalog(c2, std::string(R"({"devices": [)") + replace(kDevice, R"("tdp_W": 300)", R"("tdp_W": -3)") + "]}");
    ASSERT_EQ(issues.size(), 1u);
    EXPECT_EQ(issues[0], (Issue{"devices[0].power.tdp_W", "implausible value -3; expected 0.5 to 100000", "extension"}));
    EXPECT_EQ(c2.devices.size(), before);
}

TEST(Extension, AnExistingIdIsNotSilentlyReplaced) {
    Catalog c = real_catalog().catalog;
    const std::string clash = replace(replace(kDevice, R"("id": "test-gpu")", R"("id": "h100-sxm")"), R"(["TG48"])", "[]");
    auto issues = extend_catalog(c, std::string(R"({"devices": [)") + clash + "]}");
    ASSERT_EQ(issues.size(), 1u);
    EXPECT_EQ(issues[0], (Issue{"devices[0].id", "\"h100-sxm\" already names \"h100-sxm\" in the catalog", "extension"}));
}

TEST(Resolve, CommonNamesCaseAndPunctuationInsensitive) {
    const auto& c = real_catalog().catalog;
    EXPECT_EQ(resolve_device(c, "h100 sxm").item->id, "h100-sxm");
    EXPECT_EQ(resolve_device(c, "A100 80GB").item->id, "a100-80gb");
    EXPECT_EQ(resolve_device(c, "rtx_3090").item->id, "rtx-3090");
    EXPECT_EQ(resolve_model(c, "llama-3.1-70b").item->id, "llama-3.1-70b");
}

// The validation suite names devices as its sources print them (tests/validation/cases/decode: MLC's
// llm-perf-bench "RTX 3090 Ti", XiongjieDai's "M1 Max 32-core GPU 64GB" and "M3 Max 40-core GPU 64GB"); each
// resolves to its entry, whose bandwidth is the published one: 21 Gbps x 384 bit / 8 = 1,008 GB/s (TweakTown),
// 400 GB/s for both Max chips (Apple via MyBroadband; Notebookcheck for the 40-core M3 Max).
TEST(Resolve, TheValidationSuitesDeviceNames) {
    const auto& c = real_catalog().catalog;
    struct Row { const char* name; const char* id; double bandwidth_bytes_per_s; double memory_bytes; };
    const Row rows[] = {
        {"RTX 3090 Ti", "rtx-3090-ti", 21e9 * 384 / 8, 24e9},
        {"M1 Max 32-core GPU 64GB", "apple-m1-max", 400e9, 64e9},
        {"M3 Max 40-core GPU 64GB", "apple-m3-max-64gb", 400e9, 64e9},
    };
    for (const auto& r : rows) {
        const auto hit = resolve_device(c, r.name);
        ASSERT_TRUE(hit.item) << r.name << ": " << hit.issue.message;
        EXPECT_EQ(hit.item->id, r.id);
        EXPECT_DOUBLE_EQ(hit.item->bandwidth_bytes_per_s, r.bandwidth_bytes_per_s) << r.name;
        EXPECT_DOUBLE_EQ(hit.item->memory_bytes, r.memory_bytes) << r.name;
    }
    // The 3090 Ti's tensor rate is derived, not read: the RTX 3090's 71 TFLOPS (GA102 whitepaper) per SM and
    // boost clock (82 SMs, 1,695 MHz) on 84 SMs at 1,860 MHz is 79.8 TFLOPS, stored as 80.
    const auto ti = resolve_device(c, "RTX 3090 Ti").item;
    ASSERT_TRUE(ti);
    EXPECT_NEAR(ti->fp16.flop_per_s / (71e12 / (82 * 1.695e9) * 84 * 1.860e9), 1.0, 0.005);
}

TEST(Resolve, UnknownNameListsCloseMatches) {
    const auto r = resolve_device(real_catalog().catalog, "H1000");
    EXPECT_EQ(r.item, nullptr);
    EXPECT_EQ(r.issue.message.rfind("unknown device \"H1000\"; close matches: ", 0), 0u) << r.issue.message;
    EXPECT_NE(r.issue.message.find("h100"), std::string::npos) << r.issue.message;
}

} // namespace hwplan

namespace hwplan {

// A power-capped board records what continuous 16-bit matrix multiply sustains (T4: about 24 of its 65 TFLOPS at
// 70 W, NVIDIA developer forum), and the encoder runtimes read from runtimes.json with exactly one default.
TEST(CatalogDevices, SustainedSixteenBitRateAndEncoderRuntimesAreRead) {
    const Catalog& c = real_catalog().catalog;
    const Device* t4 = c.device_by_id("t4");
    ASSERT_NE(t4, nullptr);
    EXPECT_DOUBLE_EQ(t4->sustained_16bit_flop_per_s, 24e12);
    // SM counts for the wave model (item 98): T4 40 (sysrqmts.com 'SM count 40'), V100 80 (OLCF's Summit user guide,
    // 'Number of multiprocessors (SMs) | 80'), A10 72 (sysrqmts.com); CUTLASS's default tensor-op thread-block tile is the
    // same on Sm70, Sm75 and Sm80, so the 128-square tile is not Ampere's alone.
    EXPECT_EQ(t4->streaming_multiprocessors, 40);
    ASSERT_NE(c.device_by_id("v100-32gb"), nullptr);
    EXPECT_EQ(c.device_by_id("v100-32gb")->streaming_multiprocessors, 80);
    ASSERT_NE(c.device_by_id("a10"), nullptr);
    EXPECT_EQ(c.device_by_id("a10")->streaming_multiprocessors, 72);
    EXPECT_EQ(c.device_by_id("a100-80gb")->sustained_16bit_flop_per_s, 0); // the peak holds
    // The 72 W L4 takes the T4's rule (its measured 24 TFLOPS is 65 x 585 / 1590, peak x base / boost clock):
    // 121 x 795 / 2040 = 47.15 (fpsbench.com's L4 clocks), recorded as 47.
    const Device* l4 = c.device_by_id("l4");
    ASSERT_NE(l4, nullptr);
    EXPECT_NEAR(t4->fp16.flop_per_s * 585.0 / 1590.0, t4->sustained_16bit_flop_per_s, 0.05 * 24e12);
    EXPECT_NEAR(l4->sustained_16bit_flop_per_s, 121e12 * 795.0 / 2040.0, 0.01 * 47e12);
    EXPECT_LT(l4->sustained_16bit_flop_per_s, l4->fp16.flop_per_s);
    // The 150 W A10 likewise: 125 x 885 / 1695 = 65.27 (sysrqmts.com's A10 clocks), recorded as 65.
    const Device* a10 = c.device_by_id("a10");
    ASSERT_NE(a10, nullptr);
    EXPECT_NEAR(a10->sustained_16bit_flop_per_s, 125e12 * 885.0 / 1695.0, 0.01 * 65e12);
    EXPECT_LT(a10->sustained_16bit_flop_per_s, a10->bf16.flop_per_s);
    // The T4's rate is measured; the L4's and the A10's are its rule carried over, and say so.
    EXPECT_TRUE(t4->sustained_16bit_measured);
    EXPECT_FALSE(l4->sustained_16bit_measured);
    EXPECT_FALSE(a10->sustained_16bit_measured);
    ASSERT_NE(c.find_encoder_runtime(""), nullptr);
    EXPECT_EQ(c.find_encoder_runtime("")->id, "tensorrt");
    const EncoderRuntime* eager = c.find_encoder_runtime("pytorch-eager");
    ASSERT_NE(eager, nullptr);
    EXPECT_EQ(eager->kernels_per_layer, 22);
    EXPECT_TRUE(eager->calibrated_by.empty());
    EXPECT_EQ(c.find_encoder_runtime("onnx"), nullptr);
    EXPECT_FALSE(eager->passes_on_vector_engine);
}

// The transformers decode profiles carry the release's counts (runtimes.json decode_runtimes): v4.36 with SDPA, 45 a
// layer and 40 a step; v4.34 with eager attention, 51 and 44 (45 - 1 SDPA + 7 eager; 40 - 2 + 2 + 4); both add
// repeat_kv's 2 copies a layer for grouped KV heads. Other eager loops (LitGPT) carry no such term.
TEST(CatalogRuntimes, TransformersDecodeProfilesCarryTheirReleasesCounts) {
    const Catalog& c = real_catalog().catalog;
    const DecodeRuntime* v436 = c.find_decode_runtime("pytorch-eager");
    const DecodeRuntime* v434 = c.find_decode_runtime("transformers-4.34");
    ASSERT_NE(v436, nullptr);
    ASSERT_NE(v434, nullptr);
    EXPECT_EQ(v436->host_ops_per_layer, 45);
    EXPECT_EQ(v436->host_ops_per_step, 40);
    EXPECT_EQ(v436->host_ops_per_grouped_kv_layer, 2);
    EXPECT_EQ(v434->host_ops_per_layer, 45 - 1 + 7);
    EXPECT_EQ(v434->host_ops_per_step, 40 - 2 + 2 + 4);
    EXPECT_EQ(v434->host_ops_per_grouped_kv_layer, 2);
    EXPECT_EQ(c.find_decode_runtime("litgpt")->host_ops_per_grouped_kv_layer, 0);
}

// TinyChat's FP16 profile is counted from tinychat/models/llama.py at b76fab6 (docs/accuracy-history.md item 115):
// 2 RMSNorm kernels + 3 projections + 1 attention kernel + o_proj + 1 add + 5 MLP operations + 1 add = 14 a layer,
// and the timed forward's as_tensor, embedding, final norm, LM head and float() = 5; its attention kernel reads the
// KV heads as stored, so no grouped-KV copies.
TEST(CatalogRuntimes, TinyChatFp16ProfileCarriesItsCodesCounts) {
    const Catalog& c = real_catalog().catalog;
    const DecodeRuntime* t = c.find_decode_runtime("tinychat-fp16");
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->host_ops_per_layer, 2 + 3 + 1 + 1 + 1 + 5 + 1);
    EXPECT_EQ(t->host_ops_per_step, 5);
    EXPECT_EQ(t->host_ops_per_grouped_kv_layer, 0);
}

// TGI's own tracker times its flash Llama waiting on the host (text-generation-inference issue #1315, the v1.2 image,
// CodeLlama-34B: 48 layers, hidden 8,192, so the fused RMSNorm path; one request at a time): the P50 latency per token
// of its four tensor-parallel rows, A100-80G x 2 28.71 ms, x 4 30.83, H100 x 2 27.82, x 4 30.50, all well above the
// device's weight reads (67.5 GB / 2 at 3.35 TB/s is 10.1 ms). By hand: mean 117.86 / 4 = 29.465 ms over the tgi-1.0
// count, 48 x 14 + 22 = 694 operations: 42.457 us each, inside eager_op_host_s's range (4.25 .. 60.5 us).
TEST(CatalogRuntimes, TgiOnePointZeroPricesItsOperationsAtItsOwnMeasurement) {
    const Catalog& c = real_catalog().catalog;
    const DecodeRuntime* tgi = c.find_decode_runtime("tgi-1.0");
    ASSERT_NE(tgi, nullptr);
    EXPECT_EQ(48 * tgi->host_ops_per_layer + tgi->host_ops_per_step, 694);
    EXPECT_NEAR(tgi->host_op_s, (28.71e-3 + 30.83e-3 + 27.82e-3 + 30.50e-3) / 4 / 694, 0.01e-6);
    EXPECT_EQ(tgi->host_op_source, "tgi-issue-1315");
    EXPECT_EQ(c.find_decode_runtime("pytorch-eager")->host_op_s, 0);
}

// Scale-up link rates read in item 121, each the vendor's per-device figure: AWS's Inf2 architecture page gives NeuronLink-v2
// 192 GiB/s a device (192 x 1.073741824 = 206.16 GB/s); AMD's ROCm architecture comparison gives 'P2P ring aggregate BW'
// 896 GB/s for the MI325X and 1,075.2 GB/s for the MI355X (7 links x 16 lanes x 32 or 38.4 Gbps / 8 x 2 directions).
TEST(CatalogDevices, LinkRatesOfInferentiaTwoMi325xAndMi355xAreTheVendorsFigures) {
    const Catalog& c = real_catalog().catalog;
    EXPECT_NEAR(c.device_by_id("inferentia2")->interconnect_bytes_per_s, 192 * 1.073741824e9, 0.05e9);
    EXPECT_NEAR(c.device_by_id("mi325x")->interconnect_bytes_per_s, 7 * 16 * 32e9 / 8 * 2, 1e3);
    EXPECT_NEAR(c.device_by_id("mi355x")->interconnect_bytes_per_s, 7 * 16 * 38.4e9 / 8 * 2, 1e3);
    EXPECT_EQ(c.device_by_id("mi325x")->domain_size, 8);
    EXPECT_EQ(c.device_by_id("mi355x")->domain_size, 8);
}

// Inferentia2's vector engines (AWS's NKI architecture guide: 2 NeuronCore-v2 a chip, VectorE 128 elements/cycle at
// 1.12 GHz): 2 x 128 x 1.12e9 = 286.72e9 elements/s; a GPU records none. The Neuron encoder profile prices its passes
// there: 28 of tokens x hidden and 6 of the scores per layer, no host launches; it is the default on AWS Neuron devices.
TEST(CatalogDevices, InferentiaTwoRecordsItsVectorEngineRateAndNeuronxCcPricesItsPassesThere) {
    const Catalog& c = real_catalog().catalog;
    const Device* inf2 = c.device_by_id("inferentia2");
    ASSERT_NE(inf2, nullptr);
    EXPECT_NEAR(inf2->vector_engine_elements_per_s, 2 * 128 * 1.12e9, 1e3);
    EXPECT_EQ(c.device_by_id("a100-80gb")->vector_engine_elements_per_s, 0);
    const EncoderRuntime* neuron = c.find_encoder_runtime("neuronx-cc");
    ASSERT_NE(neuron, nullptr);
    EXPECT_TRUE(neuron->passes_on_vector_engine);
    EXPECT_EQ(neuron->activation_passes_per_layer, 28);
    EXPECT_EQ(neuron->score_passes_per_layer, 6);
    EXPECT_EQ(neuron->kernels_per_layer, 0);
    EXPECT_TRUE(neuron->calibrated_by.empty());
    EXPECT_EQ(neuron->default_on_stack, "aws-neuron"); // neuronx-cc is the only way onto a NeuronCore
    EXPECT_FALSE(c.find_encoder_runtime("tensorrt")->passes_on_vector_engine);
    EXPECT_TRUE(c.find_encoder_runtime("tensorrt")->default_on_stack.empty());
}

} // namespace hwplan
