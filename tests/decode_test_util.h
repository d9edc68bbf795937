// Helpers shared by the decoding tests (decode_test.cc: the object model from
// good input; decode_errors_test.cc: messages for bad input).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "api/decode.h"

namespace basalt::decode_test {

// Raw-string manifests start with a newline for readability; drop it so that the
// first line of the text is line 1.
inline std::string Y(const char* text) {
  std::string s(text);
  if (!s.empty() && s[0] == '\n') s.erase(0, 1);
  return s;
}

inline ClusterObjects DecodeOk(const std::string& text, const std::string& file = "c.yaml") {
  ClusterObjects objs;
  Status st = DecodeText(text, file, &objs);
  EXPECT_TRUE(st.ok()) << st.message();
  return objs;
}

inline std::string DecodeError(const std::string& text, const std::string& file = "c.yaml") {
  ClusterObjects objs;
  Status st = DecodeText(text, file, &objs);
  EXPECT_FALSE(st.ok()) << "decoded without error:\n" << text;
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  return st.message();
}

#define EXPECT_HAS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "message: " << (haystack)

// A pod whose only container requests `requests` (flow-style YAML map body).
inline std::string PodRequesting(const std::string& requests) {
  return "apiVersion: v1\nkind: Pod\nmetadata: {name: p1, namespace: default}\n"
         "spec:\n  containers:\n  - name: c\n    resources:\n      requests: {" +
         requests + "}\n";
}

inline std::string NodeWith(const std::string& status) {
  return "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: " + status + "\n";
}

inline std::string QueueWith(const std::string& spec) {
  return "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: q1}\nspec: " +
         spec + "\n";
}

inline std::string PodGroupWith(const std::string& spec) {
  return "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {name: pg, "
         "namespace: default}\n"
         "spec: " +
         spec + "\n";
}

inline std::string PodWithSpec(const std::string& spec_body) {
  return "apiVersion: v1\nkind: Pod\nmetadata: {name: p1, namespace: default}\nspec: " + spec_body +
         "\n";
}

inline const char* kPodPrefix = "c.yaml:1: Pod default/p1: ";

}  // namespace basalt::decode_test
