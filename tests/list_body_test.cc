// A LIST reply parsed by simdjson (kube/list_body.h) must be the value
// nlohmann's parser makes of it, but for the managedFields of Pod and Node
// items; what nlohmann refuses stays refused.
#include "kube/list_body.h"

#include <gtest/gtest.h>

#include <string>

namespace basalt::kube {
namespace {

using Json = nlohmann::json;

Json Nlohmann(const std::string& text) { return Json::parse(text, nullptr, false); }

// nlohmann's value, with the type of every number compared too (== would
// call 1 and 1u equal).
void ExpectIdentical(const Json& got, const Json& want) {
  ASSERT_EQ(got.type(), want.type()) << got.dump() << " vs " << want.dump();
  if (got.is_object()) {
    ASSERT_EQ(got.size(), want.size()) << got.dump() << " vs " << want.dump();
    for (auto it = want.begin(); it != want.end(); ++it) {
      ASSERT_TRUE(got.contains(it.key())) << it.key();
      ExpectIdentical(got[it.key()], it.value());
    }
  } else if (got.is_array()) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) ExpectIdentical(got[i], want[i]);
  } else {
    EXPECT_EQ(got, want);
  }
}

TEST(ListBodyTest, ReadsAsNlohmannDoes) {
  const char* bodies[] = {
      R"({"kind": "QueueList", "apiVersion": "scheduling.volcano.sh/v1beta1",
          "metadata": {"resourceVersion": "12", "continue": ""},
          "items": [{"metadata": {"name": "q", "managedFields": [{"manager": "m"}]},
                     "spec": {"weight": 3, "capability": {"cpu": 2.5}, "neg": -4,
                              "big": 18446744073709551615, "small": -9223372036854775808,
                              "flags": [true, false, null], "esc": "a\"b\\u00e9\n",
                              "exp": 1e3, "nested": {"a": [[], {}]}}}]})",
      R"({"kind": "Status", "code": 410, "dup": 1, "dup": 2})",
      R"({"items": null})",
      R"({})",
      R"(  {"kind": "PodList", "items": []}  )",
  };
  for (const char* body : bodies) {
    SCOPED_TRACE(body);
    ExpectIdentical(ParseListBody(body), Nlohmann(body));
  }
}

TEST(ListBodyTest, PodAndNodeItemsLoseManagedFieldsOnly) {
  for (const char* kind : {"PodList", "NodeList"}) {
    Json list = Json::parse(R"({
      "apiVersion": "v1",
      "metadata": {"resourceVersion": "5", "managedFields": "kept: not an item"},
      "items": [{"metadata": {"name": "a", "managedFields": [{"manager": "kubelet"}],
                              "labels": {"managedFields": "kept: not metadata's own"}},
                 "spec": {"managedFields": "kept: not in metadata"}}]})");
    list["kind"] = kind;
    Json want = list;
    want["items"][0]["metadata"].erase("managedFields");
    ExpectIdentical(ParseListBody(list.dump()), want);
  }
}

TEST(ListBodyTest, WhatNlohmannRefusesIsRefused) {
  for (const char* body : {"", "{", "[1, 2]", "\"text\"", "{\"a\": 1} trailing", "{\"a\": 01}",
                           "{\"n\": 123456789012345678901234567890}"}) {
    SCOPED_TRACE(body);
    Json want = Nlohmann(body);
    Json got = ParseListBody(body);
    EXPECT_EQ(got.type(), want.type());
    if (!want.is_discarded()) ExpectIdentical(got, want);
  }
}

}  // namespace
}  // namespace basalt::kube
