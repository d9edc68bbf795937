// What the webhook tests share: a lookup the test sets, a self-signed
// certificate for 127.0.0.1.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "api/decode.h"
#include "live/admission_review.h"

namespace basalt {

// Queues and namespaces the tests set; thread-safe as the server needs.
class FakeLookup : public AdmissionLookup {
 public:
  void SetQueues(const std::string& yaml) {
    ClusterObjects objs;
    Status s = DecodeText(yaml, "cluster.yaml", &objs);
    ASSERT_TRUE(s.ok()) << s.message();
    std::lock_guard<std::mutex> lock(mu_);
    queues_ = objs.queues;
  }
  void SetHyperNodes(const std::string& yaml) {
    ClusterObjects objs;
    Status s = DecodeText(yaml, "cluster.yaml", &objs);
    ASSERT_TRUE(s.ok()) << s.message();
    std::lock_guard<std::mutex> lock(mu_);
    hypernodes_ = objs.hypernodes;
  }
  void SetNamespace(const std::string& ns, std::map<std::string, std::string> annotations) {
    std::lock_guard<std::mutex> lock(mu_);
    namespaces_[ns] = std::move(annotations);
  }
  void Fail(bool fail) {
    std::lock_guard<std::mutex> lock(mu_);
    fail_ = fail;
  }
  Result<std::vector<Queue>> Queues() override {
    std::lock_guard<std::mutex> lock(mu_);
    if (fail_) return Status::Unavailable("GET queues: 503 Service Unavailable");
    return queues_;
  }
  std::optional<std::map<std::string, std::string>> NamespaceAnnotations(
      const std::string& ns) override {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = namespaces_.find(ns);
    if (it == namespaces_.end()) return std::nullopt;
    return it->second;
  }
  Result<std::vector<HyperNode>> HyperNodes() override {
    std::lock_guard<std::mutex> lock(mu_);
    if (fail_) return Status::Unavailable("GET hypernodes: 503 Service Unavailable");
    return hypernodes_;
  }

 private:
  std::mutex mu_;
  std::vector<Queue> queues_;
  std::vector<HyperNode> hypernodes_;
  std::map<std::string, std::map<std::string, std::string>> namespaces_;
  bool fail_ = false;
};

// A self-signed certificate for 127.0.0.1 with common name `cn`.
inline void MakeCert(const std::filesystem::path& dir, const std::string& cn,
                     const std::string& crt, const std::string& key) {
  const std::string cmd =
      "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 "
      "-nodes -days 2 -subj /CN=" +
      cn + " -addext subjectAltName=IP:127.0.0.1 -keyout '" + (dir / key).string() + "' -out '" +
      (dir / crt).string() + "' >/dev/null 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
}

}  // namespace basalt
