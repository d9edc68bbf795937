// The watch-stream line decoder (kube/watch_line.h): every recorded watch line
// decodes, and each kind of bad line gives its own error (the fuzz target
// fuzz/watch_line_fuzz.cc covers the bytes no test thought of).
#include "kube/watch_line.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "kube_fake_server.h"

namespace basalt::kube {
namespace {

using basalt::testing::ReadFixtureText;

std::string ErrorOf(std::string_view line) {
  auto r = DecodeWatchLine(line);
  EXPECT_FALSE(r.ok()) << line;
  return r.ok() ? "" : r.status().message();
}

TEST(WatchLineTest, RecordedStreamsDecodeLineByLine) {
  struct Want {
    const char* fixture;
    std::vector<WatchEventType> types;
    std::string last_rv;
  };
  using T = WatchEventType;
  for (const Want& w : {Want{"watch-pods-too-old-rv-error-event", {T::kError}, ""},
                        Want{"watch-events-compacted-error-event", {T::kError}, ""},
                        Want{"watch-pods-bookmarks",
                             {T::kAdded, T::kModified, T::kModified, T::kModified, T::kDeleted,
                              T::kBookmark, T::kBookmark},
                             "279"}}) {
    nlohmann::json fx = nlohmann::json::parse(ReadFixtureText(w.fixture));
    std::vector<WatchEventType> types;
    std::string last_rv;
    for (const auto& line : fx["response"]["body_lines"]) {
      auto r = DecodeWatchLine(line.get<std::string>());
      ASSERT_TRUE(r.ok()) << w.fixture << ": " << r.status().message();
      ASSERT_TRUE(r->has_value());
      types.push_back((*r)->type);
      if (!(*r)->resource_version.empty()) last_rv = (*r)->resource_version;
      EXPECT_TRUE((*r)->object.is_object());
    }
    EXPECT_EQ(types, w.types) << w.fixture;
    EXPECT_EQ(last_rv, w.last_rv) << w.fixture;
  }
  // Bookmark streams: every line decodes, the object's resourceVersion is kept.
  for (const char* name :
       {"watch-pods-bookmarks", "watch-podgroups-bookmarks", "watch-podgroups-rv0-initial"}) {
    nlohmann::json fx = nlohmann::json::parse(ReadFixtureText(name));
    int events = 0;
    for (const auto& line : fx["response"]["body_lines"]) {
      auto r = DecodeWatchLine(line.get<std::string>());
      ASSERT_TRUE(r.ok()) << name << ": " << r.status().message();
      ASSERT_TRUE(r->has_value()) << name;
      EXPECT_EQ((*r)->resource_version,
                nlohmann::json::parse(line.get<std::string>())["object"]["metadata"].value(
                    "resourceVersion", ""))
          << name;
      ++events;
    }
    EXPECT_GT(events, 0) << name;
  }
}

TEST(WatchLineTest, EventFields) {
  auto r = DecodeWatchLine(
      R"({"type":"MODIFIED","object":{"kind":"Pod","metadata":{"name":"p","resourceVersion":"42"}}})"
      "\r");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(r->has_value());
  EXPECT_EQ((*r)->type, WatchEventType::kModified);
  EXPECT_EQ((*r)->resource_version, "42");
  EXPECT_EQ((*r)->object["metadata"]["name"], "p");
  // A non-string resourceVersion is not one (the informer keeps the last good RV).
  r = DecodeWatchLine(R"({"type":"DELETED","object":{"metadata":{"resourceVersion":42}}})");
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ((*r)->type, WatchEventType::kDeleted);
  EXPECT_EQ((*r)->resource_version, "");
}

TEST(WatchLineTest, BlankLinesAreKeepAlives) {
  for (std::string_view line : {"", "\r", "   ", " \r \r"}) {
    auto r = DecodeWatchLine(line);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_FALSE(r->has_value());
  }
}

TEST(WatchLineTest, ErrorsNameTheProblem) {
  EXPECT_EQ(ErrorOf(R"({"type":"ADDED","object":)"),
            R"(malformed watch event: {"type":"ADDED","object":)");
  EXPECT_EQ(ErrorOf("<html>"), "malformed watch event: <html>");
  EXPECT_EQ(ErrorOf("[1,2]"), "malformed watch event: [1,2]");
  EXPECT_EQ(ErrorOf(R"({"object":{}})"), R"(malformed watch event: {"object":{}})");
  EXPECT_EQ(ErrorOf(R"({"type":"","object":{}})"),
            R"(malformed watch event: {"type":"","object":{}})");
  EXPECT_EQ(ErrorOf(R"({"type":1,"object":{}})"),
            R"(malformed watch event: {"type":1,"object":{}})");
  EXPECT_EQ(ErrorOf(R"({"type":"ADDED","object":[]})"),
            R"(malformed watch event: {"type":"ADDED","object":[]})");
  EXPECT_EQ(ErrorOf(R"({"type":"ADDED"})"), R"(malformed watch event: {"type":"ADDED"})");
  EXPECT_EQ(ErrorOf(R"({"type":"RESYNC","object":{}})"), "unknown watch event type \"RESYNC\"");
  // The excerpt stops at 120 bytes, whatever the line's length.
  std::string long_line = "x" + std::string(1000, 'y');
  EXPECT_EQ(ErrorOf(long_line), "malformed watch event: " + long_line.substr(0, 120));
}

TEST(WatchLineTest, OversizedLineIsRefusedBeforeParsing) {
  std::string huge(kMaxWatchLine + 1, ' ');
  EXPECT_EQ(ErrorOf(huge), "watch event larger than 64 MiB");
}

}  // namespace
}  // namespace basalt::kube
