// Volcano's scheduler configuration (framework/config.h) and plugin/action
// arguments (framework/arguments.h), docs/configuration.md.
#include "framework/config.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "framework/arguments.h"

namespace basalt {
namespace {

const std::vector<std::string> kPlugins = {"priority",   "gang",       "conformance",
                                           "drf",        "proportion", "overcommit",
                                           "predicates", "nodeorder",  "binpack"};
const std::vector<std::string> kActions = {"enqueue", "allocate", "backfill",
                                           "preempt", "reclaim",  "shuffle"};

SchedulerConfig ParseOk(const std::string& text) {
  Result<SchedulerConfig> r = ParseSchedulerConfig(text, "c.conf", kPlugins, kActions);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? std::move(r).value() : SchedulerConfig();
}

std::string ParseError(const std::string& text) {
  Result<SchedulerConfig> r = ParseSchedulerConfig(text, "c.conf", kPlugins, kActions);
  EXPECT_FALSE(r.ok()) << "parsed without error:\n" << text;
  return r.ok() ? "" : r.status().message();
}

#define EXPECT_HAS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "message: " << (haystack)

// One plugin in one tier with the given extra YAML lines (indented by 4).
std::string OnePlugin(const std::string& name, const std::string& fields = "") {
  return "actions: \"allocate\"\ntiers:\n- plugins:\n  - name: " + name + "\n" + fields;
}

// A full example in Volcano's format, every switch spelled out.
const char* kVolcanoExample =
    R"(actions: "enqueue, allocate, backfill"      # comma-separated, order matters, spaces trimmed
tiers:
- plugins:
  - name: priority
  - name: gang
    enablePreemptable: false               # switches: docs/configuration.md
  - name: conformance
- plugins:
  - name: overcommit
  - name: drf
    enablePreemptable: false
  - name: predicates
  - name: proportion
  - name: nodeorder
  - name: binpack
    arguments:                             # free-form map, read by the plugin
      binpack.weight: 10
configurations:                            # per-action arguments
- name: preempt
  arguments:
    enableTopologyAwarePreemption: true
- name: allocate
  arguments:
    predicateErrorCacheEnable: true
metrics: {}                                # metrics sources (optional)
)";

// ---- parsing Volcano's file ----

// The documented example parses into actions, tiers, switches and arguments.
TEST(ConfigTest, VolcanoExampleVerbatim) {
  SchedulerConfig c = ParseOk(kVolcanoExample);
  EXPECT_EQ(c.actions, (std::vector<std::string>{"enqueue", "allocate", "backfill"}));
  ASSERT_EQ(c.tiers.size(), 2u);
  ASSERT_EQ(c.tiers[0].plugins.size(), 3u);
  ASSERT_EQ(c.tiers[1].plugins.size(), 6u);
  EXPECT_EQ(c.tiers[0].plugins[1].name, "gang");
  EXPECT_FALSE(c.tiers[0].plugins[1].Enabled(Switch::kPreemptable));
  EXPECT_TRUE(c.tiers[0].plugins[1].Enabled(Switch::kJobReady));
  EXPECT_EQ(c.tiers[1].plugins[1].name, "drf");
  EXPECT_FALSE(c.tiers[1].plugins[1].Enabled(Switch::kPreemptable));
  const PluginOption& binpack = c.tiers[1].plugins[5];
  EXPECT_EQ(binpack.name, "binpack");
  EXPECT_EQ(binpack.arguments.owner(), "plugin binpack");
  EXPECT_EQ(binpack.arguments.values(),
            (std::map<std::string, std::string>{{"binpack.weight", "10"}}));
}

// Action names are split on commas and trimmed; order is kept.
TEST(ConfigTest, ActionsWithSpaces) {
  SchedulerConfig c = ParseOk("actions: \"  reclaim ,allocate,\tbackfill  ,preempt\"\n");
  EXPECT_EQ(c.actions, (std::vector<std::string>{"reclaim", "allocate", "backfill", "preempt"}));
  EXPECT_TRUE(c.HasAction("backfill"));
  EXPECT_FALSE(c.HasAction("enqueue"));
  EXPECT_TRUE(c.tiers.empty());
}

// The switch keys are exactly Volcano's, including the inconsistent spellings.
TEST(ConfigTest, SwitchKeyNamesExactlyAsVolcano) {
  std::set<std::string> keys;
  for (size_t i = 0; i < static_cast<size_t>(Switch::kCount); ++i)
    keys.insert(SwitchKey(static_cast<Switch>(i)));
  EXPECT_EQ(keys, (std::set<std::string>{
                      "enableJobOrder",          "enableHierarchy",    "enableJobReady",
                      "enableJobPipelined",      "enableTaskOrder",    "enablePreemptable",
                      "enableReclaimable",       "enablePreemptive",   "enableQueueOrder",
                      "EnabledClusterOrder",     "enablePredicate",    "enableBestNode",
                      "enableNodeOrder",         "enableTargetJob",    "enableReservedNodes",
                      "enableJobEnqueued",       "enabledVictim",      "enableJobStarving",
                      "enabledOverused",         "enabledAllocatable", "enabledHyperNodeOrder",
                      "enabledHyperNodeGradient"}));
  EXPECT_STREQ(SwitchKey(Switch::kOverused), "enabledOverused");
  EXPECT_STREQ(SwitchKey(Switch::kAllocatable), "enabledAllocatable");
  EXPECT_STREQ(SwitchKey(Switch::kVictim), "enabledVictim");
  EXPECT_STREQ(SwitchKey(Switch::kClusterOrder), "EnabledClusterOrder");
}

// Each switch written as false reads back as off, and only that switch changes.
TEST(ConfigTest, EverySwitchCanBeTurnedOff) {
  for (size_t i = 0; i < static_cast<size_t>(Switch::kCount); ++i) {
    Switch s = static_cast<Switch>(i);
    SchedulerConfig c =
        ParseOk(OnePlugin("gang", std::string("    ") + SwitchKey(s) + ": false\n"));
    const PluginOption& p = c.tiers.at(0).plugins.at(0);
    EXPECT_FALSE(p.Enabled(s)) << SwitchKey(s);
    EXPECT_EQ(p.switches[i], false) << SwitchKey(s);
    EXPECT_TRUE(p.Enabled(Switch::kJobOrder) || s == Switch::kJobOrder) << SwitchKey(s);
  }
}

// A switch left out is on, except enableHierarchy and EnabledClusterOrder.
TEST(ConfigTest, UnsetSwitchDefaults) {
  SchedulerConfig c = ParseOk(OnePlugin("drf"));
  const PluginOption& p = c.tiers.at(0).plugins.at(0);
  for (size_t i = 0; i < static_cast<size_t>(Switch::kCount); ++i) {
    Switch s = static_cast<Switch>(i);
    bool expected = s != Switch::kHierarchy && s != Switch::kClusterOrder;
    EXPECT_EQ(p.Enabled(s), expected) << SwitchKey(s);
    EXPECT_FALSE(p.switches[i].has_value()) << SwitchKey(s);
  }
}

// The two default-off switches turn on when written.
TEST(ConfigTest, DefaultOffSwitchesCanBeTurnedOn) {
  SchedulerConfig c =
      ParseOk(OnePlugin("drf", "    enableHierarchy: true\n    EnabledClusterOrder: true\n"));
  const PluginOption& p = c.tiers.at(0).plugins.at(0);
  EXPECT_TRUE(p.Enabled(Switch::kHierarchy));
  EXPECT_TRUE(p.Enabled(Switch::kClusterOrder));
}

// Switch values are YAML 1.1 booleans, as Volcano's YAML reader resolves them.
TEST(ConfigTest, SwitchValuesAcceptYaml11Booleans) {
  SchedulerConfig c = ParseOk(OnePlugin(
      "gang", "    enableJobReady: no\n    enablePreemptable: Off\n    enableJobOrder: yes\n"));
  const PluginOption& p = c.tiers.at(0).plugins.at(0);
  EXPECT_FALSE(p.Enabled(Switch::kJobReady));
  EXPECT_FALSE(p.Enabled(Switch::kPreemptable));
  EXPECT_TRUE(p.Enabled(Switch::kJobOrder));
}

// Nested argument maps flatten to dotted keys and lists to indexed keys.
TEST(ConfigTest, ArgumentsFlatten) {
  SchedulerConfig c = ParseOk(
      OnePlugin("proportion",
                "    arguments:\n"
                "      podOwnerReferenceToServiceType: {ReplicaSet: inference, Job: training}\n"
                "      binpack.resources: nvidia.com/gpu\n"
                "      list: [a, {b: 1}]\n"
                "      empty:\n"));
  EXPECT_EQ(c.tiers.at(0).plugins.at(0).arguments.values(),
            (std::map<std::string, std::string>{
                {"podOwnerReferenceToServiceType.ReplicaSet", "inference"},
                {"podOwnerReferenceToServiceType.Job", "training"},
                {"binpack.resources", "nvidia.com/gpu"},
                {"list[0]", "a"},
                {"list[1].b", "1"},
                {"empty", ""}}));
}

// `configurations:` gives each action its own arguments.
TEST(ConfigTest, PerActionArguments) {
  SchedulerConfig c = ParseOk(kVolcanoExample);
  const Arguments* preempt = c.ActionArguments("preempt");
  ASSERT_NE(preempt, nullptr);
  EXPECT_EQ(preempt->owner(), "action preempt");
  bool topo = false;
  EXPECT_TRUE(preempt->GetBool("enableTopologyAwarePreemption", &topo).ok());
  EXPECT_TRUE(topo);
  const Arguments* allocate = c.ActionArguments("allocate");
  ASSERT_NE(allocate, nullptr);
  EXPECT_TRUE(allocate->Has("predicateErrorCacheEnable"));
  EXPECT_EQ(c.ActionArguments("reclaim"), nullptr);
}

// The built-in default configuration parses with the documented content.
TEST(ConfigTest, DefaultConfigurationParses) {
  SchedulerConfig c = ParseOk(DefaultSchedulerConfigText());
  EXPECT_EQ(c.actions, (std::vector<std::string>{"enqueue", "allocate", "backfill"}));
  ASSERT_EQ(c.tiers.size(), 2u);
  std::vector<std::string> t1, t2;
  for (const auto& p : c.tiers[0].plugins) t1.push_back(p.name);
  for (const auto& p : c.tiers[1].plugins) t2.push_back(p.name);
  EXPECT_EQ(t1, (std::vector<std::string>{"priority", "gang", "conformance"}));
  EXPECT_EQ(
      t2, (std::vector<std::string>{"overcommit", "drf", "predicates", "proportion", "nodeorder"}));
  for (const auto& tier : c.tiers) {
    for (const auto& p : tier.plugins) EXPECT_TRUE(p.Enabled(Switch::kPreemptable)) << p.name;
  }
}

// drf with enableHierarchy alone is fine; only the combination with proportion fails.
TEST(ConfigTest, DrfHierarchyWithoutProportion) {
  EXPECT_TRUE(ParseOk(OnePlugin("drf", "    enableHierarchy: true\n"))
                  .tiers.at(0)
                  .plugins.at(0)
                  .Enabled(Switch::kHierarchy));
}

// Empty known lists accept any name (tests that register their own plugins).
TEST(ConfigTest, EmptyKnownListsAcceptAnything) {
  Result<SchedulerConfig> r = ParseSchedulerConfig(
      "actions: \"mine\"\ntiers:\n- plugins:\n  - name: custom\n", "c.conf", {}, {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->tiers.at(0).plugins.at(0).name, "custom");
}

// ---- errors ----

// Malformed YAML reports the line and column.
TEST(ConfigErrorTest, MalformedYaml) {
  EXPECT_HAS(ParseError("actions: \"enqueue\"\ntiers:\n- plugins:\n  - name: gang\n   "
                        "enablePreemptable: false\n"),
             "c.conf:5:4: malformed YAML: end of sequence not found");
}

// A top-level field Volcano does not have (here a typo of "actions").
TEST(ConfigErrorTest, UnknownTopLevelField) {
  EXPECT_HAS(ParseError("action: \"enqueue\"\n"),
             "c.conf:1: action: unknown field (want actions, tiers, configurations or metrics)");
}

// actions must be a comma-separated string, and is required.
TEST(ConfigErrorTest, ActionsNotAString) {
  EXPECT_HAS(ParseError("actions: [enqueue, allocate]\n"),
             "c.conf:1: actions: expected a comma-separated string");
  EXPECT_HAS(ParseError("tiers: []\n"), "c.conf: actions: missing");
}

// An unknown action lists the known ones.
TEST(ConfigErrorTest, UnknownAction) {
  EXPECT_EQ(ParseError("\nactions: \"enqueue, alocate\"\n"),
            "c.conf:2: actions: unknown action \"alocate\" (known: allocate, backfill, enqueue, "
            "preempt, reclaim, "
            "shuffle)");
}

// An unknown plugin lists the known ones.
TEST(ConfigErrorTest, UnknownPlugin) {
  EXPECT_EQ(ParseError(OnePlugin("gangs")),
            "c.conf:4: tiers[0].plugins[0].name: unknown plugin \"gangs\" (known: binpack, "
            "conformance, drf, gang, "
            "nodeorder, overcommit, predicates, priority, proportion): not a Volcano v1.15.1 "
            "plugin either (a typo, or a custom plugin basalt cannot load). Remove it from the "
            "configuration, or pass --allow-missing-plugins=gangs to run without it");
}

// A plugin entry needs a name.
TEST(ConfigErrorTest, PluginWithoutName) {
  EXPECT_HAS(ParseError(OnePlugin("gang", "  - enablePreemptable: false\n")),
             "c.conf:5: tiers[0].plugins[1].name: missing");
  EXPECT_HAS(ParseError(OnePlugin("[gang]")), "tiers[0].plugins[0].name: expected a string");
}

// A switch needs a boolean.
TEST(ConfigErrorTest, SwitchNotABoolean) {
  EXPECT_HAS(
      ParseError(OnePlugin("gang", "    enablePreemptable: sometimes\n")),
      "c.conf:5: tiers[0].plugins[0].enablePreemptable: expected true or false, got \"sometimes\"");
  EXPECT_HAS(ParseError(OnePlugin("gang", "    enableJobReady: [true]\n")),
             "tiers[0].plugins[0].enableJobReady: expected true or false, got a non-scalar");
}

// A misspelt switch is an error instead of a silently ignored field.
TEST(ConfigErrorTest, UnknownPluginField) {
  EXPECT_HAS(ParseError(OnePlugin("gang", "    enablePreemtable: false\n")),
             "c.conf:5: tiers[0].plugins[0].enablePreemtable: unknown field (want name, arguments "
             "or a switch");
  // Switch names are case-sensitive: Volcano's capitalised key only.
  EXPECT_HAS(ParseError(OnePlugin("gang", "    enabledClusterOrder: true\n")),
             "tiers[0].plugins[0].enabledClusterOrder: unknown field");
}

// tiers must be a list of mappings with a plugins list.
TEST(ConfigErrorTest, TiersShape) {
  EXPECT_HAS(ParseError("actions: \"allocate\"\ntiers:\n  plugins: []\n"),
             "c.conf:3: tiers: expected a list of tiers");
  EXPECT_HAS(ParseError("actions: \"allocate\"\ntiers:\n- name: gang\n"),
             "c.conf:3: tiers[0].name: unknown field (want plugins)");
  EXPECT_HAS(ParseError("actions: \"allocate\"\ntiers:\n- plugins: gang\n"),
             "c.conf:3: tiers[0].plugins: expected a list");
  EXPECT_HAS(ParseError("actions: \"allocate\"\ntiers:\n- plugins:\n"),
             "c.conf:3: tiers[0].plugins: missing");
}

// drf with enableHierarchy and proportion together is refused, as Volcano does.
TEST(ConfigErrorTest, DrfHierarchyWithProportion) {
  EXPECT_HAS(
      ParseError(
          "actions: \"allocate\"\ntiers:\n- plugins:\n  - name: drf\n    enableHierarchy: true\n"
          "- plugins:\n  - name: proportion\n"),
      "c.conf:3: tiers: drf with enableHierarchy cannot be used together with proportion");
}

// arguments must be a mapping.
TEST(ConfigErrorTest, ArgumentsNotAMapping) {
  EXPECT_HAS(ParseError(OnePlugin("binpack", "    arguments: [1, 2]\n")),
             "c.conf:5: tiers[0].plugins[0].arguments: expected a mapping");
}

// configurations: a list of {name, arguments} naming known actions.
TEST(ConfigErrorTest, ConfigurationsShape) {
  EXPECT_HAS(ParseError("actions: \"allocate\"\nconfigurations: {name: allocate}\n"),
             "c.conf:2: configurations: expected a list");
  EXPECT_HAS(ParseError("actions: \"allocate\"\nconfigurations:\n- name: alocate\n"),
             "c.conf:3: configurations[0].name: unknown action \"alocate\" (known: allocate,");
  EXPECT_HAS(ParseError("actions: \"allocate\"\nconfigurations:\n- arguments: {a: 1}\n"),
             "c.conf:3: configurations[0].name: missing");
  EXPECT_HAS(
      ParseError("actions: \"allocate\"\nconfigurations:\n- name: allocate\n  argument: {a: 1}\n"),
      "c.conf:4: configurations[0].argument: unknown field (want name or arguments)");
  EXPECT_HAS(
      ParseError("actions: \"allocate\"\nconfigurations:\n- name: allocate\n  arguments: 5\n"),
      "c.conf:4: configurations[0].arguments: expected a mapping");
}

// A key written twice (which yaml-cpp would silently resolve to the first) is an error.
TEST(ConfigErrorTest, DuplicateKey) {
  EXPECT_HAS(ParseError("actions: \"enqueue\"\nactions: \"allocate\"\n"),
             "c.conf:2: actions: duplicate key");
  EXPECT_HAS(ParseError(OnePlugin("gang", "    enableJobReady: true\n    enableJobReady: false\n")),
             "c.conf:6: tiers[0].plugins[0].enableJobReady: duplicate key");
}

// An empty file and a non-mapping file are refused.
TEST(ConfigErrorTest, EmptyOrNotAMapping) {
  EXPECT_EQ(ParseError(""), "c.conf: empty scheduler configuration");
  EXPECT_EQ(ParseError("# only a comment\n"), "c.conf: empty scheduler configuration");
  EXPECT_HAS(ParseError("- actions\n"), "c.conf:1: expected a mapping with actions and tiers");
}

// Self-referencing or exploding aliases in arguments are refused, not walked.
TEST(ConfigErrorTest, HostileAliases) {
  EXPECT_HAS(ParseError(OnePlugin("binpack", "    arguments: &a {x: *a}\n")),
             "an alias refers to its own ancestor");
  std::string bomb = "    arguments:\n      l0: &a0 [1,1,1,1,1,1,1,1,1,1]\n";
  for (int i = 1; i < 9; ++i) {
    bomb += "      l" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) bomb += std::string(k ? "," : "") + "*a" + std::to_string(i - 1);
    bomb += "]\n";
  }
  EXPECT_HAS(ParseError(OnePlugin("binpack", bomb)), "document too large");
}

// ---- Arguments getters ----

Arguments Args() {
  Arguments a("plugin binpack");
  a.Set("binpack.weight", "10");
  a.Set("flag", "true");
  a.Set("flag11", "on");
  a.Set("ratio", "1.5");
  a.Set("neg", "-3");
  a.Set("name", "gpu");
  a.Set("bad", "x");
  a.Set("binpack.resources.nvidia.com/gpu", "2");
  a.Set("binpack.resources.example.com/fpga", "3");
  a.Set("nested.a", "1");
  a.Set("listed[0]", "1");
  return a;
}

// Typed getters read well-formed values.
TEST(ArgumentsTest, TypedGetters) {
  Arguments a = Args();
  int64_t i = 0;
  EXPECT_TRUE(a.GetInt("binpack.weight", &i).ok());
  EXPECT_EQ(i, 10);
  EXPECT_TRUE(a.GetInt("neg", &i).ok());
  EXPECT_EQ(i, -3);
  bool b = false;
  EXPECT_TRUE(a.GetBool("flag", &b).ok());
  EXPECT_TRUE(b);
  b = false;
  EXPECT_TRUE(a.GetBool("flag11", &b).ok());
  EXPECT_TRUE(b);
  double d = 0;
  EXPECT_TRUE(a.GetDouble("ratio", &d).ok());
  EXPECT_DOUBLE_EQ(d, 1.5);
  EXPECT_TRUE(a.GetDouble("binpack.weight", &d).ok());  // an integer is a number
  EXPECT_DOUBLE_EQ(d, 10);
  std::string s;
  EXPECT_TRUE(a.GetString("name", &s).ok());
  EXPECT_EQ(s, "gpu");
}

// An absent key leaves the output unchanged and is not an error.
TEST(ArgumentsTest, AbsentKeyKeepsDefault) {
  Arguments a = Args();
  int64_t i = 7;
  double d = 0.5;
  bool b = true;
  std::string s = "dflt";
  EXPECT_TRUE(a.GetInt("missing", &i).ok());
  EXPECT_TRUE(a.GetDouble("missing", &d).ok());
  EXPECT_TRUE(a.GetBool("missing", &b).ok());
  EXPECT_TRUE(a.GetString("missing", &s).ok());
  EXPECT_EQ(i, 7);
  EXPECT_EQ(d, 0.5);
  EXPECT_TRUE(b);
  EXPECT_EQ(s, "dflt");
  EXPECT_FALSE(a.Has("missing"));
  EXPECT_TRUE(a.Has("bad"));
}

// A wrong type names the plugin and the key, and leaves the output unchanged.
TEST(ArgumentsTest, WrongTypeNamesPluginAndKey) {
  Arguments a = Args();
  a.Set("binpack.weight", "x");
  int64_t i = 1;
  Status st = a.GetInt("binpack.weight", &i);
  EXPECT_EQ(st.message(),
            "plugin binpack: arguments.binpack.weight: expected an integer, got \"x\"");
  EXPECT_EQ(i, 1);
  bool b = false;
  EXPECT_EQ(a.GetBool("bad", &b).message(),
            "plugin binpack: arguments.bad: expected true or false, got \"x\"");
  double d = 0;
  EXPECT_EQ(a.GetDouble("bad", &d).message(),
            "plugin binpack: arguments.bad: expected a number, got \"x\"");
}

// Integers are decimal int64 only.
TEST(ArgumentsTest, IntRejectsNonIntegers) {
  Arguments a("action allocate");
  for (const char* v : {"1.5", " 5", "5 ", "0x10", "1e3", "", "99999999999999999999", "--1"}) {
    a.Set("k", v);
    int64_t i = 0;
    EXPECT_FALSE(a.GetInt("k", &i).ok()) << "\"" << v << "\"";
  }
}

// Doubles are finite decimal numbers.
TEST(ArgumentsTest, DoubleRejectsNonNumbers) {
  Arguments a("plugin overcommit");
  for (const char* v : {"abc", "inf", "-inf", "nan", "0x10", "", " 1", "1e999", "1.5x"}) {
    a.Set("k", v);
    double d = 0;
    EXPECT_FALSE(a.GetDouble("k", &d).ok()) << "\"" << v << "\"";
  }
  a.Set("k", "-2e3");
  double d = 0;
  EXPECT_TRUE(a.GetDouble("k", &d).ok());
  EXPECT_DOUBLE_EQ(d, -2000);
}

// A key given as a nested object or list is the wrong type for every getter.
TEST(ArgumentsTest, NestedValueIsATypeError) {
  Arguments a = Args();
  double d = 0;
  EXPECT_EQ(a.GetDouble("nested", &d).message(),
            "plugin binpack: arguments.nested: expected a number, got an object");
  int64_t i = 0;
  EXPECT_EQ(a.GetInt("listed", &i).message(),
            "plugin binpack: arguments.listed: expected an integer, got a list");
  std::string s;
  EXPECT_FALSE(a.GetString("nested", &s).ok());
  bool b = false;
  EXPECT_FALSE(a.GetBool("listed", &b).ok());
}

// WithPrefix returns the keys under a prefix with the prefix removed.
TEST(ArgumentsTest, WithPrefix) {
  Arguments a = Args();
  EXPECT_EQ(
      a.WithPrefix("binpack.resources."),
      (std::map<std::string, std::string>{{"example.com/fpga", "3"}, {"nvidia.com/gpu", "2"}}));
  EXPECT_TRUE(a.WithPrefix("nothing.").empty());
}

// ---- lenient reading (schedule, simulate, serve without --strict) ----

// Sets the process-wide mode for one test and restores strict reading after it.
class LenientConfig {
 public:
  LenientConfig() { SetLenientSchedulerConfig(true); }
  ~LenientConfig() { SetLenientSchedulerConfig(false); }
};

// What a plugin asks for while it is built is recorded (copies share the
// record), so a key given but never asked for is a typo to warn about.
TEST(ArgumentsTest, UnreadKeysAreTheOnesNeverAskedFor) {
  Arguments a("plugin binpack");
  a.Set("binpack.weight", "2");
  a.Set("binpack.wieght", "3");
  a.Set("binpack.resources.nvidia.com/gpu", "5");
  a.Set("nested.a", "1");
  const Arguments copy = a;
  int64_t w = 0;
  EXPECT_TRUE(copy.GetInt("binpack.weight", &w).ok());
  EXPECT_TRUE(copy.GetInt("binpack.cpu", &w).ok());  // absent, still asked for
  copy.WithPrefix("binpack.resources.");
  EXPECT_FALSE(copy.Has("nested"));  // "nested.a" is read with its parent
  EXPECT_EQ(a.UnreadKeys(), std::vector<std::string>{"binpack.wieght"});
  EXPECT_EQ(a.AskedFor(), (std::vector<std::string>{"binpack.cpu", "binpack.weight", "nested",
                                                    "binpack.resources.*"}));
  a.MarkAllRead();
  EXPECT_TRUE(a.UnreadKeys().empty());
}

// Unlike Volcano, a plugin basalt does not have is refused even when reading
// leniently: every missing name is listed, each with its line, and a Volcano
// plugin is told apart from a typo.
TEST(LenientConfigTest, MissingPluginIsRefused) {
  LenientConfig lenient;
  const std::string msg = ParseError(
      "actions: \"allocate\"\ntiers:\n- plugins:\n  - name: gangs\n  - name: priority\n"
      "  - name: volcano-custom\n");
  EXPECT_HAS(msg, "c.conf:4: tiers[0].plugins[0].name: unknown plugin \"gangs\" (known: ");
  EXPECT_HAS(msg, "not a Volcano v1.15.1 plugin either");
  EXPECT_HAS(msg, "pass --allow-missing-plugins=gangs to run without it");
  EXPECT_HAS(msg, "\nc.conf:6: tiers[0].plugins[2].name: unknown plugin \"volcano-custom\"");
}

// Only the names the command was told to do without are skipped; the others stay.
TEST(LenientConfigTest, AllowedMissingPluginIsSkipped) {
  for (bool lenient : {true, false}) {
    SetLenientSchedulerConfig(lenient);
    SetAllowedMissingPlugins({"gangs"});
    SchedulerConfig c =
        ParseOk("actions: \"allocate\"\ntiers:\n- plugins:\n  - name: gangs\n  - name: priority\n");
    ASSERT_EQ(c.tiers.size(), 1u);
    ASSERT_EQ(c.tiers[0].plugins.size(), 1u);
    EXPECT_EQ(c.tiers[0].plugins[0].name, "priority");
    EXPECT_HAS(ParseError(OnePlugin("gangz")), "--allow-missing-plugins=gangz");
  }
  SetAllowedMissingPlugins({});
  SetLenientSchedulerConfig(false);
}

// Volcano's own plugin list is what tells a missing Volcano plugin from a typo.
TEST(LenientConfigTest, VolcanoPluginNamesAreSortedAndComplete) {
  const std::vector<std::string>& names = VolcanoPluginNames();
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_EQ(names.size(), 24u);
  EXPECT_TRUE(std::binary_search(names.begin(), names.end(), "pdb"));
  EXPECT_FALSE(std::binary_search(names.begin(), names.end(), "fgd"));
}

// A wrong type keeps the default and is Ok in lenient mode; strict mode (the
// default, and `validate` / --strict) keeps the error naming plugin and key.
TEST(LenientConfigTest, WrongTypeKeepsTheDefault) {
  const std::string text = OnePlugin("nodeorder",
                                     "    arguments:\n      mostrequested.weight: 1.5\n"
                                     "      flag: maybe\n      factor: true\n      list: [1]\n");
  {
    LenientConfig lenient;
    SchedulerConfig c = ParseOk(text);
    const Arguments& a = c.tiers[0].plugins[0].arguments;
    EXPECT_TRUE(a.lenient());
    int64_t w = 1;
    EXPECT_TRUE(a.GetInt("mostrequested.weight", &w).ok());
    EXPECT_EQ(w, 1);
    bool b = true;
    EXPECT_TRUE(a.GetBool("flag", &b).ok());
    EXPECT_TRUE(b);
    double f = 1.2;
    EXPECT_TRUE(a.GetDouble("factor", &f).ok());
    EXPECT_DOUBLE_EQ(f, 1.2);
    int64_t l = 4;
    EXPECT_TRUE(a.GetInt("list", &l).ok());
    EXPECT_EQ(l, 4);
  }
  SchedulerConfig c = ParseOk(text);
  const Arguments& a = c.tiers[0].plugins[0].arguments;
  EXPECT_FALSE(a.lenient());
  int64_t w = 1;
  // Strict, the error starts with the argument's line.
  EXPECT_EQ(a.GetInt("mostrequested.weight", &w).message(),
            "c.conf:6: plugin nodeorder: arguments.mostrequested.weight: expected an integer, "
            "got \"1.5\"");
  double f = 1.2;
  EXPECT_FALSE(a.GetDouble("factor", &f).ok());
  int64_t l = 4;
  EXPECT_FALSE(a.GetInt("list", &l).ok());
}

// Strict mode keeps refusing an unknown plugin.
TEST(LenientConfigTest, StrictRefusesUnknownPlugin) {
  { LenientConfig lenient; }  // restored to strict
  EXPECT_HAS(ParseError(OnePlugin("gangs")), "unknown plugin \"gangs\"");
}

// `Invalid` for a value the caller cannot use: the caller's error in strict
// mode, Ok in lenient mode; arguments parsed from a file know their line.
TEST(LenientConfigTest, InvalidValue) {
  Arguments a("plugin sla");
  a.Set("sla-waiting-time", "1");
  a.SetLocation("sla-waiting-time", "conf.yaml:7");
  const Status bad = Status::InvalidArgument("plugin sla: arguments.sla-waiting-time: bad");
  EXPECT_EQ(a.Invalid("sla-waiting-time", bad, "(none)").message(),
            "conf.yaml:7: " + bad.message());
  a.SetLenient(true);
  EXPECT_TRUE(a.Invalid("sla-waiting-time", bad, "(none)").ok());
}

}  // namespace
}  // namespace basalt
