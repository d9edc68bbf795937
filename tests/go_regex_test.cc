// HyperNode regexMatch patterns (api/go_regex.h): Go's syntax, Go's
// unanchored MatchString, Go's refusals, and matching in linear time.
#include "api/go_regex.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "api/hypernode.h"

namespace basalt {
namespace {

bool Matches(const std::string& pattern, const std::string& text) {
  Result<GoRegex> re = GoRegex::Compile(pattern);
  EXPECT_TRUE(re.ok()) << pattern << ": " << re.status().message();
  return re.ok() && re->Search(text);
}

std::string Refusal(const std::string& pattern) {
  Result<GoRegex> re = GoRegex::Compile(pattern);
  EXPECT_FALSE(re.ok()) << pattern << " compiled";
  return re.ok() ? "" : re.status().message();
}

// Runs `match` on another thread and returns its answer, or nullopt when it
// has not answered within `limit` (the thread is then left behind: a
// backtracking engine would keep it busy for minutes).
std::optional<bool> WithinLimit(std::function<bool()> match, std::chrono::seconds limit) {
  auto done = std::make_shared<std::promise<bool>>();
  std::future<bool> answer = done->get_future();
  std::thread([done, match = std::move(match)] { done->set_value(match()); }).detach();
  if (answer.wait_for(limit) != std::future_status::ready) return std::nullopt;
  return answer.get();
}

// Go's Regexp.MatchString looks for the pattern anywhere; anchors anchor.
TEST(GoRegexTest, SearchesUnanchoredAsGoMatchString) {
  EXPECT_TRUE(Matches("r1-", "spine-r1-node3"));
  EXPECT_FALSE(Matches("^r1-", "spine-r1-node3"));
  EXPECT_TRUE(Matches("^r1-", "r1-node3"));
  EXPECT_TRUE(Matches("node[0-9]$", "r1-node3"));
  EXPECT_FALSE(Matches("^node[0-9]$", "r1-node3"));
  EXPECT_TRUE(Matches("a|b", "xbx"));
  EXPECT_TRUE(Matches("", "anything"));
}

// What Go's syntax has and ECMAScript (std::regex) had not, or read otherwise.
TEST(GoRegexTest, GoSyntax) {
  EXPECT_TRUE(Matches("(?i)^R1-", "r1-a"));
  EXPECT_TRUE(Matches("^(?P<rack>r[0-9]+)-", "r12-a"));
  EXPECT_TRUE(Matches("^(?<rack>r[0-9]+)-", "r12-a"));  // Go 1.22's form
  EXPECT_TRUE(Matches("^\\Qa.b\\E$", "a.b"));
  EXPECT_FALSE(Matches("^\\Qa.b\\E$", "axb"));
  EXPECT_TRUE(Matches("^[[:alpha:]]+\\d\\z", "gpu7"));
  EXPECT_TRUE(Matches("\\pL", "x"));
  EXPECT_TRUE(Matches("^[^]a]$", "b"));  // a leading ] is literal
  EXPECT_TRUE(Matches("(?U)^a+", "aaa"));
  EXPECT_FALSE(Matches("^\\(?<x>a\\)$", "x"));  // an escaped ( opens no group
}

// Each refused by Go's regexp.Compile (checked against Go 1.26), with its reason.
TEST(GoRegexTest, RefusesWhatGoRefuses) {
  EXPECT_EQ(Refusal("\\C"), "invalid escape sequence: `\\C`");
  EXPECT_EQ(Refusal("[\\C]"), "invalid escape sequence: `\\C`");
  EXPECT_EQ(Refusal("(?<é>a)"), "invalid named capture: `(?<é>`");
  EXPECT_EQ(Refusal("(?P<x-y>a)"), "invalid named capture: `(?P<x-y>`");
  EXPECT_EQ(Refusal("(?<>a)"), "invalid named capture: `(?<>`");
  EXPECT_EQ(Refusal(std::string(1000, '(') + "a" + std::string(1000, ')')),
            "expression nests too deeply");
  EXPECT_TRUE(Matches(std::string(999, '(') + "a" + std::string(999, ')'), "a"));
  EXPECT_NE(Refusal("(?=a)"), "");  // no lookaround
  EXPECT_NE(Refusal("(?<=a)b"), "");
  EXPECT_NE(Refusal("(a)\\1"), "");  // no backreferences
  EXPECT_NE(Refusal("a**"), "");
  EXPECT_NE(Refusal("a{1001}"), "");
  EXPECT_NE(Refusal("[z-a]"), "");
  EXPECT_NE(Refusal("(?x)a b"), "");
  EXPECT_NE(Refusal("\\Z"), "");
  EXPECT_NE(Refusal("(["), "");
  EXPECT_NE(Refusal("a\\"), "");
}

// `(a+)+$` against a 41-character name that does not match: exponential
// for a backtracking engine (std::regex ran for minutes), linear here.
TEST(GoRegexTest, PathologicalPatternAnswersQuickly) {
  const std::string name = std::string(40, 'a') + "1";
  ASSERT_EQ(name.size(), 41u);
  Result<GoRegex> re = GoRegex::Compile("(a+)+$");
  ASSERT_TRUE(re.ok());
  GoRegex compiled = *re;
  std::optional<bool> answer =
      WithinLimit([compiled, name] { return compiled.Search(name); }, std::chrono::seconds(5));
  ASSERT_TRUE(answer.has_value()) << "no answer within 5 s";
  EXPECT_FALSE(*answer);
  EXPECT_TRUE(compiled.Search(std::string(40, 'a')));
}

// The same through a HyperNode member, as the session's tree resolves it.
TEST(GoRegexTest, HyperNodeMemberMatchesInLinearTime) {
  HyperNodeMember member;
  member.regex = "^(a|aa)+$";
  Node node;
  node.meta.name = std::string(40, 'a') + "1";
  std::optional<bool> answer = WithinLimit(
      [member, node] { return MemberMatchesNode(member, node); }, std::chrono::seconds(5));
  ASSERT_TRUE(answer.has_value()) << "no answer within 5 s";
  EXPECT_FALSE(*answer);
  node.meta.name = std::string(40, 'a');
  EXPECT_TRUE(MemberMatchesNode(member, node));
  member.regex = "(?=a)";  // not compilable: matches nothing, as in Volcano
  EXPECT_FALSE(MemberMatchesNode(member, node));
}

}  // namespace
}  // namespace basalt
