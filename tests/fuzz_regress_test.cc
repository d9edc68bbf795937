// Inputs the fuzzers (fuzz/, docs/reliability.md) found, each kept as a unit
// test of the parser it hit: the input inline and the message expected. A new
// finding goes here, and into fuzz/seeds/<target>/ so the fuzzer re-runs it.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "api/decode.h"
#include "state/cluster_state.h"

namespace basalt {
namespace {

// Decodes `text`, which must fail, and returns the message.
std::string DecodeFailure(const std::string& text) {
  ClusterObjects objects;
  Status st = DecodeText(text, "f.yaml", &objects);
  EXPECT_FALSE(st.ok()) << "decoded without error:\n" << text;
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  return st.message();
}

// fuzz_manifest, timeout (2026-11-22): a JSON Pod from the kube fixtures
// followed by a ',' made yaml-cpp 0.7's LoadAll loop for ever, adding one empty
// document per turn until memory ran out. Now a clear error at the ','.
TEST(FuzzRegressTest, TextAfterAFlowCollectionEndsTheParse) {
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(DecodeFailure("{},"),
            "f.yaml:1:3: malformed YAML/JSON: unexpected \",\" after the end of a document");
  EXPECT_EQ(DecodeFailure("{\"\":{}},"),
            "f.yaml:1:8: malformed YAML/JSON: unexpected \",\" after the end of a document");
  EXPECT_EQ(DecodeFailure("[1]\n,\n"),
            "f.yaml:2:1: malformed YAML/JSON: unexpected \",\" after the end of a document");
  EXPECT_EQ(DecodeFailure(
                "{\"kind\": \"Pod\", \"apiVersion\": \"v1\", \"metadata\": {\"name\": \"p\"}},\n"),
            "f.yaml:1:63: malformed YAML/JSON: unexpected \",\" after the end of a document");
  // In a later document: the line is that document's.
  EXPECT_EQ(DecodeFailure("apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\n{b: 1},\n"),
            "f.yaml:5:7: malformed YAML/JSON: unexpected \",\" after the end of a document");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

// The progress check leaves well-formed streams alone: empty documents, "...",
// several documents, a JSON object, a flow sequence of objects.
TEST(FuzzRegressTest, WellFormedStreamsStillDecode) {
  const std::string a = "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n";
  const std::string b = "apiVersion: v1\nkind: Namespace\nmetadata: {name: b}\n";
  const std::string json =
      "{\"apiVersion\": \"v1\", \"kind\": \"Namespace\", \"metadata\": {\"name\": \"a\"}}\n";
  const std::vector<std::pair<std::string, size_t>> cases = {
      {"---\n---\n" + a + "---\n---\n", 1},
      {a + "...\n---\n" + b, 2},
      {a + "---\n" + b + "---\n", 2},
      {json, 1},
      {"", 0},
      {"---\n", 0},
  };
  for (const auto& [text, namespaces] : cases) {
    ClusterObjects objects;
    Status st = DecodeText(text, "f.yaml", &objects);
    EXPECT_TRUE(st.ok()) << st.ToString() << "\n" << text;
    EXPECT_EQ(objects.namespaces.size(), namespaces) << text;
  }
}

}  // namespace
}  // namespace basalt
