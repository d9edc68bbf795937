// The status writer: the newest word per object, each sent once, after binds.
#include "live/status_writer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>

#include "kube/metrics.h"
#include "kube_fake_server.h"

namespace basalt {
namespace {

using testing::FakeKubeServer;
using testing::FakeRequest;
using testing::FakeResponder;

constexpr auto kWait = std::chrono::milliseconds(5000);

class StatusWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.Start([this](const FakeRequest&, FakeResponder& out) {
      int code = next_code_.exchange(200);
      out.Respond(code,
                  code == 200 ? "{}" : R"({"kind":"Status","code":)" + std::to_string(code) + "}");
    }));
    kube::ClientOptions opt;
    opt.server = server_.url();
    client_ = std::make_unique<kube::Client>(
        opt, std::make_unique<kube::CurlTransport>(kube::CurlOptions{}));
    writer_ = std::make_unique<StatusWriter>(client_.get(), &metrics_, 2,
                                             [this] { return binds_waiting_.load(); });
  }
  void TearDown() override {
    writer_->Stop(kWait);
    server_.Stop();
  }
  static StatusWrite Says(const std::string& text) {
    return StatusWrite{"/apis/x/v1/namespaces/ns/things/a/status",
                       nlohmann::json{{"status", {{"say", text}}}}, "application/merge-patch+json",
                       text, ""};
  }
  size_t Patches() {
    return server_.CountRequests("PATCH", "/apis/x/v1/namespaces/ns/things/a/status");
  }

  FakeKubeServer server_;
  kube::Metrics metrics_;
  std::unique_ptr<kube::Client> client_;
  std::unique_ptr<StatusWriter> writer_;
  std::atomic<bool> binds_waiting_{false};
  std::atomic<int> next_code_{200};
};

TEST_F(StatusWriterTest, AWordReplacedBeforeItIsSentIsNeverSent) {
  binds_waiting_ = true;  // holds the writes back
  EXPECT_TRUE(writer_->Put("Thing/ns/a", Says("pending")));
  EXPECT_TRUE(writer_->Put("Thing/ns/a", Says("running")));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(Patches(), 0u);  // binds first
  binds_waiting_ = false;
  ASSERT_TRUE(writer_->WaitIdle(kWait));
  ASSERT_EQ(Patches(), 1u);
  EXPECT_EQ(nlohmann::json::parse(server_.requests()[0].body)["status"]["say"], "running");
}

TEST_F(StatusWriterTest, WhatTheServerSaysAlreadyIsNotSent) {
  EXPECT_TRUE(writer_->Put("Thing/ns/a", Says("running")));
  ASSERT_TRUE(writer_->WaitIdle(kWait));
  EXPECT_FALSE(writer_->Put("Thing/ns/a", Says("running")));
  writer_->Known("Thing/ns/a", "done");  // seen by an informer
  EXPECT_FALSE(writer_->Put("Thing/ns/a", Says("done")));
  ASSERT_TRUE(writer_->WaitIdle(kWait));
  EXPECT_EQ(Patches(), 1u);
}

TEST_F(StatusWriterTest, AForgottenWordIsDroppedAndMaySayAgain) {
  binds_waiting_ = true;
  writer_->Put("Thing/ns/a", Says("unschedulable"));
  writer_->Forget("Thing/ns/a");  // the pod was bound meanwhile
  binds_waiting_ = false;
  ASSERT_TRUE(writer_->WaitIdle(kWait));
  EXPECT_EQ(Patches(), 0u);
  writer_->Put("Thing/ns/a", Says("unschedulable"));
  ASSERT_TRUE(writer_->WaitIdle(kWait));
  writer_->Forget("Thing/ns/a");
  EXPECT_TRUE(writer_->Put("Thing/ns/a", Says("unschedulable")));  // memory gone too
  ASSERT_TRUE(writer_->WaitIdle(kWait));
  EXPECT_EQ(Patches(), 2u);
}

TEST_F(StatusWriterTest, AFailedWriteIsSentAgainWhenStatedAgain) {
  next_code_ = 403;
  writer_->Put("Thing/ns/a", Says("running"));
  ASSERT_TRUE(writer_->WaitIdle(kWait));
  EXPECT_TRUE(writer_->Put("Thing/ns/a", Says("running")));
  ASSERT_TRUE(writer_->WaitIdle(kWait));
  EXPECT_EQ(Patches(), 2u);
  EXPECT_FALSE(writer_->Put("Thing/ns/a", Says("running")));
}

TEST_F(StatusWriterTest, StopDropsWhatWasNotSent) {
  binds_waiting_ = true;
  writer_->Put("Thing/ns/a", Says("running"));
  writer_->Stop(std::chrono::milliseconds(0));
  EXPECT_EQ(Patches(), 0u);
  EXPECT_FALSE(writer_->Put("Thing/ns/a", Says("done")));
}

}  // namespace
}  // namespace basalt
